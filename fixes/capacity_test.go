package fixes_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// runScript checks one launch script on gpu and returns the result.
func runScript(t *testing.T, gpu, script string) *analysis.Result {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "serve.sh")
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: []string{p}, GPU: gpu})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// fixFor is the finding of rule and its fix whose description starts with
// prefix, with the finding's estimate.
func fixFor(t *testing.T, res *analysis.Result, rule, prefix string) (diag.Fix, *capacity.Estimate) {
	t.Helper()
	for _, d := range res.Findings {
		if d.Rule != rule {
			continue
		}
		for _, f := range d.Fixes {
			if strings.HasPrefix(f.Description, prefix) {
				return f, &res.Estimates[d.Server]
			}
		}
		var got []string
		for _, f := range d.Fixes {
			got = append(got, f.Description)
		}
		t.Fatalf("%s has no fix %q…; it has %q", rule, prefix, got)
	}
	t.Fatalf("no %s finding", rule)
	return diag.Fix{}, nil
}

// value is the number a fix writes for flag, read from its description.
func value(t *testing.T, f diag.Fix, flag string) string {
	t.Helper()
	fields := strings.Fields(f.Description)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == flag {
			return fields[i+1]
		}
	}
	t.Fatalf("fix %q does not set %s", f.Description, flag)
	return ""
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pool(t *testing.T, e capacity.Estimate) int64 {
	t.Helper()
	if e.PoolTokens == nil {
		return 0
	}
	return *e.PoolTokens
}

func TestFractionIsTheSmallestThatHolds(t *testing.T) {
	res := runScript(t, "H100-80GB", `python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072 --mem-fraction-static 0.3
`)
	f, est := fixFor(t, res, "KV101", "--mem-fraction-static")
	if f.Unwritable != "" || len(f.Replacements) != 1 || f.Replacements[0].Span.Line != 1 {
		t.Fatalf("want one edit of the written fraction, got %+v", f)
	}
	frac, err := strconv.ParseFloat(value(t, f, "--mem-fraction-static"), 64)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := est.PoolAtFraction(frac)
	below, _ := est.PoolAtFraction(frac - capacity.FractionStep)
	if pool(t, at) < 131072 || pool(t, below) >= 131072 {
		t.Errorf("fraction %v: pool %d at it, %d one step below; want ≥ 131072 then < 131072", frac, pool(t, at), pool(t, below))
	}
	if f.Replacements[0].NewText != value(t, f, "--mem-fraction-static") {
		t.Errorf("the edit writes %q, the description says %q", f.Replacements[0].NewText, f.Description)
	}
}

func TestContextIsWhatThePoolHolds(t *testing.T) {
	res := runScript(t, "L4", `python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072 --port 30000
`)
	f, est := fixFor(t, res, "KV101", "--context-length")
	n := atoi(t, value(t, f, "--context-length"))
	at, _ := est.With(capacity.SetInt("--context-length", n))
	longer, _ := est.With(capacity.SetInt("--context-length", n+1))
	if pool(t, at) < n || pool(t, longer) >= n+1 {
		t.Errorf("context %d: pool %d; at %d the pool is %d: want the longest that fits", n, pool(t, at), n+1, pool(t, longer))
	}
	// The flag is absent nowhere here, but TP is: that fix adds it after
	// the last argument, as a shell word.
	tp, _ := fixFor(t, res, "KV101", "--tp-size")
	if len(tp.Replacements) != 1 || tp.Replacements[0].NewText != " --tp-size 2" || tp.Replacements[0].Span.Col != tp.Replacements[0].Span.EndCol {
		t.Errorf("want an insertion of \" --tp-size 2\", got %+v", tp.Replacements)
	}
	// The fraction cannot make room on an L4: said, not offered.
	fr, _ := fixFor(t, res, "KV101", "--mem-fraction-static")
	if fr.Unwritable == "" || len(fr.Replacements) != 0 {
		t.Errorf("an L4 cannot hold 131,072 tokens of Llama 8B: want no edit, got %+v", fr)
	}
}

func TestMaxModelLenIsVLLMsEstimate(t *testing.T) {
	res := runScript(t, "L4", `vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072
`)
	f, est := fixFor(t, res, "KV101", "--max-model-len")
	n := atoi(t, value(t, f, "--max-model-len"))
	for _, d := range res.Findings {
		if d.Rule == "KV101" && !strings.Contains(d.Message, capacity.Thousands(n)) {
			t.Errorf("the finding quotes vLLM's estimate; the fix offers %d: %s", n, d.Message)
		}
	}
	at, _ := est.With(capacity.SetInt("--max-model-len", n))
	if at.StartupError != "" {
		t.Errorf("--max-model-len %d: %s", n, at.StartupError)
	}
	block := int64(est.PageSize)
	longer, _ := est.With(capacity.SetInt("--max-model-len", n+block))
	if longer.StartupError == "" {
		t.Errorf("--max-model-len %d starts too: %d is not the longest", n+block, n)
	}
}

func TestFewerRequestsFit(t *testing.T) {
	res := runScript(t, "H100-80GB", `python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072 --max-running-requests 16
`)
	f, est := fixFor(t, res, "KV102", "--max-running-requests")
	n := atoi(t, value(t, f, "--max-running-requests"))
	at, _ := est.With(capacity.SetInt("--max-running-requests", n))
	p := pool(t, at)
	if p < 131072*n || p >= 131072*(n+1) {
		t.Errorf("--max-running-requests %d: pool %d; want room for %d and not %d", n, p, n, n+1)
	}
}

func TestCapIsRaisedToTheContext(t *testing.T) {
	res := runScript(t, "H100-80GB", `python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 65536 --max-total-tokens 16384
`)
	f, est := fixFor(t, res, "KV101", "--max-total-tokens")
	n := atoi(t, value(t, f, "--max-total-tokens"))
	at, _ := est.With(capacity.SetInt("--max-total-tokens", n))
	under, _ := est.With(capacity.SetInt("--max-total-tokens", n-1))
	if pool(t, at) < 65536 || pool(t, under) >= 65536 {
		t.Errorf("--max-total-tokens %d: pool %d, one less: %d", n, pool(t, at), pool(t, under))
	}
	if len(f.Replacements) != 1 || f.Replacements[0].NewText != strconv.FormatInt(n, 10) {
		t.Errorf("want the written cap replaced, got %+v", f.Replacements)
	}
}

func TestNoFixWithoutAnEstimate(t *testing.T) {
	// The GPU is unknown and nothing caps the pool: KV105 says so, and no
	// capacity fix is invented; KV105's what-ifs write nothing.
	res := runScript(t, "", `python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072
`)
	for _, d := range res.Findings {
		for _, f := range d.Fixes {
			if !strings.HasPrefix(d.Rule, "KV1") || f.WhatIf && len(f.Replacements) == 0 {
				continue
			}
			t.Errorf("%s got fix %+v with no pool known", d.Rule, f)
		}
	}
}
