package terraform

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// evalLocals evaluates the locals in dependency order. A local that depends
// on itself (directly or through others) is an error at the first local of
// the cycle, named with the whole cycle; every local in it is unknown.
func (m *module) evalLocals() {
	deps := map[string][]string{}
	for _, name := range m.localOrd {
		for _, t := range m.locals[name].Expr.Variables() {
			if t.RootName() != "local" || len(t) < 2 {
				continue
			}
			if a, ok := t[1].(hcl.TraverseAttr); ok {
				if _, declared := m.locals[a.Name]; declared {
					deps[name] = append(deps[name], a.Name)
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
	for _, n := range m.localOrd {
		if state[n] == fresh {
			visit(n)
		}
	}
	for n := range cyclic {
		a := m.locals[n]
		r := a.Expr.Range()
		s := &site{f: m.fs[r.Filename], start: r.Start.Byte, end: r.End.Byte, ref: "local." + n, unknown: "local." + n}
		m.localVals[n] = cty.DynamicVal.Mark(s)
	}
	for _, n := range order {
		if cyclic[n] {
			continue
		}
		m.localVals[n] = m.eval(m.locals[n].Expr, m.evalContext(nil), "local."+n)
	}
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
			return // already reported through another of its locals
		}
	}
	first := members[0]
	for _, n := range members {
		cyclic[n] = true
		if m.locals[n].SrcRange.Start.Byte < m.locals[first].SrcRange.Start.Byte &&
			m.locals[n].SrcRange.Filename == m.locals[first].SrcRange.Filename {
			first = n
		}
	}
	// Name the cycle starting from the local reported.
	var path []string
	k := 0
	for i, n := range members {
		if n == first {
			k = i
		}
	}
	for i := range members {
		path = append(path, "local."+members[(k+i)%len(members)])
	}
	path = append(path, "local."+first)
	a := m.locals[first]
	m.errorf(m.fs.span(a.NameRange), "local.%s depends on itself (%s): Terraform rejects the cycle, and every local in it is unknown",
		first, strings.Join(path, " → "))
}
