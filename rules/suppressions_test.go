package rules

import (
	"context"
	"testing"
)

func TestEvaluateSuppressions(t *testing.T) {
	at := func(line int) SuppressionFact {
		return SuppressionFact{Kind: "inline", Text: "kvlint:ignore KV101", Where: "on this line",
			Rules: []string{"KV101"}, Reason: "sized for short prompts", Span: span("a.yaml", line, 5, "# kvlint:ignore KV101"),
			Used: true, Judged: true}
	}
	noReason := at(3)
	noReason.Reason = " "
	unused := at(7)
	unused.Used, unused.UnusedRules = false, []string{"KV101"}
	notJudged := unused
	notJudged.Span.Line, notJudged.Judged = 9, false
	expired := at(11)
	expired.Kind, expired.Until, expired.Expired, expired.Used = "config", "2020-01-31", true, false
	malformed := at(13)
	malformed.Problem, malformed.Reason = "kvlint:ignore names no rule", ""
	fine := at(15)

	facts := []SuppressionFact{fine, noReason, unused, notJudged, expired, malformed}
	got, err := engine(t).EvaluateSuppressions(context.Background(), facts)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		rule string
		line int
	}{{"KV001", 3}, {"KV002", 7}, {"KV003", 11}, {"KV004", 13}}
	if len(got) != len(want) {
		t.Fatalf("findings %+v, want %v", got, want)
	}
	for i, w := range want {
		f := got[i]
		if f.Rule != w.rule || f.Span.Line != w.line || f.Span.File != "a.yaml" || f.Server != -1 || f.Title == "" || f.Message == "" {
			t.Errorf("finding %d = %+v, want %s at line %d with server -1", i, f, w.rule, w.line)
		}
	}
	if f, err := engine(t).EvaluateSuppressions(context.Background(), nil); err != nil || f != nil {
		t.Errorf("no facts: %v, %v", f, err)
	}
}
