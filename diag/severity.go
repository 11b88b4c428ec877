package diag

import (
	"fmt"
	"strings"
)

// Severity ranks findings; a larger value is more severe. The zero value is
// not a severity, so a forgotten field never passes for "info".
type Severity int

const (
	SeverityInfo Severity = iota + 1
	SeverityLow
	SeverityMedium
	SeverityHigh
	SeverityCritical
)

// severityNames are the spellings used in rule METADATA, findings and --fail-on.
var severityNames = [...]string{
	SeverityInfo:     "info",
	SeverityLow:      "low",
	SeverityMedium:   "medium",
	SeverityHigh:     "high",
	SeverityCritical: "critical",
}

// Severities lists every severity from the least to the most severe.
func Severities() []Severity {
	return []Severity{SeverityInfo, SeverityLow, SeverityMedium, SeverityHigh, SeverityCritical}
}

// ParseSeverity reads a severity name (info, low, medium, high, critical),
// ignoring case and surrounding space, as written in METADATA or --fail-on.
func ParseSeverity(s string) (Severity, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, sev := range Severities() {
		if severityNames[sev] == name {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: want one of info, low, medium, high, critical", s)
}

// String returns the severity's name, or "severity(N)" for a value that is not one.
func (s Severity) String() string {
	if s.Valid() {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Valid reports whether s is one of the defined severities.
func (s Severity) Valid() bool { return s >= SeverityInfo && s <= SeverityCritical }

// AtLeast reports whether s is as severe as threshold or more: the test
// behind --fail-on.
func (s Severity) AtLeast(threshold Severity) bool { return s >= threshold }

// Level is the finding's severity. A finding built by the rules engine
// always has a valid one; anything else (an input error) ranks below info.
func (d Diagnostic) Level() Severity {
	s, err := ParseSeverity(d.Severity)
	if err != nil {
		return 0
	}
	return s
}

// AtLeast reports whether the finding is as severe as threshold or more.
func (d Diagnostic) AtLeast(threshold Severity) bool { return d.Level().AtLeast(threshold) }

// MaxSeverity returns the most severe level among findings, or 0 when there
// are none.
func MaxSeverity(findings []Diagnostic) Severity {
	var top Severity
	for _, f := range findings {
		top = max(top, f.Level())
	}
	return top
}
