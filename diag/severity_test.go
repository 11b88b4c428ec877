package diag

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in   string
		want Severity
		ok   bool
	}{
		{"info", SeverityInfo, true},
		{"low", SeverityLow, true},
		{"medium", SeverityMedium, true},
		{" HIGH ", SeverityHigh, true},
		{"Critical", SeverityCritical, true},
		{"", 0, false},
		{"warning", 0, false},
		{"crit", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSeverity(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSeverityOrder(t *testing.T) {
	all := Severities()
	for i, s := range all {
		if !s.Valid() {
			t.Errorf("%v is not valid", s)
		}
		back, err := ParseSeverity(s.String())
		if err != nil || back != s {
			t.Errorf("round trip of %v: %v, %v", s, back, err)
		}
		for j, other := range all {
			if got, want := s.AtLeast(other), i >= j; got != want {
				t.Errorf("%v.AtLeast(%v) = %v, want %v", s, other, got, want)
			}
		}
	}
	if Severity(0).Valid() || Severity(9).Valid() {
		t.Error("out-of-range severities are valid")
	}
	if Severity(0).String() != "severity(0)" {
		t.Errorf("Severity(0).String() = %q", Severity(0).String())
	}
}

func TestFindingThreshold(t *testing.T) {
	findings := []Diagnostic{{Rule: "KV1", Severity: "low"}, {Rule: "KV2", Severity: "high"}, {Rule: "KV3", Severity: "info"}}
	if got := MaxSeverity(findings); got != SeverityHigh {
		t.Errorf("MaxSeverity = %v, want high", got)
	}
	if MaxSeverity(nil) != 0 {
		t.Error("MaxSeverity(nil) is not 0")
	}
	if !findings[1].AtLeast(SeverityHigh) || findings[0].AtLeast(SeverityMedium) {
		t.Error("AtLeast disagrees with the order")
	}
	if (Diagnostic{Rule: "KV1", Severity: "bogus"}).AtLeast(SeverityInfo) {
		t.Error("a finding with an unknown severity passes --fail-on info")
	}
}

// An input error has no rule and no severity: no --fail-on threshold
// counts it as a finding (it sets exit 3 on its own).
func TestInputErrorIsNoFinding(t *testing.T) {
	e := Errorf(deploy.Span{File: "x.yaml", Line: 2, Col: 3}, "cannot parse %s", "this")
	if !e.IsInputError() || e.Level() != 0 || e.AtLeast(SeverityInfo) {
		t.Errorf("input error %+v: IsInputError %v, level %v", e, e.IsInputError(), e.Level())
	}
	if e.Error() != "x.yaml:2:3: cannot parse this" {
		t.Errorf("Error() = %q", e.Error())
	}
	f := Diagnostic{Rule: "KV101", Severity: "high"}
	if f.IsInputError() {
		t.Error("a finding is an input error")
	}
}
