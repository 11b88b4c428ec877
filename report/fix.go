package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/diag"
)

// writeFixes prints one "fix:" line per computed fix of a finding, least
// disruptive first: the flag and value, then what the deployment looks like
// after it ("→ pool 131,072 tokens, needs 16.0 GiB of 59.2 GiB free"), and
// for a fix kvlint will not write, why. A what-if is said as one: what a
// fact kvlint does not know would give.
func writeFixes(w io.Writer, fixes []diag.Fix) {
	for _, f := range fixes {
		line := "    fix: " + Clean(f.Description)
		if f.WhatIf {
			line = "    what-if: " + Clean(f.Description)
		}
		if r := FixResult(f.Result); r != "" {
			line += " → " + r
		}
		if f.Unwritable != "" && !f.WhatIf {
			line += " (not applied by kvlint fix: " + Clean(f.Unwritable) + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// FixResult words a fix's resulting numbers: the pool in tokens, then the
// memory it needs of the memory free for it.
func FixResult(q []diag.Quantity) string {
	var parts []string
	for i := 0; i < len(q); i++ {
		x := q[i]
		switch {
		case x.Name == "needs" && x.Unit == "bytes" && i+1 < len(q) && q[i+1].Name == "free":
			parts = append(parts, fmt.Sprintf("needs %s of %s free", gibString(x.Value), gibString(q[i+1].Value)))
			i++
		case x.Unit == "bytes":
			parts = append(parts, fmt.Sprintf("%s %s", Clean(x.Name), gibString(x.Value)))
		case x.Unit == "tokens" || x.Unit == "requests":
			parts = append(parts, fmt.Sprintf("%s %s %s", Clean(x.Name), capacity.Thousands(int64(x.Value)), x.Unit))
		default:
			parts = append(parts, fmt.Sprintf("%s %g %s", Clean(x.Name), x.Value, Clean(x.Unit)))
		}
	}
	return strings.Join(parts, ", ")
}

func gibString(b float64) string { return fmt.Sprintf("%.1f GiB", b/(1<<30)) }

// jsonFix is a fix as JSON reports it.
type jsonFix struct {
	Description  string            `json:"description"`
	Replacements []jsonReplacement `json:"replacements"`
	Result       []jsonQuantity    `json:"result"`
	// Unwritable is null when every replacement is a literal edit.
	Unwritable *string `json:"unwritable"`
	// WhatIf marks a fix that holds only if a fact kvlint cannot know is
	// true: the numbers it would give, never applied.
	WhatIf bool `json:"what_if"`
}

type jsonReplacement struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	NewText   string `json:"new_text"`
}

type jsonQuantity struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

func fixesJSON(fixes []diag.Fix) []jsonFix {
	if len(fixes) == 0 {
		return nil
	}
	out := make([]jsonFix, 0, len(fixes))
	for _, f := range fixes {
		jf := jsonFix{Description: f.Description, Replacements: []jsonReplacement{}, Result: []jsonQuantity{}, WhatIf: f.WhatIf}
		for _, r := range f.Replacements {
			jf.Replacements = append(jf.Replacements, jsonReplacement{
				File: r.Span.File, Line: r.Span.Line, Column: r.Span.Col,
				EndLine: r.Span.EndLine, EndColumn: r.Span.EndCol, NewText: r.NewText,
			})
		}
		for _, q := range f.Result {
			jf.Result = append(jf.Result, jsonQuantity(q))
		}
		if f.Unwritable != "" {
			u := f.Unwritable
			jf.Unwritable = &u
		}
		out = append(out, jf)
	}
	return out
}
