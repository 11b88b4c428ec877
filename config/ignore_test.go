package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseIgnore(t *testing.T) {
	c, err := Parse("k.yaml", []byte(`gpu: H100-80GB
ignore:
  - path: charts/vendor/**
    rules: [KV101, ACME001]
    reason: third-party chart
    until: 2026-09-30
  - rules: KV104,KV105
    path: decode.yaml
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ignore) != 2 {
		t.Fatalf("ignore %+v", c.Ignore)
	}
	a, b := c.Ignore[0], c.Ignore[1]
	if a.Path != "charts/vendor/**" || !slices.Equal(a.Rules, []string{"KV101", "ACME001"}) || a.Reason != "third-party chart" ||
		!a.Until.Equal(time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)) || a.Line != 3 || a.Column != 5 || a.Key != "path" {
		t.Errorf("first entry %+v", a)
	}
	if b.Path != "decode.yaml" || !slices.Equal(b.Rules, []string{"KV104", "KV105"}) || !b.Until.IsZero() || b.Line != 7 || b.Key != "rules" {
		t.Errorf("second entry %+v", b)
	}
}

func TestParseIgnoreErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"ignore:\n  - rules: [KV101]\n", "k.yaml:2:5: an ignore entry needs a path"},
		{"ignore:\n  - path: a\n    until: 30/09/2026\n", `k.yaml:3:12: until must be a date written YYYY-MM-DD, not "30/09/2026"`},
		{"ignore:\n  - path: a\n    rules: [KV101, kv101]\n", `k.yaml:3:20: "kv101" is not a rule ID`},
		{"ignore:\n  - path: a\n    reasn: typo\n", `k.yaml:3:5: unknown key "reasn" in an ignore entry (path, rules, reason, until)`},
		{"ignore:\n  - path: a\n    path: b\n", "k.yaml:3:5: path is given twice"},
		{"ignore:\n  - a.yaml\n", "k.yaml:2:5: an ignore entry is a mapping"},
		{"ignore:\n  - path: ''\n", "k.yaml:2:12: path must be a non-empty pattern"},
		{"ignore:\n  - path: a\n    rules: {a: b}\n", "k.yaml:3:12: rules must be a list"},
	}
	for _, tt := range tests {
		_, err := Parse("k.yaml", []byte(tt.src))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tt.src, err, tt.want)
		}
	}
}

func TestIgnoreExpired(t *testing.T) {
	e := IgnoreEntry{Until: time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)}
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC), false},
		{time.Date(2026, 9, 30, 23, 59, 0, 0, time.UTC), false}, // the last day still applies
		{time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 9, 30, 16, 0, 0, 0, time.UTC).In(tokyo), true}, // already Oct 1 where the clock is
	}
	for _, tt := range tests {
		if got := e.Expired(tt.now); got != tt.want {
			t.Errorf("Expired(%v) = %v, want %v", tt.now, got, tt.want)
		}
	}
	if (IgnoreEntry{}).Expired(time.Now()) {
		t.Error("an entry without until expired")
	}
}
