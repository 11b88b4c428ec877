package terraform

import (
	"sort"

	"github.com/zclconf/go-cty/cty"

	"github.com/kvlint/kvlint/deploy"
)

// A site is where a value was written and the way it travelled to where it
// is used. Sites ride on cty values as marks, one per leaf (string, number,
// bool), so they survive the functions and conversions of an evaluation: a
// value set in terraform.tfvars, declared by a variable block, renamed by a
// local and used in a resource argument reaches the argument with its
// tfvars site, whose via lists the variable declaration, the local and the
// argument in the order the value went through them.
type site struct {
	f          *file
	start, end int // byte range in f
	// kind is what the site is to the value: a tfvars attribute, a
	// variable's default, TF_VAR_name; "" for text of the module itself.
	kind deploy.StepKind
	via  *hops // where the value went after it was written, in order
	// ref is the name the value is bound to now ("var.x", "local.y",
	// "each.value"); an expression that reads that name adds the range of
	// the reference to via.
	ref string
	// input is true for a value the user sets for the module (a tfvars
	// line, a variable default): when a word mixes an input with text of
	// the module itself, the input is what the user edits.
	input bool
	// unknown is the source text of a value kvlint cannot know (a data
	// source, a resource attribute); "" for a known value.
	unknown string
	// text and at map a string value byte by byte: byte i of text was
	// written at at[i]. nil maps every byte to the whole site.
	text string
	at   []bytePos
	// pending is a reference not yet added to via: a value passed to
	// templatefile is read inside the template before the expression that
	// passed it is known; the caller's expression inserts the hop at
	// pendingAt when it finds the reference.
	pending   string
	pendingAt int
}

// bytePos is where one byte of a string was written: a simple site (one
// without a byte map of its own) and an offset in its file, or -1 when only
// the whole site is known.
type bytePos struct {
	s   *site
	off int
}

func (s *site) span() deploy.Span {
	if s.f == nil {
		return deploy.Span{}
	}
	return s.f.span(s.start, s.end)
}

// step is the site as a step of another value's origin.
func (s *site) step() deploy.Step {
	kind := s.kind
	if kind == "" {
		kind = deploy.StepWritten
	}
	return deploy.At(kind, s.span())
}

// hop is the site after the value was read through a reference (a step of
// the given kind) written at span and bound to the name ref.
func (s *site) hop(kind deploy.StepKind, span deploy.Span, ref string) *site {
	c := *s
	c.via = s.via.push(deploy.At(kind, span))
	c.ref = ref
	return &c
}

// hops is a site's via as a list that shares its beginning with the site it
// was made from: a hop adds one node, where copying the chain into a new
// slice made n chained locals cost O(n²) in time and memory (the last local's
// chain holds every local before it). The chain is made a deploy.Origin only
// where a value is located, once per use.
type hops struct {
	step deploy.Step
	prev *hops
	n    int // steps up to and including this one
}

func (h *hops) len() int {
	if h == nil {
		return 0
	}
	return h.n
}

// push is h followed by s.
func (h *hops) push(s deploy.Step) *hops { return &hops{step: s, prev: h, n: h.len() + 1} }

// origin is the chain in order, a new slice (nil when empty).
func (h *hops) origin() deploy.Origin {
	if h == nil {
		return nil
	}
	o := make(deploy.Origin, h.n)
	for x := h; x != nil; x = x.prev {
		o[x.n-1] = x.step
	}
	return o
}

// hopsOf is the chain o as hops.
func hopsOf(o deploy.Origin) *hops {
	var h *hops
	for _, s := range o {
		h = h.push(s)
	}
	return h
}

// rebind is the site bound to another name without a reference in between.
func (s *site) rebind(ref string) *site {
	if s.ref == ref {
		return s
	}
	c := *s
	c.ref = ref
	return &c
}

// sitesOf returns the sites marking a value, in source order so output is
// deterministic.
func sitesOf(v cty.Value) []*site {
	var out []*site
	for m := range v.Marks() {
		if s, ok := m.(*site); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return siteLess(out[i], out[j]) })
	return out
}

func siteLess(a, b *site) bool {
	an, bn := "", ""
	if a.f != nil {
		an = a.f.name
	}
	if b.f != nil {
		bn = b.f.name
	}
	if an != bn {
		return an < bn
	}
	if a.start != b.start {
		return a.start < b.start
	}
	return a.via.len() < b.via.len()
}

// primary picks the site a finding should point at among several that
// produced one value: the only input (what the user edits) if there is
// exactly one, else the first. The others follow in via.
func primary(sites []*site) (*site, []*site) {
	if len(sites) == 0 {
		return nil, nil
	}
	pick := 0
	inputs := 0
	for i, s := range sites {
		if s.input {
			if inputs == 0 {
				pick = i
			}
			inputs++
		}
	}
	if inputs != 1 {
		pick = 0
	}
	rest := make([]*site, 0, len(sites)-1)
	rest = append(rest, sites[:pick]...)
	rest = append(rest, sites[pick+1:]...)
	return sites[pick], rest
}

