package helm

import (
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func parseValuesFile(t *testing.T, name string) []*deploy.Server {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !KnownValues(data) {
		t.Fatalf("%s: not recognised as a known chart's values", name)
	}
	servers, errs := ParseValues(name, data)
	for _, e := range errs {
		t.Errorf("unexpected error: %v", e)
	}
	return servers
}

// SGLang's LWS PD chart: each role's config keys become the flags its
// leader command writes, spanned at the values lines; keys the file does
// not set stay unknown (the chart's default decides).
func TestSGLangLWSValues(t *testing.T) {
	const f = "testdata/values/sglang-lws-prod.yaml"
	servers := parseValuesFile(t, f)
	if len(servers) != 2 {
		t.Fatalf("got %d servers, want prefill and decode", len(servers))
	}
	p, d := servers[0], servers[1]
	if p.Role != deploy.RolePrefill || d.Role != deploy.RoleDecode || p.Name != "r1-prefill/leader" {
		t.Errorf("roles %q %q, name %q", p.Role, d.Role, p.Name)
	}
	tests := []struct {
		s     *deploy.Server
		flag  string
		raw   string
		span  string
		known bool
	}{
		{p, "--tp-size", "16", f + ":14:10-12", true}, // --tp is the alias the prefill command writes
		{p, "--context-length", "131072", f + ":6:21-27", true},
		{p, "--mem-fraction-static", "0.7", f + ":18:25-28", true},
		{p, "--enable-dp-attention", "true", f + ":16:5-22", true},
		{p, "--trust-remote-code", "true", f + ":7:5-20", true},
		{p, "--nnodes", "2", f + ":11:11-12", true},
		{d, "--tp-size", "16", f + ":26:14-16", true},
		{d, "--mem-fraction-static", "0.85", f + ":29:25-29", true},
		{d, "--page-size", "{{ .Values.decode.config.pageSize }}", "", false},
	}
	for _, tc := range tests {
		v, ok := tc.s.Args[tc.flag]
		if !ok {
			t.Errorf("%s %s: missing from %v", tc.s.Role, tc.flag, tc.s.ArgNames())
			continue
		}
		if v.Raw != tc.raw || v.Known != tc.known || at(v.Span) != tc.span {
			t.Errorf("%s %s = %q known=%v at %q, want %q known=%v at %q", tc.s.Role, tc.flag, v.Raw, v.Known, at(v.Span), tc.raw, tc.known, tc.span)
		}
	}
	// enableDpLmHead is not set: the chart's default decides whether
	// --enable-dp-lm-head is written, so the flags are not all known.
	if len(d.Opaque) == 0 {
		t.Errorf("decode: want opaque words for the conditions on unset keys")
	}
	if d.GPUCount.Raw != "8" || p.Replicas.Raw != "1" {
		t.Errorf("gpu count %q replicas %q", d.GPUCount.Raw, p.Replicas.Raw)
	}
}

// llm-d-modelservice: a custom command is read as written; vllmServe
// builds vllm serve MODEL ... from the chart's keys (checked when the flag
// tables know vLLM).
func TestModelServiceValues(t *testing.T) {
	const f = "testdata/values/modelservice-pd.yaml"
	servers := parseValuesFile(t, f)
	var prefill *deploy.Server
	for _, s := range servers {
		if s.Name == "prefill/vllm" {
			prefill = s
		}
	}
	if prefill == nil {
		t.Fatalf("no prefill server among %d", len(servers))
	}
	if prefill.Engine != deploy.EngineSGLang || prefill.Role != deploy.RolePrefill || prefill.Replicas.Raw != "1" {
		t.Errorf("prefill: %+v", prefill)
	}
	if v := prefill.Args["--max-total-tokens"]; v.Raw != "8192" || at(v.Span) != f+":28:142-146" {
		t.Errorf("--max-total-tokens %q at %s", v.Raw, at(v.Span))
	}
	for _, s := range servers {
		if s.Name == "decode/vllm" {
			if s.Engine != deploy.EngineVLLM || s.Model.Raw != "meta-llama/Llama-3.1-8B-Instruct" {
				t.Errorf("decode: engine %q model %q", s.Engine, s.Model.Raw)
			}
			if v := s.Args["--tensor-parallel-size"]; v.Raw != "2" || !strings.HasPrefix(at(v.Span), f+":9:13") {
				t.Errorf("decode --tensor-parallel-size %q at %s", v.Raw, at(v.Span))
			}
		}
	}
}

// production-stack: each modelSpec entry is one vLLM server (checked when
// the flag tables know vLLM).
func TestProductionStackValues(t *testing.T) {
	const f = "testdata/values/production-stack.yaml"
	data, _ := os.ReadFile(f)
	if !KnownValues(data) {
		t.Fatal("not recognised")
	}
	servers, errs := ParseValues(f, data)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, s := range servers {
		if s.Engine != deploy.EngineVLLM {
			t.Errorf("%s: engine %q", s.Name, s.Engine)
		}
		if s.Name == "llama8b" {
			if v := s.Args["--max-model-len"]; v.Raw != "32768" || at(v.Span) != f+":11:22-27" {
				t.Errorf("--max-model-len %q at %s", v.Raw, at(v.Span))
			}
			if s.Replicas.Raw != "2" {
				t.Errorf("replicas %q", s.Replicas.Raw)
			}
		}
	}
}

func TestUnknownValuesShapeIsNotChecked(t *testing.T) {
	data, _ := os.ReadFile("testdata/values/not-a-chart-values.yaml")
	if KnownValues(data) {
		t.Error("a generic values file was taken for a known chart's")
	}
	for _, bad := range []string{"", "[", "prefill: [", "prefill:\n  config: 3\n", "servingEngineSpec:\n  modelSpec: {}\n"} {
		if KnownValues([]byte(bad)) {
			t.Errorf("%q recognised", bad)
		}
	}
}
