package compose

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// readTestdata resolves files beside the compose file; ".env" is
// testdata/dotenv (a dot file would be hidden from the Go tool).
func readTestdata(p string) (string, []byte, error) {
	if p == ".env" {
		p = "dotenv"
	}
	name := filepath.Join("testdata", p)
	data, err := os.ReadFile(name)
	return name, data, err
}

func noFiles(p string) (string, []byte, error) { return p, nil, os.ErrNotExist }

func parseFixture(t *testing.T, name string, read func(string) (string, []byte, error)) []*deploy.Server {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	servers, errs := Parse(name, data, read)
	for _, e := range errs {
		t.Errorf("unexpected error: %v", e)
	}
	return servers
}

func byName(t *testing.T, servers []*deploy.Server, name string) *deploy.Server {
	t.Helper()
	var names []string
	for _, s := range servers {
		if s.Name == name {
			return s
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	t.Fatalf("no server %q among %q", name, names)
	return nil
}

type pos struct{ line, col, endCol int }

func checkValue(t *testing.T, what string, got deploy.Value, raw string, known bool, file string, at pos) {
	t.Helper()
	if got.Raw != raw || got.Known != known {
		t.Errorf("%s = %q known=%v, want %q known=%v", what, got.Raw, got.Known, raw, known)
	}
	want := deploy.Span{File: file, Line: at.line, Col: at.col, EndLine: at.line, EndCol: at.endCol}
	if got.Span != want {
		t.Errorf("%s: span %#v, want %#v", what, got.Span, want)
	}
}

func TestStringEntrypointAndCommand(t *testing.T) {
	const f = "string-command.yaml"
	s := byName(t, parseFixture(t, f, readTestdata), "sglang")
	if s.Source != "compose" || s.Engine != deploy.EngineSGLang {
		t.Errorf("source %q engine %q", s.Source, s.Engine)
	}
	// The entrypoint's words come first; the server is the module word.
	want := deploy.Span{File: f, Line: 9, Col: 28, EndLine: 9, EndCol: 48}
	if s.Span != want {
		t.Errorf("server span %+v, want %+v", s.Span, want)
	}
	// A quoted word inside the string: the span covers the word as written.
	mem := s.Args["--mem-fraction-static"]
	if mem.Raw != "0.88" || !mem.Known || mem.Span.Line != 12 || mem.Span.Col != 29 {
		t.Errorf("--mem-fraction-static %+v", mem)
	}
	checkValue(t, "gpus", s.GPUCount, "2", true, f, pos{21, 22, 23})
	// ${SGLANG_TAG:-latest}: unset in .env, so the default applies.
	if s.Image.Raw != "lmsysorg/sglang:latest" || !s.Image.Known {
		t.Errorf("image %+v", s.Image)
	}
}

func TestDotEnvInterpolation(t *testing.T) {
	const f = "string-command.yaml"
	s := byName(t, parseFixture(t, f, readTestdata), "sglang")
	model := s.Args["--model-path"]
	checkValue(t, "--model-path", model, "meta-llama/Llama-3.1-8B-Instruct", true, f, pos{10, 27, 35})
	if len(model.Origin) != 1 || model.Origin[0].Kind != deploy.StepEnv || model.Origin[0].Span != (deploy.Span{File: "testdata/dotenv", Line: 2, Col: 7, EndLine: 2, EndCol: 39}) {
		t.Errorf("--model-path via %+v, want the .env line", model.Origin)
	}
	checkValue(t, "--tp-size", s.Args["--tp-size"], "1", true, f, pos{11, 23, 24})
	ctx := s.Args["--context-length"]
	checkValue(t, "--context-length", ctx, "65536", true, f, pos{13, 24, 36})
	if len(ctx.Origin) != 1 || ctx.Origin[0].Span.Line != 3 || ctx.Origin[0].Span.Col != 21 {
		t.Errorf("--context-length via %+v, want inside the quotes on .env line 3", ctx.Origin)
	}
}

func TestWithoutDotEnvVariablesAreUnknown(t *testing.T) {
	s := byName(t, parseFixture(t, "string-command.yaml", noFiles), "sglang")
	if m := s.Args["--model-path"]; m.Known {
		t.Errorf("--model-path %+v, want unknown without .env", m)
	}
	if tp := s.Args["--tp-size"]; tp.Raw != "1" || !tp.Known {
		t.Errorf("--tp-size %+v, want the default 1", tp)
	}
}

func TestListCommand(t *testing.T) {
	const f = "list-command.yaml"
	servers := parseFixture(t, f, readTestdata)
	d := byName(t, servers, "decode")
	if d.Role != deploy.RoleDecode {
		t.Errorf("decode role %q", d.Role)
	}
	checkValue(t, "decode --tp-size", d.Args["--tp-size"], "4", true, f, pos{17, 10, 11})
	checkValue(t, "decode --model-path", d.Args["--model-path"], "meta-llama/Llama-3.1-8B-Instruct", true, f, pos{13, 9, 17})
	checkValue(t, "decode replicas", d.Replicas, "2", true, f, pos{19, 17, 18})
	// device_ids: four GPUs, the span is the list.
	if d.GPUCount.Raw != "4" || !d.GPUCount.Known || d.GPUCount.Span.Line != 24 {
		t.Errorf("decode gpus %+v", d.GPUCount)
	}
	// The image comes through the merge key from x-engine.
	checkValue(t, "decode image", d.Image, "lmsysorg/sglang:v0.4.9.post2", true, f, pos{2, 10, 38})
}

func TestEntrypointShellWithCommandScript(t *testing.T) {
	requireShellLaunches(t)
	const f = "list-command.yaml"
	p := byName(t, parseFixture(t, f, readTestdata), "prefill")
	if p.Role != deploy.RolePrefill {
		t.Errorf("prefill role %q", p.Role)
	}
	// $$MEM is the container's $MEM, from environment.
	mem := p.Args["--mem-fraction-static"]
	if mem.Raw != "0.7" || !mem.Known || mem.Span.Line != 31 {
		t.Errorf("--mem-fraction-static %+v", mem)
	}
	// $${MODEL_PATH} is the container's, whose value compose interpolated
	// from .env.
	if m := p.Args["--model-path"]; m.Raw != "/models/meta-llama/Llama-3.1-8B-Instruct" || !m.Known {
		t.Errorf("--model-path %+v", m)
	}
	checkSpanLine(t, "prefill server", p.Span, 30, 25)
	if p.GPUCount.Known || p.GPUCount.Raw != "all" {
		t.Errorf("gpus: all gave %+v", p.GPUCount)
	}
}

func checkSpanLine(t *testing.T, what string, s deploy.Span, line, col int) {
	t.Helper()
	if s.Line != line || s.Col != col {
		t.Errorf("%s at %d:%d, want %d:%d", what, s.Line, s.Col, line, col)
	}
}

func TestStringCommandStopsAtOperator(t *testing.T) {
	r := byName(t, parseFixture(t, "list-command.yaml", readTestdata), "router")
	if r.Engine != deploy.EngineSGLangRouter {
		t.Errorf("router engine %q", r.Engine)
	}
	// NVIDIA_VISIBLE_DEVICES=0 with runtime: nvidia is one GPU.
	if r.GPUCount.Raw != "1" || !r.GPUCount.Known {
		t.Errorf("router gpus %+v", r.GPUCount)
	}
	for _, p := range r.Positionals {
		if p.Raw == "echo" || p.Raw == "done" {
			t.Errorf("words after ; reached the router: %v", r.Positionals)
		}
	}
}
