package terraform

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kvlint/kvlint/deploy"
)

// eval evaluates e and gives every leaf of the result its site. scope is the
// name the result is bound to ("local.x"); "" for an argument read where it
// is written.
func (m *module) eval(e hcl.Expression, ctx *hcl.EvalContext, scope string) cty.Value {
	if m.capTemplate(e, ctx) {
		return m.attach(e, cty.DynamicVal, ctx, scope)
	}
	v, ds := e.Value(ctx)
	m.evalDiags(ds)
	// A template that repeats a large value ("${local.a}${local.a}") grows
	// without calling a function: the value is checked here.
	v = m.capValue(e, v)
	return m.attach(e, v, ctx, scope)
}

// attach moves the sites a value brought from the names e reads (var.x,
// local.y, each.value) one hop on, to e, and gives a site to every leaf e
// wrote itself.
func (m *module) attach(e hcl.Expression, v cty.Value, ctx *hcl.EvalContext, scope string) cty.Value {
	refs := m.references(e)
	v = transformLeaves(v, func(leaf cty.Value) cty.Value {
		ss := sitesOf(leaf)
		if len(ss) == 0 {
			return leaf
		}
		out := make(cty.ValueMarks)
		bare, marks := leaf.Unmark()
		for mk := range marks {
			if s, ok := mk.(*site); ok {
				out[m.hop(m.settle(s, refs), refs, scope)] = struct{}{}
			} else {
				out[mk] = struct{}{}
			}
		}
		return bare.WithMarks(out)
	})
	return m.syntactic(e, v, ctx, scope, false)
}

// reference is one traversal an expression reads, by the name sites are
// bound to.
type reference struct {
	rng  hcl.Range // the whole traversal (data.x.y.value)
	root hcl.Range // the part that names the bound value (data.x.y)
}

// references lists the names e reads, each at its first occurrence.
func (m *module) references(e hcl.Expression) map[string]reference {
	out := map[string]reference{}
	for _, t := range e.Variables() {
		name, n := m.refName(t)
		if name == "" {
			continue
		}
		if _, seen := out[name]; !seen {
			out[name] = reference{rng: t.SourceRange(), root: t[:n].SourceRange()}
		}
	}
	return out
}

// refName is the name a traversal reads values under, and how many of its
// steps that name takes: var.x, local.x, each.value, count.index,
// module.x, data.t.x, t.x for a resource, and a bare name for the
// variables of a template (templatefile's second argument).
func (m *module) refName(t hcl.Traversal) (string, int) {
	root := t.RootName()
	parts := 2
	switch root {
	case "path", "self":
		return "", 0
	case "var", "local", "each", "count", "module", "terraform":
	case "data":
		parts = 3
	default:
		if _, ok := m.resTypes[root]; !ok {
			return root, 1
		}
	}
	if len(t) < parts {
		return "", 0
	}
	name := root
	for _, step := range t[1:parts] {
		a, ok := step.(hcl.TraverseAttr)
		if !ok {
			return "", 0
		}
		name += "." + a.Name
	}
	return name, parts
}

// hop moves s on through the reference e makes to the name it is bound to.
// An unknown value takes the reference's text and position the first time
// it is read: "data.x.y.value" where it was used says more than the data
// block.
func (m *module) hop(s *site, refs map[string]reference, scope string) *site {
	r, ok := refs[s.ref]
	if !ok {
		return s.rebind(scope)
	}
	span := m.fs.span(r.rng)
	if s.unknown != "" && s.via == nil && !s.input {
		c := *s
		c.via = hopsOf(deploy.Origin(nil).Add(s.step()))
		c.f = m.fs[r.rng.Filename]
		c.start, c.end = r.rng.Start.Byte, r.rng.End.Byte
		c.unknown = m.fs.text(r.rng)
		c.ref = scope
		return &c
	}
	// A reference in a template file (templatefile) is the template line
	// that used the value; one in the module's own files passes it on.
	kind := deploy.StepReference
	if m.templateDepth > 0 {
		kind = deploy.StepTemplate
	}
	return s.hop(kind, span, scope)
}

