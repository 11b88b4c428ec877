package dockerfile

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/limits"
)

// word is text after Dockerfile variable substitution and quote removal.
type word struct {
	text
	known  bool
	origin deploy.Origin
}

// vars are the build-time variables an instruction sees: ARGs and ENVs
// declared so far. A name that is absent is unknown: the base image or a
// --build-arg may set it.
type vars map[string]deploy.Value

// scope is where substitution looks a variable up; ok is false when the
// name is not set.
type scope interface {
	get(name string) (v deploy.Value, ok bool)
}

func (v vars) get(name string) (deploy.Value, bool) {
	x, ok := v[name]
	return x, ok
}

// splitWords splits ENV/ARG arguments at white space outside quotes; quotes
// and escapes stay in the words for substitute to remove (BuildKit
// parseWords, frontend/dockerfile/parser/line_parsers.go).
func splitWords(t text, escape byte) []text {
	var out []text
	start, in, quoted := 0, false, false
	var quote byte
	for i := 0; i < len(t.b); {
		r, n := utf8.DecodeRune(t.b[i:])
		c := t.b[i]
		switch {
		case quote == 0 && unicode.IsSpace(r):
			if in && (quoted || i > start) {
				out = append(out, t.slice(start, i))
			}
			in, quoted = false, false
		case !in:
			in, start = true, i
			continue // look at the same byte as part of the word
		case quote == 0 && c == escape:
			if i+1 < len(t.b) {
				n++
			}
		case quote == 0 && (c == '\'' || c == '"'):
			quote, quoted = c, true
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == escape && i+1 < len(t.b):
			n++
		}
		i += n
	}
	if in {
		out = append(out, t.slice(start, len(t.b)))
	}
	return out
}

// substitutor expands $VAR and ${VAR...} in a word and removes its quotes,
// following BuildKit's shell lexer (frontend/dockerfile/shell/lex.go,
// ProcessWord). Forms whose result kvlint does not compute (${V#p}, ${V%p},
// ${V/p/r}, ${V?msg}) leave the word unknown.
type substitutor struct {
	src    text
	i      int
	escape byte
	env    scope
	out    word
	// budget is what the file's substitutions may still copy (bytes of
	// values plus steps of their origins); over is set when a value did
	// not fit.
	budget *int
	over   bool
}

// expansionBudget bounds what one file's substitutions copy in all. Each
// ENV or ARG may repeat earlier ones (ENV A1=$A0$A0, ENV A2=$A1$A1, ...),
// so a file well under limits.MaxFileSize can ask for values, and origin
// chains, that double with every line.
const expansionBudget = limits.MaxFileSize

func substitute(t text, escape byte, env scope, budget *int) (word, error) {
	s := &substitutor{src: t, escape: escape, env: env, out: word{known: true}, budget: budget}
	if err := s.until(0); err != nil {
		return word{}, err
	}
	if s.over {
		return word{}, fmt.Errorf("variables expand to more than %d bytes in this file; not expanded", expansionBudget)
	}
	return s.out, nil
}

func (s *substitutor) peek() (byte, bool) {
	if s.i >= len(s.src.b) {
		return 0, false
	}
	return s.src.b[s.i], true
}

func (s *substitutor) emit(c byte, at int) {
	s.out.b = append(s.out.b, c)
	s.out.at = append(s.out.at, at)
}

// until processes up to the stop byte (0: the end), consuming it.
func (s *substitutor) until(stop byte) error {
	for {
		c, ok := s.peek()
		if !ok {
			if stop != 0 {
				return errors.New("unexpected end of statement while looking for matching " + string(stop))
			}
			return nil
		}
		if stop != 0 && c == stop {
			s.i++
			return nil
		}
		switch {
		case c == '$':
			if err := s.dollar(); err != nil {
				return err
			}
		case c == '\'':
			if err := s.single(); err != nil {
				return err
			}
		case c == '"':
			if err := s.double(); err != nil {
				return err
			}
		case c == s.escape:
			s.i++
			if n, ok := s.peek(); ok {
				s.emit(n, s.src.at[s.i])
				s.i++
			}
		default:
			s.emit(c, s.src.at[s.i])
			s.i++
		}
	}
}

func (s *substitutor) single() error {
	s.i++
	for {
		c, ok := s.peek()
		if !ok {
			return errors.New("unexpected end of statement while looking for matching single-quote")
		}
		s.i++
		if c == '\'' {
			return nil
		}
		s.emit(c, s.src.at[s.i-1])
	}
}

