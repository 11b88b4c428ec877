package shell

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"mvdan.cc/sh/v3/syntax"
)

// Indexed arrays (bash manual, 6.7 Arrays): A=(a b c), A+=(d), A[i]=v,
// "${A[@]}" (each element one word), ${A[*]}, ${A[i]}, ${#A[@]}, and $A
// for element 0. kvlint keeps an array known only while it is dense
// (indices 0..n-1): a sparse array's "${A[@]}" skips the holes, which is
// easy to get wrong, so one is unknown. Associative arrays (declare -A)
// are not modelled.

// assignArray performs A=(...), A+=(...) and A[i]=v; a result it cannot
// know makes A unknown.
func (w *walker) assignArray(a *syntax.Assign, st *vars) {
	name := a.Name.Value
	fail := func() { st.forget(map[string]bool{name: true}) }
	if w.readonly(st, name) {
		return // bash refuses the assignment
	}
	var elems []deploy.Value
	if a.Append || a.Index != nil {
		old, ok := st.lookup(name)
		switch {
		case !ok:
			fail()
			return
		case old.unset:
		case old.isArray:
			elems = slices.Clone(old.arr)
		default:
			// A scalar becomes element 0 of the array.
			elems = []deploy.Value{old.val}
		}
	}
	if a.Index != nil {
		x := w.newExpander(st, false)
		i, ok := x.arith(a.Index)
		if !ok || i < 0 || int(i) > len(elems) {
			fail()
			return
		}
		f, _ := w.expandString(a.Value, st)
		val := w.value(f)
		if a.Value == nil || len(a.Value.Parts) == 0 {
			val.Span = w.loc.span(w.off(a.Pos()), w.off(a.End()))
		}
		switch {
		case int(i) == len(elems):
			elems = append(elems, val)
		case a.Append:
			old := elems[i]
			val.Raw, val.Known = old.Raw+val.Raw, old.Known && val.Known
			val.Origin = append(slices.Clone(old.Origin), deploy.At(deploy.StepAssignment, old.Span))
			elems[i] = val
		default:
			elems[i] = val
		}
		st.setArray(name, elems, w.loc.span(w.off(a.Pos()), w.off(a.End())))
		return
	}
	for _, el := range a.Array.Elems {
		if el.Index != nil {
			// [i]=v inside the list: known only when it continues the
			// dense run.
			x := w.newExpander(st, false)
			i, ok := x.arith(el.Index)
			if !ok || int(i) != len(elems) {
				fail()
				return
			}
			f, _ := w.expandString(el.Value, st)
			elems = append(elems, w.value(f))
			continue
		}
		if el.Value == nil {
			continue
		}
		// Elements are expanded like command words: split and globbed.
		for _, f := range w.expandFields(el.Value, st) {
			elems = append(elems, w.value(f))
		}
	}
	st.setArray(name, elems, w.loc.span(w.off(a.Pos()), w.off(a.End())))
}

// arrayVar returns the known array (or scalar, as a one-element array) a
// name holds.
func (st *vars) arrayVar(name string) ([]deploy.Value, variable, bool) {
	v, ok := st.lookup(name)
	switch {
	case !ok:
		return nil, v, false
	case v.unset:
		return nil, v, true
	case v.isArray:
		return v.arr, v, true
	}
	return []deploy.Value{v.val}, v, true
}

// allIndex reports whether a subscript is @ or *, and which.
func allIndex(idx syntax.ArithmExpr) (string, bool) {
	if w, ok := idx.(*syntax.Word); ok {
		if l := w.Lit(); l == "@" || l == "*" {
			return l, true
		}
	}
	return "", false
}

// wholeArray expands a word that is exactly "${A[@]}", ${A[@]} or ${A[*]}
// for a known array: each element one word with its own span and origin.
// Unquoted, this holds only for elements that field splitting and pathname
// expansion leave alone.
func (w *walker) wholeArray(word *syntax.Word, st *vars) ([]field, bool) {
	if len(word.Parts) != 1 {
		return nil, false
	}
	part, quoted := word.Parts[0], false
	if q, ok := part.(*syntax.DblQuoted); ok && len(q.Parts) == 1 && !q.Dollar {
		part, quoted = q.Parts[0], true
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Index == nil || p.Exp != nil || p.Length || p.Excl || p.Slice != nil || p.Repl != nil || p.Names != 0 || len(p.Modifiers) > 0 {
		return nil, false
	}
	which, ok := allIndex(p.Index)
	if !ok || quoted && which == "*" || !isName(p.Param.Value) {
		return nil, false // "${A[*]}" is one word: param() joins it
	}
	elems, v, ok := st.arrayVar(p.Param.Value)
	if !ok {
		return nil, false
	}
	if !quoted {
		if st.hasEntry("IFS") {
			return nil, false
		}
		for _, e := range elems {
			if !e.Known || e.Raw == "" || strings.ContainsAny(e.Raw, " \t\n*?[") {
				return nil, false
			}
		}
	}
	s := w.off(word.Pos())
	if !w.payValues(elems, arrayStep(v), s, w.off(word.End())) {
		return []field{w.rawField(s, w.off(word.End()))}, true
	}
	out := make([]field, len(elems))
	for i, e := range elems {
		e := e
		e.Origin = dedupeSteps(append(slices.Clone(e.Origin), arrayStep(v)...))
		at, src := make([]int, len(e.Raw)), make([]int, len(e.Raw))
		for j := range at {
			at[j], src[j] = s, -1
		}
		out[i] = field{raw: []byte(e.Raw), at: at, src: src, known: e.Known, param: &e, start: s, end: w.off(word.End()), ranged: true}
	}
	return out, true
}

// arrayStep is where an array was defined, for its elements' origin.
func arrayStep(v variable) deploy.Origin {
	if v.arrSpan.IsZero() {
		return nil
	}
	return deploy.Origin{deploy.At(deploy.StepAssignment, v.arrSpan)}
}

// arrayParam evaluates ${A[i]}, ${A[@]} and ${A[*]} as one string (inside a
// larger word, or quoted [*]), and ${#A[@]}.
func (x *expander) arrayParam(p *syntax.ParamExp) paramResult {
	name := p.Param.Value
	if !isName(name) || p.Exp != nil || p.Excl || p.Slice != nil || p.Repl != nil || p.Names != 0 || len(p.Modifiers) > 0 {
		return paramResult{}
	}
	elems, v, ok := x.st.arrayVar(name)
	if !ok {
		return paramResult{}
	}
	if _, all := allIndex(p.Index); all {
		if p.Length {
			return paramResult{val: strconv.Itoa(len(elems)), known: true, origin: arrayStep(v)}
		}
		if x.st.hasEntry("IFS") {
			return paramResult{} // joined with IFS's first character
		}
		var raws []string
		origin := arrayStep(v)
		for _, e := range elems {
			if !e.Known {
				return paramResult{}
			}
			raws = append(raws, e.Raw)
			origin = append(origin, e.Origin...)
		}
		return paramResult{val: strings.Join(raws, " "), known: true, origin: dedupeSteps(origin)}
	}
	i, ok := x.arith(p.Index)
	if !ok || i < 0 {
		return paramResult{}
	}
	if int(i) >= len(elems) {
		return paramResult{known: true} // unset element: empty
	}
	e := elems[i]
	if !e.Known {
		return paramResult{}
	}
	if p.Length {
		return paramResult{val: strconv.Itoa(len([]rune(e.Raw))), known: true}
	}
	return paramResult{val: e.Raw, known: true, origin: append(slices.Clone(e.Origin), deploy.At(deploy.StepAssignment, e.Span))}
}
