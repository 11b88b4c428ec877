package shell

import (
	"maps"
	"slices"

	"github.com/kvlint/kvlint/deploy"
)

// variable is what the walk knows about one shell variable at one point of
// the script.
type variable struct {
	val deploy.Value // Known=false: set to something kvlint cannot see
	// defined says what val.Span is to a word that uses the variable: an
	// assignment in the script, or the environment the script starts in
	// (a pod's env, a Dockerfile ENV, a compose environment entry).
	defined deploy.StepKind
	// src is where each byte of val.Raw was written in the text of root
	// (a walker); nil when not known byte by byte.
	src  []int
	root *walker
	// isArray marks an indexed array: arr are its elements (val is
	// element 0, what $A expands to), set by the assignment at arrSpan.
	isArray  bool
	arr      []deploy.Value
	arrSpan  deploy.Span
	unset    bool // known to be unset (unset A)
	exported bool
	readonly bool
}

// same reports whether two states of a variable give the same expansion.
func (v variable) same(o variable) bool {
	if v.unset || o.unset {
		return v.unset == o.unset
	}
	if v.isArray || o.isArray {
		return v.isArray && o.isArray && slices.EqualFunc(v.arr, o.arr, func(a, b deploy.Value) bool {
			return a.Known && b.Known && a.Raw == b.Raw
		})
	}
	return v.val.Known && o.val.Known && v.val.Raw == o.val.Raw
}

// vars is the variable state at one point of the walk. A name missing from m
// is not known: the environment the script starts in may set it.
type vars struct {
	m         map[string]variable
	allexport bool // set -a
	// params are the positional parameters ($0 first) when paramsKnown.
	params      []deploy.Value
	paramsKnown bool
}

func newVars(env Env) *vars {
	st := &vars{m: make(map[string]variable, len(env))}
	for name, v := range env {
		st.m[name] = variable{val: v, defined: deploy.StepEnv, exported: true}
	}
	return st
}

func (st *vars) clone() *vars {
	return &vars{m: maps.Clone(st.m), allexport: st.allexport, params: st.params, paramsKnown: st.paramsKnown}
}

// setParams makes the positional parameters known, unless one of them is an
// unknown word (which may stand for any number of words). $0 may be
// unknown: it is one word whatever its value.
func (st *vars) setParams(params []deploy.Value) {
	st.params, st.paramsKnown = nil, false
	if len(params) == 0 {
		return
	}
	for _, p := range params[1:] {
		if !p.Known {
			return
		}
	}
	st.params, st.paramsKnown = slices.Clone(params), true
}

// positional returns $n as a variable.
func (st *vars) positional(n int) (variable, bool) {
	if !st.paramsKnown {
		return variable{}, false
	}
	if n >= len(st.params) {
		return variable{unset: true}, true
	}
	if !st.params[n].Known {
		return variable{val: st.params[n], defined: deploy.StepWritten}, false
	}
	return variable{val: st.params[n], defined: deploy.StepWritten}, true
}

func sameParams(a, b *vars) bool {
	if !a.paramsKnown || !b.paramsKnown || len(a.params) != len(b.params) {
		return false
	}
	for i := range a.params {
		if a.params[i].Raw != b.params[i].Raw {
			return false
		}
	}
	return true
}

// lookup returns the variable and whether its state is known at all.
func (st *vars) lookup(name string) (variable, bool) {
	v, ok := st.m[name]
	if !ok || (!v.unset && !v.val.Known) {
		return v, false
	}
	return v, true
}

// set assigns a value, keeping the export attribute the variable had, as bash
// does. Assigning to a readonly variable fails in bash and leaves it as it was.
func (st *vars) set(name string, val deploy.Value) {
	old, had := st.m[name]
	if had && old.readonly {
		return
	}
	nv := variable{val: val, defined: deploy.StepAssignment, exported: old.exported || st.allexport, readonly: old.readonly}
	if had && old.isArray && !old.unset && len(old.arr) > 0 {
		// A=v on an array sets element 0 and keeps the others.
		nv.isArray, nv.arrSpan = true, old.arrSpan
		nv.arr = append([]deploy.Value{val}, old.arr[1:]...)
	}
	st.m[name] = nv
}

// setArray assigns an indexed array.
func (st *vars) setArray(name string, elems []deploy.Value, span deploy.Span) {
	val := deploy.Value{Known: true, Span: span}
	if len(elems) > 0 {
		val = elems[0]
	}
	st.set(name, val)
	if v := st.m[name]; !v.readonly {
		v.isArray, v.arr, v.arrSpan = true, elems, span
		st.m[name] = v
	}
}

// setSrc records where each byte of a variable's value was written.
func (st *vars) setSrc(name string, src []int, root *walker) {
	v, ok := st.m[name]
	if !ok || v.readonly || len(src) != len(v.val.Raw) {
		return
	}
	v.src, v.root = src, root
	st.m[name] = v
}

// forget makes variables unknown: they were set by something kvlint does not
// evaluate (read, a loop, arithmetic, a function call).
func (st *vars) forget(names map[string]bool) {
	for name := range names {
		old := st.m[name]
		if old.readonly && (old.unset || old.val.Known) {
			continue
		}
		st.m[name] = variable{exported: old.exported || st.allexport, readonly: old.readonly}
	}
}

// forgetAll makes every variable unknown (after source, . or eval).
func (st *vars) forgetAll() {
	st.paramsKnown, st.params = false, nil
	for name, old := range st.m {
		st.m[name] = variable{exported: old.exported, readonly: old.readonly}
	}
}

// merge joins the states that the branches of a conditional may leave:
// a variable stays known only when every branch agrees on it.
func merge(outcomes ...*vars) *vars {
	out := &vars{m: map[string]variable{}, params: outcomes[0].params, paramsKnown: true}
	for _, o := range outcomes {
		if !sameParams(outcomes[0], o) {
			out.params, out.paramsKnown = nil, false
		}
	}
	names := map[string]bool{}
	for _, o := range outcomes {
		out.allexport = out.allexport || o.allexport
		for name := range o.m {
			names[name] = true
		}
	}
	for name := range names {
		first, ok := outcomes[0].m[name]
		agree := ok
		exported, readonly := false, true
		for _, o := range outcomes {
			v, ok := o.m[name]
			exported = exported || v.exported
			readonly = readonly && v.readonly
			if !ok || !v.same(first) {
				agree = false
			}
		}
		if agree {
			first.exported = exported
			out.m[name] = first
			continue
		}
		out.m[name] = variable{exported: exported, readonly: readonly}
	}
	return out
}

// exportedEnv is the environment a child process (sh -c) starts with.
// Variables that are not exported are left out: inside the child they are
// whatever the original environment held, which is unknown.
func (st *vars) exportedEnv() Env {
	env := Env{}
	for name, v := range st.m {
		// bash does not export arrays.
		if v.exported && !v.unset && !v.isArray {
			env[name] = v.val
		}
	}
	return env
}