func (s *substitutor) double() error {
	s.i++
	for {
		c, ok := s.peek()
		if !ok {
			return errors.New("unexpected end of statement while looking for matching double-quote")
		}
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '$':
			if err := s.dollar(); err != nil {
				return err
			}
		case c == s.escape:
			s.i++
			n, ok := s.peek()
			if !ok {
				continue
			}
			if n == '"' || n == '$' || n == s.escape {
				s.emit(n, s.src.at[s.i])
				s.i++
				continue
			}
			s.emit(c, s.src.at[s.i-1])
		default:
			s.emit(c, s.src.at[s.i])
			s.i++
		}
	}
}

// dollar handles one $ expansion starting at s.i.
func (s *substitutor) dollar() error {
	start := s.i
	s.i++
	if c, ok := s.peek(); !ok || c != '{' {
		name := s.name()
		if name == "" {
			s.emit('$', s.src.at[start])
			return nil
		}
		s.lookup(name, start)
		return nil
	}
	s.i++
	c, ok := s.peek()
	switch {
	case !ok:
		return errors.New("syntax error: missing '}'")
	case c == '{' || c == '}' || c == ':':
		return errors.New("syntax error: bad substitution")
	}
	name := s.name()
	c, ok = s.peek()
	if !ok {
		return errors.New("syntax error: missing '}'")
	}
	s.i++
	if c == '}' {
		s.lookup(name, start)
		return nil
	}
	colon := false
	if c == ':' {
		colon = true
		if c, ok = s.peek(); !ok {
			return errors.New("syntax error: missing '}'")
		}
		s.i++
	}
	switch c {
	case '-', '+', '?', '#', '%':
		if colon && (c == '#' || c == '%') {
			return errors.New("unsupported modifier (:" + string(c) + ") in substitution")
		}
		// The word is expanded into a scratch buffer, then either used or
		// dropped.
		saved := s.out
		s.out = word{known: true}
		if err := s.until('}'); err != nil {
			return err
		}
		alt := s.out
		s.out = saved
		v, set := s.env.get(name)
		switch {
		case !set || !v.Known || c == '#' || c == '%' || c == '?':
			s.unknown(start)
		case c == '-' && v.Raw == "" && colon:
			s.append(alt)
		case c == '-':
			s.value(v, start)
		case c == '+' && (v.Raw != "" || !colon):
			s.append(alt)
		}
		return nil
	case '/':
		if err := s.until('/'); err != nil {
			return err
		}
		if err := s.until('}'); err != nil {
			return err
		}
		s.unknown(start)
		return nil
	}
	return errors.New("unsupported modifier (" + string(c) + ") in substitution")
}

// name reads a variable name: letters, digits and _, or digits, or one
// special parameter character.
func (s *substitutor) name() string {
	start := s.i
	c, ok := s.peek()
	if !ok {
		return ""
	}
	if '0' <= c && c <= '9' {
		for ok && '0' <= c && c <= '9' {
			s.i++
			c, ok = s.peek()
		}
		return string(s.src.b[start:s.i])
	}
	switch c {
	case '@', '*', '#', '?', '-', '$', '!':
		s.i++
		return string(c)
	}
	for s.i < len(s.src.b) {
		r, n := utf8.DecodeRune(s.src.b[s.i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			break
		}
		s.i += n
	}
	return string(s.src.b[start:s.i])
}

func (s *substitutor) lookup(name string, start int) {
	v, ok := s.env.get(name)
	if !ok || !v.Known {
		s.unknown(start)
		return
	}
	s.value(v, start)
}

// value appends a known variable's value, placed on the $ expansion.
func (s *substitutor) value(v deploy.Value, start int) {
	cost := len(v.Raw) + len(v.Origin)
	if s.over || cost > *s.budget {
		s.over = true
		s.unknown(start)
		return
	}
	*s.budget -= cost
	first, last := s.src.at[start], s.src.at[s.i-1]
	for j := 0; j < len(v.Raw); j++ {
		s.emit(v.Raw[j], min(first+j, last))
	}
	s.out.origin = append(s.out.origin, v.Origin...)
	if !v.Span.IsZero() {
		s.out.origin = append(s.out.origin, deploy.At(deploy.StepEnv, v.Span))
	}
}

// unknown appends the expansion as written and marks the word unknown.
func (s *substitutor) unknown(start int) {
	s.out.known = false
	for j := start; j < s.i; j++ {
		s.emit(s.src.b[j], s.src.at[j])
	}
}

func (s *substitutor) append(w word) {
	s.out.b = append(s.out.b, w.b...)
	s.out.at = append(s.out.at, w.at...)
	s.out.known = s.out.known && w.known
	s.out.origin = append(s.out.origin, w.origin...)
}
