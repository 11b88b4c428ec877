package capacity

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestSplitsHeads(t *testing.T) {
	est := EstimateServer(&deploy.Server{Engine: deploy.EngineSGLang, Model: deploy.Known("Qwen/Qwen2.5-7B-Instruct", deploy.Span{})}, Options{GPU: "H100-80GB"})
	if est.Model == "" {
		t.Fatal("Qwen2.5-7B is not in the catalog")
	}
	// 28 attention heads, 4 KV heads.
	for tp, want := range map[int]bool{1: true, 2: true, 4: true, 7: false, 8: false} {
		if ok, known := est.SplitsHeads(tp); !known || ok != want {
			t.Errorf("tp %d: got %v (known %v), want %v", tp, ok, known, want)
		}
	}
	if _, known := (&Estimate{}).SplitsHeads(2); known {
		t.Error("an estimate without a model knows no heads")
	}
}