// syntactic gives a site to the leaves of v that have none, following the
// expression's structure where it mirrors the value's: each element of a
// tuple literal, each attribute of an object literal, each part of a
// template points at its own text.
func (m *module) syntactic(e hcl.Expression, v cty.Value, ctx *hcl.EvalContext, scope string, input bool) cty.Value {
	switch x := e.(type) {
	case *hclsyntax.TemplateWrapExpr:
		return m.syntactic(x.Wrapped, v, ctx, scope, input)
	case *hclsyntax.ParenthesesExpr:
		return m.syntactic(x.Expression, v, ctx, scope, input)
	case *hclsyntax.TupleConsExpr:
		ty := v.Type()
		if v.IsKnown() && !v.IsNull() && !v.IsMarked() && ty.IsTupleType() && v.LengthInt() == len(x.Exprs) {
			elems := v.AsValueSlice()
			for i := range elems {
				elems[i] = m.syntactic(x.Exprs[i], elems[i], ctx, scope, input)
			}
			return cty.TupleVal(elems)
		}
	case *hclsyntax.ObjectConsExpr:
		ty := v.Type()
		if v.IsKnown() && !v.IsNull() && !v.IsMarked() && ty.IsObjectType() {
			attrs := v.AsValueMap()
			for _, item := range x.Items {
				k, ds := item.KeyExpr.Value(ctx)
				if ds.HasErrors() || !k.IsKnown() || k.IsMarked() || k.IsNull() {
					continue
				}
				ks, err := convert.Convert(k, cty.String)
				if err != nil {
					continue
				}
				if a, ok := attrs[ks.AsString()]; ok {
					attrs[ks.AsString()] = m.syntactic(item.ValueExpr, a, ctx, scope, input)
				}
			}
			return cty.ObjectVal(attrs)
		}
	case *hclsyntax.FunctionCallExpr:
		if x.Name == "concat" && !x.ExpandFinal {
			if out, ok := m.concat(x, v, ctx, scope, input); ok {
				return out
			}
		}
		if out, ok := m.positional(x, v, ctx, scope); ok {
			return out
		}
	case *hclsyntax.TemplateExpr:
		bare, _ := v.Unmark()
		switch {
		case bare.IsKnown() && !bare.IsNull() && bare.Type() == cty.String:
			if s := m.template(x, v, ctx, scope, input); s != nil {
				return withSite(v, s)
			}
		case !bare.IsKnown() && hasLiteral(x):
			// Text around an unknown value is still worth reading (a
			// script, a manifest): the unknown parts become placeholders
			// the Kubernetes and shell parsers treat as unknown.
			if s := m.template(x, v, ctx, scope, input); s != nil {
				return cty.StringVal(s.text).Mark(s)
			}
		}
	}
	return m.leaves(e, v, scope, input)
}

// concat gives the elements of concat(...) the sites of the arguments they
// came from, so a literal list among the arguments keeps its positions.
func (m *module) concat(x *hclsyntax.FunctionCallExpr, v cty.Value, ctx *hcl.EvalContext, scope string, input bool) (cty.Value, bool) {
	bare, _ := v.Unmark()
	if !bare.IsKnown() || bare.IsNull() || v.IsMarked() || !(bare.Type().IsTupleType() || bare.Type().IsListType()) {
		return v, false
	}
	elems := v.AsValueSlice()
	var out []cty.Value
	for _, arg := range x.Args {
		av, _ := arg.Value(ctx)
		ab, _ := av.Unmark()
		if !ab.IsKnown() || ab.IsNull() || !ab.CanIterateElements() {
			return v, false
		}
		n := ab.LengthInt()
		if len(out)+n > len(elems) {
			return v, false
		}
		part := elems[len(out) : len(out)+n]
		if t, ok := arg.(*hclsyntax.TupleConsExpr); ok && len(t.Exprs) == n {
			for i := range part {
				out = append(out, m.syntactic(t.Exprs[i], part[i], ctx, scope, input))
			}
			continue
		}
		for i := range part {
			out = append(out, m.leaves(arg, part[i], scope, input))
		}
	}
	if len(out) != len(elems) {
		return v, false
	}
	if bare.Type().IsListType() {
		return safeList(out, cty.ListVal), true
	}
	return cty.TupleVal(out), true
}

