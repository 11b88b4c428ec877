package suppress

import (
	"slices"
	"strings"
	"testing"
)

func TestParseDirective(t *testing.T) {
	tests := []struct {
		text    string
		ok      bool
		file    bool
		rules   []string
		reason  string
		problem string
	}{
		{text: "just a comment"},
		{text: "see kvlint:ignore KV101 in the docs"},
		{text: " kvlint:ignore KV101 -- pool sized for 32k prompts ", ok: true, rules: []string{"KV101"}, reason: "pool sized for 32k prompts"},
		{text: "kvlint:ignore KV101,KV104 -- r", ok: true, rules: []string{"KV101", "KV104"}, reason: "r"},
		{text: "kvlint:ignore KV101, KV104 --r", ok: true, rules: []string{"KV101", "KV104"}, reason: "r"},
		{text: "kvlint:ignore ACME001", ok: true, rules: []string{"ACME001"}},
		{text: "kvlint:ignore KV101 --", ok: true, rules: []string{"KV101"}},
		{text: "kvlint:ignore-file -- vendored chart", ok: true, file: true, reason: "vendored chart"},
		{text: "kvlint:ignore-file KV101 KV402", ok: true, file: true, rules: []string{"KV101", "KV402"}},
		{text: "kvlint:ignore-file", ok: true, file: true},
		{text: "kvlint:ignore -- no ids", ok: true, problem: "names no rule"},
		{text: "kvlint:ignore", ok: true, problem: "names no rule"},
		{text: "kvlint:ignore kv101 -- r", ok: true, problem: `"kv101" is not a rule ID`},
		{text: "kvlint:ignore KV101 because the gateway caps prompts", ok: true, problem: `"because" is not a rule ID`},
		{text: "kvlint:disable KV101", ok: true, problem: "kvlint:disable is not a kvlint directive"},
		{text: "kvlint:ignored KV101", ok: true, problem: "kvlint:ignored is not a kvlint directive"},
	}
	for _, tt := range tests {
		d, ok := parseDirective(tt.text)
		if ok != tt.ok {
			t.Errorf("%q: ok %v, want %v", tt.text, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if tt.problem != "" {
			if !strings.Contains(d.problem, tt.problem) {
				t.Errorf("%q: problem %q, want it to contain %q", tt.text, d.problem, tt.problem)
			}
			continue
		}
		if d.problem != "" || d.file != tt.file || !slices.Equal(d.rules, tt.rules) || d.reason != tt.reason {
			t.Errorf("%q = %+v, want file %v rules %v reason %q", tt.text, d, tt.file, tt.rules, tt.reason)
		}
	}
}
