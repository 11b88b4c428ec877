package capacity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// argState says what kvlint knows about one flag of a server.
type argState int

const (
	argUnset   argState = iota // not given: the engine's default applies
	argSet                     // given with a value kvlint read
	argUnknown                 // given, but a placeholder or unreadable: its value is unknown
)

// argReader reads a server's canonical flags. A placeholder
// (deploy.Value.Known == false) is never parsed: it becomes argUnknown and an
// assumption saying so.
type argReader struct {
	s   *deploy.Server
	est *Estimate
}

// value returns the raw text of the first of names that is set.
func (r *argReader) value(names ...string) (string, string, argState) {
	for _, name := range names {
		v, ok := r.s.Args[name]
		if !ok {
			continue
		}
		if !v.Known {
			r.est.assume("%s is %q, which kvlint cannot resolve statically: its value is unknown%s", name, v.Raw, at(v.Span))
			return name, v.Raw, argUnknown
		}
		return name, strings.TrimSpace(v.Raw), argSet
	}
	return "", "", argUnset
}

// int reads an argparse type=int flag (Python int(): sign, "1_000", spaces).
func (r *argReader) int(names ...string) (int64, argState) {
	name, raw, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	n, err := pyInt(raw)
	if err != nil {
		r.est.assume("%s %q is not an integer (SGLang would refuse it): its value is unknown", name, raw)
		return 0, argUnknown
	}
	return n, argSet
}

// humanInt reads a human_readable_int flag (--context-length,
// --max-total-tokens, --max-prefill-tokens): 32k, 128Ki, 1M.
func (r *argReader) humanInt(names ...string) (int64, argState) {
	name, raw, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	n, err := engine.HumanReadableInt(raw)
	if err != nil {
		r.est.assume("%s %q is not a valid size (%v): its value is unknown", name, raw, err)
		return 0, argUnknown
	}
	return n, argSet
}

func (r *argReader) float(names ...string) (float64, argState) {
	name, raw, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(raw, "_", ""), 64)
	if err != nil {
		r.est.assume("%s %q is not a number: its value is unknown", name, raw)
		return 0, argUnknown
	}
	return f, argSet
}

// bool reads a store_true flag: present means true (the flags parser records
// "true"); a placeholder leaves it unknown.
func (r *argReader) bool(names ...string) (bool, argState) {
	_, raw, st := r.value(names...)
	if st != argSet {
		return false, st
	}
	switch strings.ToLower(raw) {
	case "false", "0", "no":
		return false, argSet
	}
	return true, argSet
}

func (r *argReader) str(names ...string) (string, argState) {
	_, raw, st := r.value(names...)
	return raw, st
}

// ints reads an nargs='+' list of ints (--cuda-graph-bs-decode 1 2 4).
func (r *argReader) ints(names ...string) ([]int, argState) {
	name, raw, st := r.value(names...)
	if st != argSet {
		return nil, st
	}
	var out []int
	for _, f := range strings.FieldsFunc(raw, func(c rune) bool { return c == ' ' || c == ',' || c == '\t' }) {
		n, err := pyInt(f)
		if err != nil || n > 1<<20 || n < -1<<20 {
			r.est.assume("%s %q is not a list of integers: its value is unknown", name, raw)
			return nil, argUnknown
		}
		out = append(out, int(n))
	}
	if len(out) == 0 {
		return nil, argUnknown
	}
	return out, argSet
}

// pyInt parses like Python's int(str): surrounding whitespace, a sign, and
// single underscores between digits.
func pyInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	body := strings.TrimLeft(s, "+-")
	if body == "" || strings.HasPrefix(body, "_") || strings.HasSuffix(body, "_") || strings.Contains(body, "__") || len(s)-len(body) > 1 {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}

// at renders " (file:line:col)" for an assumption about a written value.
func at(sp deploy.Span) string {
	if sp.IsZero() {
		return ""
	}
	return " (" + sp.String() + ")"
}
