package capacity

import "fmt"

// assume records an input kvlint assumed rather than read.
func (e *Estimate) assume(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, a := range e.Assumptions {
		if a == msg {
			return
		}
	}
	e.Assumptions = append(e.Assumptions, msg)
}

// notSized records why the pool is not sized when nothing the user could
// declare would size it (kvlint does not model what the server does): an
// assumption, and the first such reason in NotSized, which KV105 reports
// so that the server is not passed in silence.
func (e *Estimate) notSized(format string, args ...any) {
	e.assume(format, args...)
	if e.NotSized == "" {
		e.NotSized = fmt.Sprintf(format, args...)
	}
}

// derive records one step of the computation.
func (e *Estimate) derive(format string, args ...any) {
	e.Derivation = append(e.Derivation, fmt.Sprintf(format, args...))
}

// need records something the user could declare to make the estimate known.
func (e *Estimate) need(what string) {
	for _, m := range e.Missing {
		if m == what {
			return
		}
	}
	e.Missing = append(e.Missing, what)
}

func ptr[T any](v T) *T { return &v }

// Thousands formats an integer with thousands separators, as people read pool sizes.
func Thousands(n int64) string {
	s := fmt.Sprintf("%d", n)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
