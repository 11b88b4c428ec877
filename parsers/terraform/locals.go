package terraform

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// evaluate evaluates the locals and the module calls in dependency order:
// a local may read a module's output, and a module's arguments may read
// locals and other modules' outputs. A node that depends on itself
// (directly or through others) is an error at the first node of the cycle,
// named with the whole cycle; every node in it is unknown.
func (m *module) evaluate() {
	var nodes []string
	deps := map[string][]string{}
	for _, name := range m.localOrd {
		nodes = append(nodes, "local."+name)
	}
	for _, name := range m.moduleOrder() {
		nodes = append(nodes, "module."+name)
	}
	// wholeLocal: the node reads local other than as local.NAME, so it is
	// given every local evaluated so far, not just those it names.
	wholeLocal := map[string]bool{}
	for _, n := range nodes {
		for _, e := range m.nodeExprs(n) {
			for _, t := range e.Variables() {
				if t.RootName() == "local" && (len(t) < 2 || !isAttr(t[1])) {
					wholeLocal[n] = true
				}
				if len(t) < 2 {
					continue
				}
				a, ok := t[1].(hcl.TraverseAttr)
				if !ok {
					continue
				}
				switch t.RootName() {
				case "local":
					if _, declared := m.locals[a.Name]; declared {
						deps[n] = append(deps[n], "local."+a.Name)
					}
				case "module":
					if _, declared := m.modules[a.Name]; declared {
						deps[n] = append(deps[n], "module."+a.Name)
					}
				}
			}
		}
	}
	const (
		fresh = iota
		visiting
		done
	)
	state := map[string]int{}
	cyclic := map[string]bool{}
	var order, stack []string
	var visit func(string)
	visit = func(n string) {
		state[n] = visiting
		stack = append(stack, n)
		for _, d := range deps[n] {
			switch state[d] {
			case fresh:
				visit(d)
			case visiting:
				m.cycle(stack, d, cyclic)
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		order = append(order, n)
	}
	for _, n := range nodes {
		if state[n] == fresh {
			visit(n)
		}
	}
	for n := range cyclic {
		if name, ok := strings.CutPrefix(n, "local."); ok {
			r := m.locals[name].Expr.Range()
			s := &site{f: m.fs[r.Filename], start: r.Start.Byte, end: r.End.Byte, ref: n, unknown: n}
			m.localVals[name] = cty.DynamicVal.Mark(s)
		}
		// A module in a cycle keeps the unknown value evalContext gives
		// every module not evaluated.
	}
	// A local is evaluated in a child of one shared context whose local
	// object holds only the locals it names: building the object of every
	// local for each one made n chained locals cost O(n²). Evaluation sees
	// the same values, since the locals it names are evaluated before it
	// and any other local.NAME is an unsupported attribute either way. The
	// shared context is rebuilt after a module call, whose outputs it holds.
	var base *hcl.EvalContext
	for _, n := range order {
		if cyclic[n] {
			continue
		}
		if name, ok := strings.CutPrefix(n, "local."); ok {
			if base == nil && !wholeLocal[n] {
				base = m.evalContext(nil)
			}
			var ctx *hcl.EvalContext
			if wholeLocal[n] {
				ctx = m.evalContext(nil)
			} else {
				ctx = base.NewChild()
				ctx.Variables = map[string]cty.Value{"local": m.localsObject(deps[n])}
			}
			m.localVals[name] = m.eval(m.locals[name].Expr, ctx, n)
			continue
		}
		name := strings.TrimPrefix(n, "module.")
		if v, ok := m.callModule(name, m.modules[name]); ok {
			m.moduleVals[name] = v
		}
		base = nil
	}
}

func isAttr(s hcl.Traverser) bool {
	_, ok := s.(hcl.TraverseAttr)
	return ok
}

// localsObject is the local object with just the named locals that have a
// value ("local.NAME" each).
func (m *module) localsObject(refs []string) cty.Value {
	obj := map[string]cty.Value{}
	for _, r := range refs {
		name, ok := strings.CutPrefix(r, "local.")
		if !ok {
			continue
		}
		if v, ok := m.localVals[name]; ok {
			obj[name] = v
		}
	}
	return cty.ObjectVal(obj)
}

// moduleOrder lists the module calls in source order.
func (m *module) moduleOrder() []string {
	var out []string
	for name := range m.modules {
		out = append(out, name)
	}
	lessRange := func(a, b hcl.Range) bool {
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && lessRange(m.modules[out[j]].TypeRange, m.modules[out[j-1]].TypeRange); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// nodeExprs are the expressions a local or a module call reads: the
// local's, or every argument of the call.
func (m *module) nodeExprs(n string) []hcl.Expression {
	if name, ok := strings.CutPrefix(n, "local."); ok {
		return []hcl.Expression{m.locals[name].Expr}
	}
	b := m.modules[strings.TrimPrefix(n, "module.")]
	var out []hcl.Expression
	_ = hclsyntax.VisitAll(b.Body, func(x hclsyntax.Node) hcl.Diagnostics {
		if a, ok := x.(*hclsyntax.Attribute); ok {
			out = append(out, a.Expr)
		}
		return nil
	})
	return out
}

// nodeName is where a local or a module call is named.
func (m *module) nodeName(n string) hcl.Range {
	if name, ok := strings.CutPrefix(n, "local."); ok {
		return m.locals[name].NameRange
	}
	return m.modules[strings.TrimPrefix(n, "module.")].LabelRanges[0]
}

// cycle reports the cycle that closes at d on the current stack, once.
func (m *module) cycle(stack []string, d string, cyclic map[string]bool) {
	start := -1
	for i, n := range stack {
		if n == d {
			start = i
			break
		}
	}
	if start < 0 {
		return
	}
	members := stack[start:]
	for _, n := range members {
		if cyclic[n] {
			return // already reported through another of its nodes
		}
	}
	first := members[0]
	allLocals := true
	for _, n := range members {
		cyclic[n] = true
		allLocals = allLocals && strings.HasPrefix(n, "local.")
		r, fr := m.nodeName(n), m.nodeName(first)
		if r.Filename == fr.Filename && r.Start.Byte < fr.Start.Byte {
			first = n
		}
	}
	// Name the cycle starting from the node reported.
	var path []string
	k := 0
	for i, n := range members {
		if n == first {
			k = i
		}
	}
	for i := range members {
		path = append(path, members[(k+i)%len(members)])
	}
	path = append(path, first)
	what := "every local in it is unknown"
	if !allLocals {
		what = "every local and module output in it is unknown, and its modules are not evaluated"
	}
	m.errorf(m.fs.span(m.nodeName(first)), "%s depends on itself (%s): Terraform rejects the cycle, and %s",
		first, strings.Join(path, " → "), what)
}