// leaves gives a site at e to every leaf of v that has none.
func (m *module) leaves(e hcl.Expression, v cty.Value, scope string, input bool) cty.Value {
	r := e.Range()
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && len(t.Parts) > 0 {
		// A quoted template: its text is inside the quotes.
		first, last := t.Parts[0].Range(), t.Parts[len(t.Parts)-1].Range()
		if first.Start.Byte > r.Start.Byte && last.End.Byte < r.End.Byte && m.fs.text(r) != "" && m.fs.text(r)[0] == '"' {
			r = hcl.Range{Filename: r.Filename, Start: hcl.Pos{Byte: r.Start.Byte + 1}, End: hcl.Pos{Byte: r.End.Byte - 1}}
		}
	}
	f := m.fs[r.Filename]
	return transformLeaves(v, func(leaf cty.Value) cty.Value {
		if hasSite(leaf) {
			return leaf
		}
		s := &site{f: f, start: r.Start.Byte, end: r.End.Byte, ref: scope, input: input}
		if !leaf.IsKnown() {
			s.unknown = strings.TrimSpace(m.fs.text(r))
		}
		return withSite(leaf, s)
	})
}

// template builds the byte map of a string template: literal parts map to
// their source bytes, interpolations to where their values came from. It
// returns nil when the parts do not add up to the value (which leaves the
// whole template as the site).
func (m *module) template(x *hclsyntax.TemplateExpr, v cty.Value, ctx *hcl.EvalContext, scope string, input bool) *site {
	r := x.Range()
	f := m.fs[r.Filename]
	if f == nil {
		return nil
	}
	whole, _ := v.Unmark()
	want := ""
	if whole.IsKnown() {
		want = whole.AsString()
	}
	if len(want) > maxMapped {
		return nil
	}
	var b strings.Builder
	var at []bytePos
	bases := map[*site]*site{}
	for _, part := range x.Parts {
		if lit, ok := part.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String && !lit.Val.IsMarked() {
			s := lit.Val.AsString()
			pr := lit.Range()
			base := &site{f: f, start: pr.Start.Byte, end: pr.End.Byte, input: input}
			offs := alignLiteral(f.data, pr.Start.Byte, pr.End.Byte, s)
			for i := range len(s) {
				off := -1
				if offs != nil {
					off = offs[i]
				}
				at = append(at, bytePos{s: base, off: off})
			}
			b.WriteString(s)
			continue
		}
		pv, _ := part.Value(ctx)
		pv = m.attach(part, pv, ctx, scope)
		sv, err := convert.Convert(pv, cty.String)
		if err != nil {
			return nil
		}
		bare, _ := sv.Unmark()
		if bare.IsNull() {
			return nil
		}
		if !bare.IsKnown() {
			p, _ := primary(sitesOf(sv))
			text := strings.TrimSpace(f.text(part.Range()))
			if p != nil && p.unknown != "" {
				text = p.unknown
			}
			s := m.placeholders.add(text)
			for range len(s) {
				at = append(at, bytePos{s: carry(p, nil, bases), off: -1})
			}
			b.WriteString(s)
			continue
		}
		s := bare.AsString()
		if b.Len()+len(s) > maxMapped {
			return nil
		}
		at = append(at, partBytes(sv, s, bases)...)
		b.WriteString(s)
	}
	if whole.IsKnown() && b.String() != want || len(at) != b.Len() {
		return nil
	}
	want = b.String()
	if len(x.Parts) == 1 {
		if lit, ok := x.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
			r = lit.Range() // a plain string: its content, inside the quotes
		}
	}
	return &site{f: f, start: r.Start.Byte, end: r.End.Byte, ref: scope, input: input, text: want, at: at}
}

// partBytes maps the bytes of an interpolated value: through its own byte
// map when it has one, else each byte to the value's site as a whole. The
// sites in the map carry the chain the value travelled (bases caches one
// copy per original).
func partBytes(v cty.Value, s string, bases map[*site]*site) []bytePos {
	out := make([]bytePos, len(s))
	p, _ := primary(sitesOf(v))
	if p == nil {
		for i := range out {
			out[i] = bytePos{off: -1}
		}
		return out
	}
	if p.at != nil && p.text == s {
		for i, b := range p.at {
			out[i] = bytePos{s: carry(b.s, p, bases), off: b.off}
		}
		return out
	}
	whole := carry(p, nil, bases)
	for i := range out {
		out[i] = bytePos{s: whole, off: -1}
	}
	return out
}

