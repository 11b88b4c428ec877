package report

import (
	"fmt"
	"io"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/diag"
)

// TextErrors writes the run's input errors (diagnostics without a rule) as
// CheckText does, and nothing else: a command that sends them to another
// stream than the findings (kvlint writes them to standard error in text
// mode) renders the findings from a Result without them.
func TextErrors(w io.Writer, res *analysis.Result) error {
	src := excerpts{res.Files}
	for _, e := range res.Errors {
		writeTextError(w, src, e)
	}
	return nil
}

func writeTextError(w io.Writer, src excerpts, e *diag.Diagnostic) {
	if e.Span.File == "" {
		// Not in a file (a command-line --set): no position to print.
		fmt.Fprintf(w, "kvlint: error: %s\n", Clean(e.Message))
		return
	}
	fmt.Fprintf(w, "%s: ", position(e.Span))
	Paint(w, "1;31", "error")
	fmt.Fprintf(w, ": %s\n", Clean(e.Message))
	src.excerpt(w, e.Span)
}

// TextFindings writes the findings that are reported (not suppressed) as
// CheckText does, without the deployment lines and the summary: what
// `kvlint check --quiet` prints.
func TextFindings(w io.Writer, res *analysis.Result) error {
	src := excerpts{res.Files}
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue
		}
		fmt.Fprintf(w, "%s: ", position(f.Span))
		Paint(w, severityColor(f.Severity), Clean(f.Severity))
		fmt.Fprintf(w, " %s: %s", Clean(f.Rule), Clean(f.Message))
		if name := serverName(res, f.Server); name != "" {
			fmt.Fprintf(w, " [%s]", Clean(name))
		}
		fmt.Fprintln(w)
		src.excerpt(w, f.Span)
		writeVia(w, f.Origin)
	}
	return nil
}
