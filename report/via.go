package report

import (
	"fmt"
	"io"

	"github.com/kvlint/kvlint/deploy"
)

// jsonStep is one step of a finding's provenance chain: a place in a file,
// or, for a step that is no place in a file (a command-line --set), its
// kind and the text the user gave.
type jsonStep struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Text   string `json:"text,omitempty"`
}

// viaJSON lists the chain that produced a finding's value (the template
// lines after the values line the finding points at), or nil.
func viaJSON(origin deploy.Origin) []jsonStep {
	var out []jsonStep
	for _, st := range origin {
		if st.InFile() {
			out = append(out, jsonStep{File: st.Span.File, Line: st.Span.Line, Column: st.Span.Col})
		} else {
			out = append(out, jsonStep{Kind: string(st.Kind), Text: st.Text})
		}
	}
	return out
}

// writeVia prints the chain under a finding, one "via" line per step, so the
// template line that used a values line is one jump away.
func writeVia(w io.Writer, origin deploy.Origin) {
	for _, st := range origin {
		if st.InFile() {
			fmt.Fprintf(w, "    via %s\n", position(st.Span))
		} else {
			fmt.Fprintf(w, "    via %s\n", st.Text)
		}
	}
}
