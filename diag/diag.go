// Package diag is what kvlint tells the user about a place in their files.
// Every parser, the rules and the run itself report through this one type, so
// every reporter renders input errors and findings alike.
package diag

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
)

// Diagnostic is one thing kvlint reports at a span: a rule's finding, or an
// input error.
//
// An input error is input kvlint could not analyse (a file that does not
// parse, a chart that does not render): it has no Rule and no Severity, and
// it makes the run exit 3 whatever --fail-on says. A rule id would make it
// look like a property of the code that a suppression or a baseline could
// silence; an input that was not read is a failed run instead.
type Diagnostic struct {
	Rule     string // KV101; "" for an input error
	Severity string // info|low|medium|high|critical; "" for an input error
	Title    string // the rule's title
	Message  string
	Span     deploy.Span
	// Origin is how the value at Span was produced, outermost first (for a
	// values file line, the template line that used it): copied from the
	// flag's deploy.Value.
	Origin deploy.Origin
	// Server indexes the servers the rules were given; -1 for a finding
	// about a suppression. Unused for an input error.
	Server int
	// Arg is the flag a finding is about, canonical ("--max-total-tokens"),
	// or "" when it points at the launch command or a suppression. Baseline
	// fingerprints use it.
	Arg string
	// Suppression is set when a finding was silenced (inline comment,
	// annotation, configuration); suppressed findings are still reported,
	// marked, so SARIF can carry them and unused suppressions can be found.
	Suppression *Suppression
	// Fixes are the computed ways to make the finding hold, least disruptive
	// first; nil when kvlint knows none. Input errors have none.
	Fixes []Fix
}

// Suppression says who silenced a finding and why.
type Suppression struct {
	Kind   string      // inline, file, annotation, config, baseline
	Reason string      // as the user wrote it; "" when none was given
	Span   deploy.Span // where the suppression is written
}

// IsInputError reports whether the diagnostic is input kvlint could not
// analyse rather than a rule's finding.
func (d *Diagnostic) IsInputError() bool { return d.Rule == "" }

func (d *Diagnostic) Error() string { return d.Span.String() + ": " + d.Message }

// Errorf builds an input error at span.
func Errorf(span deploy.Span, format string, args ...any) *Diagnostic {
	return &Diagnostic{Span: span, Message: fmt.Sprintf(format, args...)}
}
