package rules

import (
	"strings"
	"testing"
)

func TestExplainSplitsSeveritySentences(t *testing.T) {
	tests := []struct {
		name, description, what, why string
	}{
		{
			name:        "severity sentence in the middle",
			description: "The pool is small.\n  Severity high: requests fail. The pool is judged when known.",
			what:        "The pool is small. The pool is judged when known.",
			why:         "Severity high: requests fail.",
		},
		{
			name:        "severity named inside a sentence, lower case next word",
			description: "argparse accepts prefixes. An abbreviation is severity low: it works. kvlint says so.",
			what:        "argparse accepts prefixes. kvlint says so.",
			why:         "An abbreviation is severity low: it works.",
		},
		{
			name:        "no severity sentence",
			description: "Something is wrong. Fix it.",
			what:        "Something is wrong. Fix it.",
		},
		{
			name:        "the word severity alone is not a justification",
			description: "Severity depends on the flag. It is high when the server stops.",
			what:        "Severity depends on the flag. It is high when the server stops.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rule{Description: tt.description}.Explain()
			if got.What != tt.what || got.Why != tt.why {
				t.Errorf("Explain()\n what %q\n  why %q\nwant what %q\n  why %q", got.What, got.Why, tt.what, tt.why)
			}
		})
	}
}

// Every built-in rule says why its severity is what it is: explain and the
// rule pages show it under its own heading.
func TestEveryRuleExplainsItsSeverity(t *testing.T) {
	for _, r := range engine(t).Rules() {
		ex := r.Explain()
		if ex.Why == "" {
			t.Errorf("%s: no sentence of the description justifies the severity (\"Severity %s: …\")", r.ID, r.Severity)
		}
		if ex.What == "" {
			t.Errorf("%s: the description is only the severity sentence", r.ID)
		}
		if !strings.Contains(strings.ToLower(ex.Why), "severity "+r.Severity) {
			t.Errorf("%s: why %q does not mention the rule's severity %s", r.ID, ex.Why, r.Severity)
		}
	}
}