// locate returns the span and chain of bytes [i, j) of the string val marked
// with sites. A string whose site maps it byte by byte points at exactly
// those bytes; otherwise the whole site is the answer.
func locate(sites []*site, val string, i, j int) (deploy.Span, deploy.Origin) {
	p, rest := primary(sites)
	if p == nil {
		return deploy.Span{}, nil
	}
	span, via := p.locate(val, i, j)
	for _, r := range rest {
		via = via.Add(r.step())
		for _, v := range r.via.origin() {
			via = via.Add(v)
		}
	}
	return span, via
}

func (s *site) locate(val string, i, j int) (deploy.Span, deploy.Origin) {
	if s.at == nil || s.text != val || i < 0 || j > len(s.at) || i >= j {
		return s.span(), s.via.origin()
	}
	var inner []*site
	seen := map[*site]bool{}
	for _, b := range s.at[i:j] {
		if b.s != nil && !seen[b.s] {
			seen[b.s] = true
			inner = append(inner, b.s)
		}
	}
	pick, rest := primary(inner)
	if pick == nil {
		return s.span(), s.via.origin()
	}
	lo, hi := -1, -1
	exact := true
	for _, b := range s.at[i:j] {
		if b.s != pick {
			continue
		}
		if b.off < 0 {
			exact = false
			break
		}
		if lo < 0 || b.off < lo {
			lo = b.off
		}
		if b.off+1 > hi {
			hi = b.off + 1
		}
	}
	var span deploy.Span
	if exact && lo >= 0 && pick.f != nil {
		span = pick.f.span(lo, hi)
	} else {
		span = pick.span()
	}
	via := pick.via.origin()
	for _, r := range rest {
		via = via.Add(r.step())
	}
	for _, v := range s.via.origin() {
		via = via.Add(v)
	}
	return span, via
}

func copyOrigin(o deploy.Origin) deploy.Origin {
	if len(o) == 0 {
		return nil
	}
	return append(deploy.Origin(nil), o...)
}

// transformLeaves rebuilds v with fn applied to every leaf (a primitive or
// an unknown value), pushing marks that sit on a collection down onto its
// leaves first so every mark is a leaf's.
func transformLeaves(v cty.Value, fn func(cty.Value) cty.Value) cty.Value {
	return transformAt(v, nil, fn, 0)
}

const maxValueDepth = 64

func transformAt(v cty.Value, inherited cty.ValueMarks, fn func(cty.Value) cty.Value, depth int) cty.Value {
	v, marks := v.Unmark()
	if len(inherited) > 0 {
		if marks == nil {
			marks = make(cty.ValueMarks)
		}
		for m := range inherited {
			marks[m] = struct{}{}
		}
	}
	ty := v.Type()
	leaf := !v.IsKnown() || v.IsNull() || ty.IsPrimitiveType() || ty == cty.DynamicPseudoType || depth > maxValueDepth
	if leaf || !ty.IsCollectionType() && !ty.IsObjectType() && !ty.IsTupleType() {
		if len(marks) > 0 {
			v = v.WithMarks(marks)
		}
		return fn(v)
	}
	if v.LengthInt() == 0 {
		return v // marks on an empty collection have no leaf to go to
	}
	switch {
	case ty.IsListType(), ty.IsSetType(), ty.IsTupleType():
		var elems []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			elems = append(elems, transformAt(e, marks, fn, depth+1))
		}
		switch {
		case ty.IsListType():
			return safeList(elems, cty.ListVal)
		case ty.IsSetType():
			return safeList(elems, cty.SetVal)
		}
		return cty.TupleVal(elems)
	case ty.IsMapType():
		m := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			m[k.AsString()] = transformAt(e, marks, fn, depth+1)
		}
		return safeMap(m)
	case ty.IsObjectType():
		m := map[string]cty.Value{}
		for name := range ty.AttributeTypes() {
			m[name] = transformAt(v.GetAttr(name), marks, fn, depth+1)
		}
		return cty.ObjectVal(m)
	}
	return fn(v)
}

// safeList builds a list or set, falling back to a tuple when fn changed
// element types (it never should; marks do not change types).
func safeList(elems []cty.Value, mk func([]cty.Value) cty.Value) (out cty.Value) {
	defer func() {
		if recover() != nil {
			out = cty.TupleVal(elems)
		}
	}()
	return mk(elems)
}

func safeMap(m map[string]cty.Value) (out cty.Value) {
	defer func() {
		if recover() != nil {
			out = cty.ObjectVal(m)
		}
	}()
	return cty.MapVal(m)
}

// withSite replaces the site marks of a leaf with s, keeping other marks.
func withSite(v cty.Value, s *site) cty.Value {
	v, marks := v.Unmark()
	out := cty.NewValueMarks(s)
	for m := range marks {
		if _, ok := m.(*site); !ok {
			out[m] = struct{}{}
		}
	}
	return v.WithMarks(out)
}

// hasSite reports whether a leaf carries a site.
func hasSite(v cty.Value) bool {
	for m := range v.Marks() {
		if _, ok := m.(*site); ok {
			return true
		}
	}
	return false
}
