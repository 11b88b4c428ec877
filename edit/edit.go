// Package edit applies fixes to files' text: the replacements of a
// diag.Fix as byte edits, refused when two overlap or when a span does not
// hold what the finding says it holds, shown as a unified diff, and
// written in place without following a symbolic link.
package edit

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// Edit replaces the bytes [Start, End) of one file's text with Text; Start
// == End inserts.
type Edit struct {
	Start, End int
	Text       string
}

// Overlaps reports whether a and b touch the same bytes: two replacements
// of overlapping ranges, or an insertion strictly inside the other's
// range. Two insertions at one offset overlap too, since their order
// would be a guess; identical edits are not overlapping but the same.
func Overlaps(a, b Edit) bool {
	if a == b {
		return false
	}
	if a.Start == a.End && b.Start == b.End {
		return a.Start == b.Start
	}
	if a.Start == a.End {
		return a.Start > b.Start && a.Start < b.End
	}
	if b.Start == b.End {
		return b.Start > a.Start && b.Start < a.End
	}
	return a.Start < b.End && b.Start < a.End
}

// Breaks is the line-break rule kvlint's spans use in a file of this
// syntax: YAML's in YAML, "\n" elsewhere (source.Breaks).
func Breaks(syntax source.Syntax) source.Breaks {
	if syntax == source.SyntaxYAML {
		return source.YAML
	}
	return source.LF
}

// Offsets converts a span of f into byte offsets, checking that it lies
// inside the text: a span from another version of the file is refused
// rather than clamped onto the wrong bytes.
func Offsets(f *source.File, span deploy.Span) (start, end int, err error) {
	x := f.Index(Breaks(f.Syntax))
	if span.Line < 1 || span.EndLine < span.Line || span.EndLine > x.Lines() || span.Col < 1 || span.EndCol < 1 {
		return 0, 0, fmt.Errorf("%s is not a place in %s", span, f.Name)
	}
	if span.Col-1 > x.End(span.Line)-x.Start(span.Line) || span.EndCol-1 > x.Start(span.EndLine+1)-x.Start(span.EndLine) {
		return 0, 0, fmt.Errorf("%s lies past the end of its line", span)
	}
	start = x.Start(span.Line) + span.Col - 1
	end = x.Start(span.EndLine) + span.EndCol - 1
	if end < start {
		return 0, 0, fmt.Errorf("%s ends before it starts", span)
	}
	return start, end, nil
}

// Apply returns data with edits applied. Edits are applied by offset in the
// original text, whatever order they are given in; overlapping edits are
// an error (the caller refuses one of them before it gets here).
func Apply(data []byte, edits []Edit) ([]byte, error) {
	es := sorted(edits)
	var out bytes.Buffer
	at := 0
	for i, e := range es {
		if e.Start < 0 || e.End > len(data) || e.Start > e.End {
			return nil, fmt.Errorf("edit [%d,%d) is outside the text (%d bytes)", e.Start, e.End, len(data))
		}
		if i > 0 && Overlaps(es[i-1], e) {
			return nil, fmt.Errorf("edits [%d,%d) and [%d,%d) overlap", es[i-1].Start, es[i-1].End, e.Start, e.End)
		}
		if i > 0 && es[i-1] == e {
			continue
		}
		out.Write(data[at:e.Start])
		out.WriteString(e.Text)
		at = e.End
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}

// sorted orders edits by position, insertions before a replacement that
// starts where they do.
func sorted(edits []Edit) []Edit {
	es := slices.Clone(edits)
	slices.SortStableFunc(es, func(a, b Edit) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	return es
}

// Literal is the text to write over old, the bytes a span holds, so that
// a value written quoted stays quoted the same way: a span that covers a
// whole single- or double-quoted scalar or shell word gets text inside
// the same quotes. Text a quote would have to escape is refused: the
// escaping rules of YAML, JSON and the shell differ, and a fix never
// needs them (it writes flag names and plain values).
func Literal(old []byte, text string) (string, error) {
	if len(old) < 2 || text == "" {
		return text, nil // a deletion takes the quotes with it
	}
	q := old[0]
	if (q != '"' && q != '\'') || old[len(old)-1] != q || bytes.IndexByte(old[1:len(old)-1], q) >= 0 {
		return text, nil // not one quoted scalar
	}
	if len(text) >= 2 && text[0] == q && text[len(text)-1] == q {
		return text, nil // already quoted the same way
	}
	for _, c := range []byte(text) {
		switch c {
		case '"', '\'', '\\', '$', '`', '\n', '\r':
			return "", fmt.Errorf("%q would need escaping inside %c…%c", text, q, q)
		}
	}
	return string(q) + text + string(q), nil
}
