package engine

import (
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// exactText reports whether a word's span covers exactly the bytes of its
// Raw text on one line, so that byte offsets into Raw are offsets into the
// source. A quoted or escaped word is wider than its text.
func exactText(v deploy.Value) bool {
	s := v.Span
	return !s.IsZero() && (s.EndLine == 0 || s.EndLine == s.Line) && s.EndCol-s.Col == len(v.Raw)
}

// subSpan is the span of v.Raw[start:end], or the whole word's span when the
// word's text does not map byte for byte onto its source.
func subSpan(v deploy.Value, start, end int) deploy.Span {
	if !exactText(v) || start < 0 || end > len(v.Raw) || start > end {
		return v.Span
	}
	s := v.Span
	s.Col += start
	s.EndCol = s.Col + (end - start)
	s.EndLine = s.Line
	return s
}

// part returns the value of v.Raw[start:end] with its own span.
func part(v deploy.Value, start, end int) deploy.Value {
	return deploy.Value{Raw: v.Raw[start:end], Known: v.Known, Span: subSpan(v, start, end), Origin: v.Origin}
}

// joinSpans spans from the start of a to the end of b when both are in the
// same file and b does not start before a; otherwise it is a.
func joinSpans(a, b deploy.Span) deploy.Span {
	if a.File != b.File || b.Line < a.Line || (b.Line == a.Line && b.Col < a.Col) {
		return a
	}
	out := a
	out.EndLine, out.EndCol = b.EndLine, b.EndCol
	if out.EndLine == 0 {
		out.EndLine = b.Line
	}
	return out
}

// hasPlaceholder reports whether text contains the marks of an unresolved
// expansion: shell $VAR/${VAR}/$(cmd)/`cmd`, Helm/Go templates {{ }},
// Terraform ${ }, Kubernetes $(VAR).
func hasPlaceholder(text string) bool {
	return strings.ContainsAny(text, "$`") || strings.Contains(text, "{{") || strings.Contains(text, "}}")
}