// carry is a simple site standing for b with the chain of the value it was
// part of (outer), so a byte map that goes through several templates keeps
// every hop.
func carry(b, outer *site, bases map[*site]*site) *site {
	if b == nil {
		return nil
	}
	if c, ok := bases[b]; ok {
		return c
	}
	c := &site{f: b.f, start: b.start, end: b.end, kind: b.kind, input: b.input, unknown: b.unknown,
		via: b.via, pending: b.pending, pendingAt: b.pendingAt}
	if outer != nil {
		if outer.pending != "" {
			c.pending, c.pendingAt = outer.pending, c.via.len()+outer.pendingAt
		}
		via := c.via.origin()
		for _, v := range outer.via.origin() {
			via = via.Add(v)
		}
		c.via = hopsOf(via)
		c.input = c.input || outer.input
	}
	bases[b] = c
	return c
}

// settle adds the hops a site (or the sites of its byte map) still owes to
// references e makes (see site.pending).
func (m *module) settle(s *site, refs map[string]reference) *site {
	owes := s.pending != ""
	for _, b := range s.at {
		if b.s != nil && b.s.pending != "" {
			owes = true
			break
		}
	}
	if !owes {
		return s
	}
	done := map[*site]*site{}
	pay := func(x *site) *site {
		if x == nil || x.pending == "" {
			return x
		}
		if c, ok := done[x]; ok {
			return c
		}
		c := *x
		if r, ok := refs[x.pending]; ok {
			old := x.via.origin()
			at := min(max(x.pendingAt, 0), len(old))
			via := append(copyOrigin(old[:at]), deploy.At(deploy.StepReference, m.fs.span(r.rng)))
			c.via = hopsOf(append(via, old[at:]...))
			c.pending = ""
		}
		done[x] = &c
		return &c
	}
	c := *pay(s)
	if s.at != nil {
		c.at = make([]bytePos, len(s.at))
		for i, b := range s.at {
			c.at[i] = bytePos{s: pay(b.s), off: b.off}
		}
	}
	return &c
}

// hasLiteral reports whether a template has text of its own besides
// interpolations.
func hasLiteral(x *hclsyntax.TemplateExpr) bool {
	for _, p := range x.Parts {
		if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String {
			return true
		}
	}
	return false
}

// positionalFuncs keep where each part of their arguments was written
// (yamlencode's byte map, templatefile's interpolations), but HCL calls
// them with arguments it evaluated itself, whose literals have no site.
var positionalFuncs = map[string]bool{"yamlencode": true, "templatefile": true}

// maxReeval bounds how deep calls of positionalFuncs are evaluated again:
// each level evaluates its arguments twice.
const maxReeval = 3

// positional calls a function of positionalFuncs again with arguments that
// carry their sites, so a literal written inside yamlencode({...}) or in
// templatefile's variables points at itself.
func (m *module) positional(x *hclsyntax.FunctionCallExpr, v cty.Value, ctx *hcl.EvalContext, scope string) (cty.Value, bool) {
	if !positionalFuncs[x.Name] || x.ExpandFinal || m.reeval >= maxReeval || ctx == nil {
		return v, false
	}
	bare, _ := v.Unmark()
	if !bare.IsKnown() || bare.IsNull() || bare.Type() != cty.String {
		return v, false
	}
	fn, ok := ctx.Functions[x.Name]
	if !ok {
		return v, false
	}
	m.reeval++
	defer func() { m.reeval-- }()
	args := make([]cty.Value, len(x.Args))
	for i, a := range x.Args {
		av, ds := a.Value(ctx)
		if ds.HasErrors() {
			return v, false
		}
		args[i] = m.attach(a, av, ctx, scope)
		// A parameter that does not take marks passes its argument's
		// marks to the result: the path of templatefile is not where
		// the text was written.
		if ps := fn.Params(); i < len(ps) && !ps[i].AllowMarked {
			args[i], _ = args[i].UnmarkDeep()
		}
	}
	out, err := fn.Call(args)
	if err != nil {
		return v, false
	}
	ob, _ := out.Unmark()
	if !ob.IsKnown() || ob.IsNull() || ob.Type() != cty.String || ob.AsString() != bare.AsString() {
		return v, false
	}
	return out, true
}
