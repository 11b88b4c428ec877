package capacity

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// argState says what kvlint knows about one flag of a server.
type argState int

const (
	argUnset   argState = iota // not given: the engine's default applies
	argSet                     // given with a value kvlint read
	argUnknown                 // given, but a placeholder or unreadable: its value is unknown
)

// argReader reads a server's canonical flags from the typed values the
// engine parsed (deploy.Value.Typed): capacity never parses flag text. A
// placeholder (Known == false) becomes argUnknown and an assumption saying
// so; so does a known value without the typed value asked for — one the
// engine rejected (its flag issue says why), or a number beyond int64.
type argReader struct {
	s   *deploy.Server
	est *Estimate
}

// value returns the first of names that is set, with its value.
func (r *argReader) value(names ...string) (string, deploy.Value, argState) {
	for _, name := range names {
		v, ok := r.s.Args[name]
		if !ok {
			continue
		}
		if !v.Known {
			r.est.assume("%s is %q, which kvlint cannot resolve statically: its value is unknown%s", name, v.Raw, at(v.Span))
			return name, v, argUnknown
		}
		return name, v, argSet
	}
	return "", deploy.Value{}, argUnset
}

// stringField reads a string field of a flag whose value is JSON
// (--kv-transfer-config's kv_connector, --speculative-config's method):
// st is the flag's state, and ok is false when the flag is set but holds
// no such string.
func (r *argReader) stringField(flag, key string) (field string, st argState, ok bool) {
	_, v, st := r.value(flag)
	if st != argSet {
		return "", st, false
	}
	if f, has := v.Typed.Field(key); has {
		field, ok = f.Str()
	}
	return field, st, ok
}

// written is a value as the user wrote it, for quoting in assumptions.
func written(v deploy.Value) string { return strings.TrimSpace(v.Raw) }

// int reads an int flag (argparse type=int: "8", "+8", "1_000").
func (r *argReader) int(names ...string) (int64, argState) {
	name, v, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	n, ok := v.Typed.Int()
	if !ok {
		r.est.assume("%s %q is not an integer (SGLang would refuse it): its value is unknown", name, written(v))
		return 0, argUnknown
	}
	return n, argSet
}

// humanInt reads a human-readable int flag (--context-length,
// --max-total-tokens, --max-prefill-tokens: 32k, 128Ki, 1M), which the
// engine typed as an int.
func (r *argReader) humanInt(names ...string) (int64, argState) {
	name, v, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	n, ok := v.Typed.Int()
	if !ok {
		r.est.assume("%s %q is not a valid size (%s): its value is unknown", name, written(v), r.whyUntyped(v))
		return 0, argUnknown
	}
	return n, argSet
}

// whyUntyped says why a known value has no typed value: the reason of the
// flag issue the engine reported about it, else the one case the engine
// accepts silently, a number beyond int64 (Python's ints are unbounded).
func (r *argReader) whyUntyped(v deploy.Value) string {
	for _, is := range r.s.FlagIssues {
		if is.Kind == deploy.FlagInvalidValue && is.Span == v.Span {
			// "argument --context-length: <the type function's error>"
			if _, reason, ok := strings.Cut(is.Message, ": "); ok {
				return reason
			}
			return is.Message
		}
	}
	return fmt.Sprintf("%q: out of the int64 range", written(v))
}

// float reads a float flag; an int flag reads as its number.
func (r *argReader) float(names ...string) (float64, argState) {
	name, v, st := r.value(names...)
	if st != argSet {
		return 0, st
	}
	f, ok := v.Typed.Float()
	if !ok {
		r.est.assume("%s %q is not a number: its value is unknown", name, written(v))
		return 0, argUnknown
	}
	return f, argSet
}

// bool reads a store_true or --x/--no-x flag: the engine types a given
// flag true (false for its --no- form); a placeholder leaves it unknown.
func (r *argReader) bool(names ...string) (bool, argState) {
	_, v, st := r.value(names...)
	if st != argSet {
		return false, st
	}
	b, ok := v.Typed.Bool()
	if !ok {
		return false, argUnknown
	}
	return b, argSet
}

// str reads a string or choice flag. A value the engine did not type as a
// string — a choice it rejected, JSON, Python's None — reads as the text
// written, which assumptions quote and which matches no name kvlint looks
// for.
func (r *argReader) str(names ...string) (string, argState) {
	_, v, st := r.value(names...)
	if st != argSet {
		return v.Raw, st // a placeholder as written, or "" when unset
	}
	if s, ok := v.Typed.Str(); ok {
		return s, argSet
	}
	return written(v), argSet
}

// ints reads an nargs='+' list of ints (--cuda-graph-bs-decode 1 2 4).
func (r *argReader) ints(names ...string) ([]int, argState) {
	name, v, st := r.value(names...)
	if st != argSet {
		return nil, st
	}
	items, ok := v.Typed.List()
	var out []int
	for _, it := range items {
		n, isInt := it.Int()
		if !isInt || n > 1<<20 || n < -1<<20 {
			ok = false
			break
		}
		out = append(out, int(n))
	}
	if !ok {
		r.est.assume("%s %q is not a list of integers: its value is unknown", name, written(v))
		return nil, argUnknown
	}
	if len(out) == 0 {
		return nil, argUnknown
	}
	return out, argSet
}

// at renders " (file:line:col)" for an assumption about a written value.
func at(sp deploy.Span) string {
	if sp.IsZero() {
		return ""
	}
	return " (" + sp.String() + ")"
}
