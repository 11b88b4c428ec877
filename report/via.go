package report

import (
	"fmt"
	"io"

	"github.com/kvlint/kvlint/deploy"
)

// jsonLocation is one step of a finding's provenance chain.
type jsonLocation struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// viaJSON lists the chain that produced a finding's value (the template
// lines after the values line the finding points at), or nil.
func viaJSON(via []deploy.Span) []jsonLocation {
	var out []jsonLocation
	for _, s := range via {
		out = append(out, jsonLocation{File: s.File, Line: s.Line, Column: s.Col})
	}
	return out
}

// writeVia prints the chain under a finding, one "via" line per step, so the
// template line that used a values line is one jump away.
func writeVia(w io.Writer, via []deploy.Span) {
	for _, s := range via {
		fmt.Fprintf(w, "    via %s\n", position(s))
	}
}
