package compose

import (
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// vars are the variables compose interpolates from when it loads the file:
// the .env file beside it (the shell's environment, which also counts, is not
// something kvlint can see).
type vars map[string]deploy.Value

// interpolation is the result of interpolating one string.
type interpolation struct {
	text   yamlsrc.Text
	known  bool
	origin deploy.Origin
	// unresolved are the variables whose value is up to the shell that runs
	// compose; their references stay in text as ${NAME}.
	unresolved []string
	// bad is the offset in the input of an invalid ${...}, or -1.
	bad int
}

// interpolate applies compose's variable substitution to t, the way compose
// does at load time before anything else reads the value (compose-spec
// interpolation.md; compose-go template/template.go): $$ is a literal $,
// $NAME and ${NAME} substitute, ${NAME:-default} and ${NAME-default} fall
// back, ${NAME:?err}/${NAME?err} require, ${NAME:+alt}/${NAME+alt} replace,
// defaults may nest, and a $ before anything else stays as written. A variable
// the .env file does not set is treated as unset (the shell's environment is
// not visible): a bare reference to one is unknown, while a default written
// in the file applies.
func interpolate(t yamlsrc.Text, env vars) interpolation {
	r := interpolation{known: true, bad: -1}
	var b yamlsrc.Builder
	r.expand(&b, t, 0, len(t.S), env, 0)
	r.text = b.Text()
	return r
}

const maxNesting = 16

// expand interpolates t.S[i:j] into b.
func (r *interpolation) expand(b *yamlsrc.Builder, t yamlsrc.Text, i, j int, env vars, depth int) {
	s := t.S
	last := i
	for k := i; k < j; k++ {
		if s[k] != '$' || k+1 >= j {
			continue
		}
		switch c := s[k+1]; {
		case c == '$':
			b.Copy(t, last, k+1)
			last = k + 2
			k++
		case isNameStart(c):
			end := k + 2
			for end < j && isNameChar(s[end]) {
				end++
			}
			b.Copy(t, last, k)
			r.substitute(b, t, k, end, s[k+1:end], env)
			last = end
			k = end - 1
		case c == '{':
			close := matchBrace(s, k+2, j)
			if close < 0 || depth > maxNesting {
				r.invalid(k)
				continue
			}
			b.Copy(t, last, k)
			if !r.braced(b, t, k, k+2, close, env, depth) {
				r.invalid(k)
				b.Copy(t, k, close+1)
			}
			last = close + 1
			k = close
		}
	}
	b.Copy(t, last, j)
}

func (r *interpolation) invalid(at int) {
	r.known = false
	if r.bad < 0 {
		r.bad = at
	}
}

// braced handles ${...} whose content is t.S[open:close]; ref is where the
// reference starts (its $). It reports false for content compose rejects.
func (r *interpolation) braced(b *yamlsrc.Builder, t yamlsrc.Text, ref, open, close int, env vars, depth int) bool {
	s := t.S
	n := open
	if n >= close || !isNameStart(s[n]) {
		return false
	}
	for n < close && isNameChar(s[n]) {
		n++
	}
	name := s[open:n]
	if n == close {
		r.substitute(b, t, ref, close+1, name, env)
		return true
	}
	colon := s[n] == ':'
	op := n
	if colon {
		op++
	}
	if op >= close || !strings.ContainsRune("-?+", rune(s[op])) {
		return false
	}
	arg := op + 1 // the default, message or replacement: t.S[arg:close]
	v, set := env[name]
	nonEmpty := set && (v.Raw != "" || !v.Known)
	present := set
	if colon {
		present = nonEmpty
	}
	switch s[op] {
	case '-':
		if present {
			r.use(b, t, ref, close+1, v)
		} else {
			r.expand(b, t, arg, close, env, depth+1)
		}
	case '+':
		if present {
			r.expand(b, t, arg, close, env, depth+1)
		}
	case '?':
		if present {
			r.use(b, t, ref, close+1, v)
		} else {
			r.unset(b, t, ref, close+1, name)
		}
	}
	return true
}

// substitute puts the value of name for the reference t.S[from:to].
func (r *interpolation) substitute(b *yamlsrc.Builder, t yamlsrc.Text, from, to int, name string, env vars) {
	if v, ok := env[name]; ok {
		r.use(b, t, from, to, v)
		return
	}
	r.unset(b, t, from, to, name)
}

func (r *interpolation) use(b *yamlsrc.Builder, t yamlsrc.Text, from, to int, v deploy.Value) {
	a, e := t.Range(from, to)
	if !v.Known {
		r.known = false
	}
	var def deploy.Origin
	if !v.Span.IsZero() {
		def = append(def, deploy.At(deploy.StepEnv, v.Span))
	}
	def = append(def, v.Origin...)
	b.Substitute(v.Raw, a, e, def)
	r.origin = append(r.origin, def...)
}

func (r *interpolation) unset(b *yamlsrc.Builder, t yamlsrc.Text, from, to int, name string) {
	a, e := t.Range(from, to)
	r.known = false
	r.unresolved = append(r.unresolved, name)
	b.Substitute("${"+name+"}", a, e, nil)
}

// matchBrace finds the } closing a ${ whose content starts at i, allowing
// nested ${...} in defaults.
func matchBrace(s string, i, j int) int {
	depth := 0
	for k := i; k < j; k++ {
		switch {
		case s[k] == '$' && k+1 < j && s[k+1] == '{':
			depth++
			k++
		case s[k] == '}':
			if depth == 0 {
				return k
			}
			depth--
		}
	}
	return -1
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }
