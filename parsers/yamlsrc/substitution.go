package yamlsrc

import "github.com/kvlint/kvlint/deploy"

// Substitution records that the source bytes [From, To) (a $(VAR) or
// ${VAR} reference) were replaced by a value defined at Via.
type Substitution struct {
	From, To int
	Via      []deploy.Span
}

// Substitute appends the value s of a reference written at source bytes
// [from, to) and records the substitution. The first byte of s maps to the
// reference's start and the last to its last byte, so a word made of the
// value spans the reference.
func (b *Builder) Substitute(s string, from, to int, via []deploy.Span) {
	for k := range len(s) {
		f := from
		if k == len(s)-1 && to > from {
			f = to - 1
		}
		b.b.WriteByte(s[k])
		b.from = append(b.from, f)
		b.to = append(b.to, to)
	}
	b.subs = append(b.subs, Substitution{From: from, To: to, Via: via})
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
// substituted into it (for Value.Via).
func (s *Source) Widen(sp deploy.Span, subs []Substitution) (deploy.Span, []deploy.Span) {
	if sp.IsZero() || sp.File != s.File || len(subs) == 0 {
		return sp, nil
	}
	start := s.spanOffset(sp.Line, sp.Col)
	end := s.spanOffset(sp.EndLine, sp.EndCol)
	var via []deploy.Span
	for _, sub := range subs {
		if sub.From < end && start < sub.To || (start == end && start == sub.From) {
			start = min(start, sub.From)
			end = max(end, sub.To)
			via = append(via, sub.Via...)
		}
	}
	return s.Span(start, end), via
}

// WidenValue applies Widen to a value's span and adds the substituted
// definitions to its Via.
func (s *Source) WidenValue(v *deploy.Value, subs []Substitution) {
	var via []deploy.Span
	v.Span, via = s.Widen(v.Span, subs)
	for _, sp := range via {
		if !containsSpan(v.Via, sp) {
			v.Via = append(v.Via, sp)
		}
	}
}

func containsSpan(list []deploy.Span, sp deploy.Span) bool {
	for _, x := range list {
		if x == sp {
			return true
		}
	}
	return false
}

// WidenServer applies WidenValue to every value of a server found in a text
// with substitutions, and Widen to its span and flag issues.
func (s *Source) WidenServer(srv *deploy.Server, subs []Substitution) {
	if len(subs) == 0 {
		return
	}
	srv.Span, _ = s.Widen(srv.Span, subs)
	for k, v := range srv.Args {
		s.WidenValue(&v, subs)
		srv.Args[k] = v
	}
	for _, list := range [][]deploy.Value{srv.Positionals, srv.Opaque} {
		for i := range list {
			s.WidenValue(&list[i], subs)
		}
	}
	s.WidenValue(&srv.Model, subs)
	for i := range srv.FlagIssues {
		srv.FlagIssues[i].Span, _ = s.Widen(srv.FlagIssues[i].Span, subs)
	}
}
