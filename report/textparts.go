package report

import (
	"io"

	"github.com/kvlint/kvlint/analysis"
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

// TextFindings writes the findings that are reported (not suppressed) as
// CheckText does (one finding renderer), in the order the rules made them,
// without the summary, the groups and the folds: every finding is listed,
// what `kvlint check --quiet` prints.
func TextFindings(w io.Writer, res *analysis.Result) error {
	src := excerpts{res.Files}
	for i := range res.Findings {
		if f := &res.Findings[i]; f.Suppression == nil {
			writeFinding(w, src, res, f)
		}
	}
	return nil
}
