package engine

import (
	"slices"
	"strings"
	"testing"
)

// The tables are generated from SGLang at modal-projects/sglang 8905cbd4; a
// change in these counts means the data was regenerated and needs review.
func TestTableSizes(t *testing.T) {
	tests := []struct {
		p              Program
		flags, removed int
	}{
		{SGLangServer, 459, 100},
		{SGLangRouter, 108, 0},
		{SGLangRouterServer, 459 + 108 - 3 + 1, 100}, // router flags but --host/--port/-h, plus --router-dp-worker-base-port
	}
	for _, tt := range tests {
		tb := Lookup(tt.p)
		if tb == nil {
			t.Fatalf("no table for %s", tt.p)
		}
		if got := len(tb.Flags()); got != tt.flags {
			t.Errorf("%s: %d flags, want %d", tt.p, got, tt.flags)
		}
		if got := len(tb.RemovedFlags()); got != tt.removed {
			t.Errorf("%s: %d removed flags, want %d", tt.p, got, tt.removed)
		}
		if !slices.IsSorted(tb.Names()) || len(tb.Names()) != tt.flags {
			t.Errorf("%s: Names() not sorted or wrong size", tt.p)
		}
	}
	if Lookup("vllm") != nil {
		t.Errorf("an unknown program has no table")
	}
}

func TestTableSample(t *testing.T) {
	tb := Lookup(SGLangServer)
	tests := []struct {
		name    string
		canon   string
		typ     string
		def     string
		nargs   string
		action  string
		choices string // a choice that must be present
		aliases string
	}{
		{"--model", "--model-path", "str", "(required)", "", "store", "", "--model"},
		{"--tensor-parallel-size", "--tp-size", "int", "1", "", "store", "", "--tensor-parallel-size"},
		{"--ep", "--ep-size", "int", "1", "", "store", "", "--expert-parallel-size,--ep"},
		{"--mem-fraction-static", "--mem-fraction-static", "float", "None", "", "store", "", ""},
		{"--context-length", "--context-length", "human_readable_int", "None", "", "store", "", ""},
		{"--max-prefill-tokens", "--max-prefill-tokens", "human_readable_int", "16384", "", "store", "", ""},
		{"--kv-cache-dtype", "--kv-cache-dtype", "str", "'auto'", "", "store", "fp8_e4m3", ""},
		{"--disaggregation-mode", "--disaggregation-mode", "str", "'null'", "", "store", "prefill", ""},
		{"--disaggregation-transfer-backend", "--disaggregation-transfer-backend", "str", "'mooncake'", "", "store", "nixl", ""},
		{"--enable-dp-attention", "--enable-dp-attention", "bool", "False", "0", "store_true", "", ""},
		{"--cuda-graph-bs-decode", "--cuda-graph-bs-decode", "int", "None", "+", "store", "", ""},
		{"--fp8-gemm-backend", "--fp8-gemm-backend", "str", "'auto'", "", "store", "deep_gemm", ""},
		{"--no-dllm-fdfo", "--dllm-fdfo", "bool", "True", "0", "boolean_optional", "", "--no-dllm-fdfo"},
		{"--config", "--config", "str", "", "", "store", "", ""},
	}
	for _, tt := range tests {
		f, ok := tb.Flag(tt.name)
		if !ok {
			t.Errorf("%s: not found", tt.name)
			continue
		}
		if f.Name != tt.canon || f.Type != tt.typ || f.Default != tt.def || f.Nargs != tt.nargs || f.Action != tt.action {
			t.Errorf("%s: %+v", tt.name, f)
		}
		if tt.choices != "" && !slices.Contains(f.Choices, tt.choices) {
			t.Errorf("%s: choices %v lack %s", tt.name, f.Choices, tt.choices)
		}
		if tt.aliases != "" && strings.Join(f.Aliases, ",") != tt.aliases {
			t.Errorf("%s: aliases %v, want %s", tt.name, f.Aliases, tt.aliases)
		}
	}
	// A field whose cli_name differs is known by the cli_name only.
	if _, ok := tb.Flag("--fp8-gemm-runner-backend"); ok {
		t.Errorf("--fp8-gemm-runner-backend is a field name, not an option")
	}
	// no_cli fields are not options.
	if _, ok := tb.Flag("--uses-mamba-radix-cache"); ok {
		t.Errorf("--uses-mamba-radix-cache is no_cli")
	}
	dep, _ := tb.Flag("--cuda-graph-max-bs")
	if dep.Deprecated != "--cuda-graph-max-bs-decode" || dep.Key != "--cuda-graph-max-bs-decode" || dep.RedirectsTo != "--cuda-graph-max-bs-decode" {
		t.Errorf("--cuda-graph-max-bs: %+v", dep)
	}
	rm, ok := tb.Flag("--disaggregation-decode-tp")
	if !ok || !strings.Contains(rm.Removed, "2026-03-02") || !strings.Contains(rm.Removed, "#19618") {
		t.Errorf("--disaggregation-decode-tp: %+v", rm)
	}
	swa, _ := tb.Flag("--swa-full-tokens-ratio")
	if swa.Min == nil || *swa.Min != 0 || !swa.MinOpen || swa.Max == nil || *swa.Max != 1 || swa.MaxOpen || swa.RangeSource == "" {
		t.Errorf("--swa-full-tokens-ratio range: %+v", swa)
	}

	rt := Lookup(SGLangRouter)
	prefill, _ := rt.Flag("--prefill")
	decode, _ := rt.Flag("--decode")
	if prefill.Action != "append" || prefill.Nargs != "+" || decode.Action != "append" || decode.Nargs != "1" {
		t.Errorf("--prefill %+v --decode %+v", prefill, decode)
	}
	for _, n := range []string{"--pd-disaggregation", "--service-discovery", "--prefill-selector", "--decode-selector", "--policy", "--prefill-policy", "--decode-policy", "--host", "--port", "--mini-lb"} {
		if _, ok := rt.Flag(n); !ok {
			t.Errorf("router lacks %s", n)
		}
	}
}

// Every replacement the data names must exist, so that a suggestion never
// points at a flag that is not there.
func TestTableReplacementsExist(t *testing.T) {
	tb := Lookup(SGLangServer)
	for _, f := range tb.Flags() {
		if f.Deprecated != "" && f.Deprecated != "(no replacement)" && tb.flagNamed(f.Deprecated) == "" {
			t.Errorf("%s: replacement %q is not a flag", f.Name, f.Deprecated)
		}
	}
	for _, f := range tb.RemovedFlags() {
		if _, live := tb.byOpt[f.Name]; live {
			t.Errorf("%s is both removed and live", f.Name)
		}
		if f.Instead != "" && tb.flagNamed(f.Instead) == "" {
			t.Errorf("%s: replacement %q is not a flag", f.Name, f.Instead)
		}
	}
}
