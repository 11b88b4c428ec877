package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

func runPaths(t *testing.T, cfg *config.Config, paths ...string) *analysis.Result {
	t.Helper()
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), engine, Options{Paths: paths, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// placeholderMarkers are the spellings of values that only exist after some
// other tool ran: a shell, Kubernetes, Helm, Terraform, compose.
var placeholderMarkers = []string{"$", "{{", "${"}

// TestPlaceholdersAreNeverNumbers runs the whole pipeline over files in every
// format whose sizing flags are all placeholders, and proves no placeholder
// became a known value, a number in a capacity estimate, or a finding about
// its value.
func TestPlaceholdersAreNeverNumbers(t *testing.T) {
	res := runPaths(t, nil, "../testdata/placeholders")
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	sources := map[string]int{}
	for i, s := range res.Servers {
		sources[string(s.Source)]++
		for _, name := range s.ArgNames() {
			v := s.Args[name]
			for _, m := range placeholderMarkers {
				if v.Known && strings.Contains(v.Raw, m) {
					t.Errorf("%s %s: placeholder %q taken as known", s.Name, name, v.Raw)
				}
			}
		}
		for _, flag := range []string{"--tp-size", "--context-length", "--max-total-tokens"} {
			if v, ok := s.Args[flag]; ok && v.Known {
				t.Errorf("%s %s = %q is known, want a placeholder", s.Name, flag, v.Raw)
			}
		}
		e := res.Estimates[i]
		if e.PoolUpperBound != nil || e.PoolTokens != nil || e.ContextLength != nil && e.ContextSource == "flag" {
			t.Errorf("%s: estimate took a placeholder as a number: %+v", s.Name, e)
		}
	}
	for _, want := range []string{"shell", "dockerfile", "compose", "kubernetes"} {
		if sources[want] == 0 {
			t.Errorf("no server found by the %s parser (found %v)", want, sources)
		}
	}
	for _, f := range res.Findings {
		if f.Rule == "KV405" || f.Rule == "KV101" || f.Rule == "KV104" {
			t.Errorf("finding from a placeholder: %s %s at %s", f.Rule, f.Message, f.Span)
		}
	}
}

func TestIncidentPointsAtTheCap(t *testing.T) {
	res := runPaths(t, nil, "../examples/incident")
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	var kv101 []diag.Diagnostic
	for _, f := range res.Findings {
		if f.Rule == "KV101" {
			kv101 = append(kv101, f)
		}
	}
	if len(kv101) != 1 {
		t.Fatalf("want one KV101, got %v", res.Findings)
	}
	f := kv101[0]
	want := deploy.Span{File: "../examples/incident/decode.yaml", Line: 32, Col: 18, EndLine: 32, EndCol: 23}
	if f.Span != want {
		t.Errorf("KV101 at %+v, want the --max-total-tokens value at %+v", f.Span, want)
	}
}

func TestHealthyIsClean(t *testing.T) {
	// The example declares its tenancy in the .kvlint.yaml beside it.
	cfg, err := config.FindFor(".", []string{"../examples/healthy"})
	if err != nil || cfg.Path == "" {
		t.Fatalf("examples/healthy/.kvlint.yaml: %v %+v", err, cfg)
	}
	res := runPaths(t, cfg, "../examples/healthy")
	if len(res.Errors) != 0 || len(res.Findings) != 0 {
		t.Fatalf("healthy example: errors %v findings %v", res.Errors, res.Findings)
	}
	if len(res.Servers) != 3 {
		t.Errorf("want prefill, decode and router, got %d servers", len(res.Servers))
	}
}

func TestModelMappingFromConfig(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "serve.sh")
	body := "#!/bin/sh\npython3 -m sglang.launch_server --model-path /models/m --context-length 8192\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{GPU: "H100-80GB", Models: map[string]string{"/models/m": "meta-llama/Llama-3.1-8B-Instruct"}}
	res := runPaths(t, cfg, script)
	if len(res.Estimates) != 1 {
		t.Fatalf("want one server, got %d (errors %v)", len(res.Estimates), res.Errors)
	}
	e := res.Estimates[0]
	// Llama-3.1-8B at TP1 in bf16: 8 KV heads × (128+128) × 32 layers × 2 B.
	if e.CellBytesPerToken == nil || *e.CellBytesPerToken != 131072 || e.PoolTokens == nil {
		t.Fatalf("mapped model was not sized: %+v", e)
	}
	if res.Servers[0].Model.Raw != "/models/m" {
		t.Errorf("the parsed server was rewritten: model %q", res.Servers[0].Model.Raw)
	}
	found := false
	for _, a := range e.Assumptions {
		found = found || strings.Contains(a, "as .kvlint.yaml declares")
	}
	if !found {
		t.Errorf("the mapping is not stated among the assumptions: %v", e.Assumptions)
	}
}
