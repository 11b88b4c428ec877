// Package diag is what kvlint tells the user about a place in their files.
// Every parser, the rules and the run itself report through this one type, so
// every reporter renders input errors and findings alike.
package diag

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
)

// Diagnostic is one thing kvlint reports at a span. An input error is input
// kvlint could not analyse: it is reported like a finding and makes the run
// exit 3.
type Diagnostic struct {
	Span    deploy.Span
	Message string
}

func (d *Diagnostic) Error() string { return d.Span.String() + ": " + d.Message }

// Errorf builds an input error at span.
func Errorf(span deploy.Span, format string, args ...any) *Diagnostic {
	return &Diagnostic{Span: span, Message: fmt.Sprintf(format, args...)}
}
