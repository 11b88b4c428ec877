package yamlsrc

import (
	"slices"

	"github.com/kvlint/kvlint/deploy"
)

// Substitution records that the source bytes [From, To) (a $(VAR) or
// ${VAR} reference) were replaced by a value whose origin is Origin (its
// definition, then the definitions that one used).
type Substitution struct {
	From, To int
	Origin   deploy.Origin
}

// Substitute appends the value s of a reference written at source bytes
// [from, to) and records the substitution. The first byte of s maps to the
// reference's start and the last to its last byte, so a word made of the
// value spans the reference.
func (b *Builder) Substitute(s string, from, to int, origin deploy.Origin) {
	for k := range len(s) {
		f := from
		if k == len(s)-1 && to > from {
			f = to - 1
		}
		b.b.WriteByte(s[k])
		b.from = append(b.from, f)
		b.to = append(b.to, to)
	}
	b.subs = append(b.subs, Substitution{From: from, To: to, Origin: origin})
}

// Substitutions are the substitutions recorded while building the text.
func (t Text) Substitutions() []Substitution { return t.subs }

// offset converts a span position (1-based line, byte column) to an offset.
func (s *Source) spanOffset(line, col int) int {
	off := s.LineStart(line) + col - 1
	return min(max(off, 0), len(s.Data))
}

// Widen makes a span that starts or ends inside a substituted reference
// cover the whole reference, and returns the definitions of the values
// substituted into it (for Value.Origin).
func (s *Source) Widen(sp deploy.Span, subs []Substitution) (deploy.Span, deploy.Origin) {
	if sp.IsZero() || sp.File != s.File || len(subs) == 0 {
		return sp, nil
	}
	start := s.spanOffset(sp.Line, sp.Col)
	end := s.spanOffset(sp.EndLine, sp.EndCol)
	var origin deploy.Origin
	for _, sub := range subs {
		if sub.From < end && start < sub.To || (start == end && start == sub.From) {
			start = min(start, sub.From)
			end = max(end, sub.To)
			origin = append(origin, sub.Origin...)
		}
	}
	return s.Span(start, end), origin
}

// WidenValue applies Widen to a value's span and adds the substituted
// definitions to its Origin.
func (s *Source) WidenValue(v *deploy.Value, subs []Substitution) {
	var origin deploy.Origin
	v.Span, origin = s.Widen(v.Span, subs)
	for _, st := range origin {
		if !slices.ContainsFunc(v.Origin, func(x deploy.Step) bool { return x.Span == st.Span && x.Text == st.Text }) {
			v.Origin = append(v.Origin, st)
		}
	}
}

// WidenServer applies WidenValue to every value of a server found in a text
// with substitutions, and Widen to its span and flag issues.
func (s *Source) WidenServer(srv *deploy.Server, subs []Substitution) {
	if len(subs) == 0 {
		return
	}
	srv.Span, _ = s.Widen(srv.Span, subs)
	for _, v := range srv.Values() {
		s.WidenValue(v, subs)
	}
	for i := range srv.FlagIssues {
		srv.FlagIssues[i].Span, _ = s.Widen(srv.FlagIssues[i].Span, subs)
		for j := range srv.FlagIssues[i].Words {
			s.WidenValue(&srv.FlagIssues[i].Words[j], subs)
		}
	}
}
