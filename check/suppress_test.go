package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// smallPool launches a server whose pool (4096 tokens) is smaller than its
// context (8192): KV101 at the --max-total-tokens value on line 4.
const smallPool = `#!/bin/sh
# kvlint:ignore KV101 -- prompts are capped at 3k tokens by the gateway
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --context-length 8192 --max-total-tokens 4096
# kvlint:ignore KV104
echo done
`

func TestRunAppliesSuppressions(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "serve.sh")
	if err := os.WriteFile(script, []byte(smallPool), 0o644); err != nil {
		t.Fatal(err)
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Dir: dir, Path: filepath.Join(dir, ".kvlint.yaml"), Ignore: []config.IgnoreEntry{
		{Path: "*.sh", Rules: []string{"KV105"}, Until: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), Reason: "r", Line: 2, Column: 3, Key: "path"},
	}}
	res, err := Run(context.Background(), engine, Options{Paths: []string{dir}, Config: cfg, GPU: "H100-80GB", Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	byRule := map[string]diag.Diagnostic{}
	for _, f := range res.Findings {
		byRule[f.Rule] = f
	}
	kv101, ok := byRule["KV101"]
	if !ok || kv101.Suppression == nil || kv101.Suppression.Kind != "inline" || kv101.Suppression.Span.Line != 2 {
		t.Fatalf("KV101 = %+v, want it suppressed by the comment on line 2 (findings %+v)", kv101, res.Findings)
	}
	// The comment on line 5 names no finding and gives no reason.
	if f, ok := byRule["KV002"]; !ok || f.Span.Line != 5 || f.Suppression != nil {
		t.Errorf("KV002 = %+v, want the unused comment on line 5", f)
	}
	if f, ok := byRule["KV001"]; !ok || f.Span.Line != 5 {
		t.Errorf("KV001 = %+v, want the comment without a reason on line 5", f)
	}
	if f, ok := byRule["KV003"]; !ok || f.Span.File != cfg.Path || f.Span.Line != 2 {
		t.Errorf("KV003 = %+v, want the expired entry", f)
	}
	for i := 1; i < len(res.Findings); i++ {
		a, b := res.Findings[i-1].Span, res.Findings[i].Span
		if a.File > b.File || a.File == b.File && a.Line > b.Line {
			t.Errorf("findings out of order: %v before %v", a, b)
		}
	}

	// A baseline of this run silences the rest on the next one.
	b := baseline.Build(res.Findings, res.Servers, res.Files)
	again, err := Run(context.Background(), engine, Options{Paths: []string{dir}, Config: cfg, GPU: "H100-80GB",
		Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Baseline: b, BaselinePath: "base.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Findings {
		if f.Suppression == nil {
			t.Errorf("%s at %v is not suppressed by the baseline", f.Rule, f.Span)
		} else if f.Rule != "KV101" && f.Suppression.Kind != "baseline" {
			t.Errorf("%s suppressed by %s, want baseline", f.Rule, f.Suppression.Kind)
		}
	}
}
