package report

import (
	"bytes"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

func TestSizing(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	res := &analysis.Result{
		Servers: []*deploy.Server{
			{Engine: deploy.EngineSGLang}, {Engine: deploy.EngineVLLM}, {Engine: deploy.EngineSGLang},
			{Engine: deploy.EngineSGLang}, {Engine: deploy.EngineSGLangRouter},
		},
		Estimates: []capacity.Estimate{
			{PoolTokens: n(1000)},
			{StartupError: "ValueError: …"},
			{PoolUpperBound: n(4096), Missing: []string{"gpu", "model"}},
			{Missing: []string{"gpu"}},
			{},
		},
	}
	z := SizingOf(res)
	if z.Servers != 4 || z.Sized != 1 || z.FailsAtStartup != 1 || z.Unsized != 2 || z.Bounded != 1 || z.Missing["gpu"] != 2 || z.Missing["model"] != 1 {
		t.Fatalf("%+v", z)
	}
	var b bytes.Buffer
	if err := SizingText(&b, z); err != nil {
		t.Fatal(err)
	}
	want := "sizing: 4 servers with a KV pool: 1 sized, 1 fails at startup, 2 unsized (1 bounded); missing: gpu 2, model 1\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
