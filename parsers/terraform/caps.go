package terraform

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// A module is input: its functions and templates can be asked to build
// values of any size (setproduct of three ranges is a billion elements,
// forty locals each doubling a string are a terabyte). The worker process
// bounds the memory of the whole evaluation; these caps stop the common
// bombs earlier, at the expression that builds them, so the error names the
// place and the rest of the module is still evaluated. Go-cty caps range()
// itself at 1,024 values (go-cty@v1.20.0 cty/function/stdlib/sequence.go,
// RangeFunc), so a range bomb needs setproduct or repetition to grow.
const (
	// maxString is the largest string an expression may produce: twice the
	// largest file kvlint reads (limits.MaxFileSize), so a file read whole
	// and encoded still fits.
	maxString = 32 << 20
	// maxElements is the most elements one value may hold, counted over
	// every level of it.
	maxElements = 1 << 20
	// maxMapped is the longest string whose bytes are each mapped to where
	// they were written (site.at, 16 bytes a byte): a launch line is far
	// shorter, and a longer string points at its expression as a whole.
	maxMapped = 1 << 20
)

// errTooBig is what a capped function or expression reports.
func errTooBig(what string) error {
	return fmt.Errorf("the result would be %s, kvlint's limit for one value", what)
}

// valueSize walks v counting the bytes of its strings and its elements, and
// says what exceeds a cap ("" when nothing does). It stops at the first
// excess, so it costs at most the caps.
func valueSize(v cty.Value) string {
	var bytes, elems int
	var walk func(v cty.Value, depth int) string
	walk = func(v cty.Value, depth int) string {
		v, _ = v.UnmarkDeep()
		if !v.IsKnown() || v.IsNull() || depth > maxNesting {
			return ""
		}
		ty := v.Type()
		switch {
		case ty == cty.String:
			if bytes += len(v.AsString()); bytes > maxString {
				return fmt.Sprintf("more than %d MiB of text", maxString>>20)
			}
		case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
			if ty.IsObjectType() {
				elems += len(ty.AttributeTypes())
			} else {
				elems += v.LengthInt()
			}
			if elems > maxElements {
				return fmt.Sprintf("more than %d elements", maxElements)
			}
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if why := walk(e, depth+1); why != "" {
					return why
				}
			}
		}
		return ""
	}
	return walk(v, 0)
}

// capValue turns a value over the caps into an error at e and an unknown
// value, so nothing downstream computes on it.
func (m *module) capValue(e hcl.Expression, v cty.Value) cty.Value {
	why := valueSize(v)
	if why == "" {
		return v
	}
	r := e.Range()
	if f := m.fs[r.Filename]; f != nil {
		m.errorf(f.span(r.Start.Byte, r.End.Byte), "%v", errTooBig(why))
	}
	return cty.DynamicVal
}

// capTemplate refuses, before it is evaluated, a template whose literal
// parts and plain references (local.a, var.x) already hold more than
// maxString bytes, with the error capValue gives, and reports whether it
// did. hclsyntax builds a template's whole string in a buffer before it
// returns it (hcl@v2.25.0 hclsyntax/expression_template.go,
// TemplateExpr.Value), so a value measured afterwards has already cost its
// size, the buffer's doublings and a copy: "${local.a}${local.a}" over a
// 32 MiB local needed some 200 MiB first, which decided, with the garbage
// collector's timing, whether the worker's memory limit or the cap stopped
// it. Sizing the parts first makes the cap stop it, always, at the cost
// of the values that exist. Other parts (function calls, whose results
// capped bounds, and conditionals) count nothing here: capValue still
// checks the result.
func (m *module) capTemplate(e hcl.Expression, ctx *hcl.EvalContext) bool {
	x, ok := e.(*hclsyntax.TemplateExpr)
	if !ok {
		return false
	}
	n := 0
	for _, p := range x.Parts {
		var v cty.Value
		switch p := p.(type) {
		case *hclsyntax.LiteralValueExpr:
			v = p.Val
		case *hclsyntax.ScopeTraversalExpr:
			tv, ds := p.Traversal.TraverseAbs(ctx)
			if ds.HasErrors() {
				continue // reported when the template is evaluated
			}
			v = tv
		default:
			continue
		}
		v, _ = v.UnmarkDeep()
		if v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			n += len(v.AsString())
		}
	}
	if n <= maxString {
		return false
	}
	r := e.Range()
	if f := m.fs[r.Filename]; f != nil {
		m.errorf(f.span(r.Start.Byte, r.End.Byte), "%v", errTooBig(fmt.Sprintf("more than %d MiB of text", maxString>>20)))
	}
	return true
}

// capped wraps a function so that its result is checked against the caps,
// and, for the functions whose result can be far larger than their
// arguments, its arguments are checked before it allocates.
func capped(name string, f function.Function) function.Function {
	pre := precheck[name]
	return function.New(&function.Spec{
		Params:   f.Params(),
		VarParam: f.VarParam(),
		Type:     f.ReturnTypeForValues,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if pre != nil {
				if why := pre(args); why != "" {
					return cty.NilVal, errTooBig(why)
				}
			}
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			if why := valueSize(v); why != "" {
				return cty.NilVal, errTooBig(why)
			}
			return v, nil
		},
	})
}

// precheck computes, for the functions whose result grows faster than
// their arguments, how large it would be, from the arguments alone.
var precheck = map[string]func([]cty.Value) string{
	"setproduct": func(args []cty.Value) string {
		n := 1
		for _, a := range args {
			a, _ = a.Unmark()
			if !a.IsKnown() || a.IsNull() || !a.CanIterateElements() {
				return ""
			}
			if n *= max(a.LengthInt(), 1); n > maxElements {
				return fmt.Sprintf("more than %d elements", maxElements)
			}
		}
		return ""
	},
	"join": func(args []cty.Value) string {
		if len(args) < 2 {
			return ""
		}
		sep := knownString(args[0])
		total := 0
		for _, l := range args[1:] {
			l, _ = l.Unmark()
			if !l.IsKnown() || l.IsNull() || !l.CanIterateElements() {
				continue
			}
			for it := l.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if total += len(knownString(e)) + len(sep); total > maxString {
					return fmt.Sprintf("more than %d MiB of text", maxString>>20)
				}
			}
		}
		return ""
	},
	"replace": func(args []cty.Value) string {
		if len(args) != 3 {
			return ""
		}
		s, sub, rep := knownString(args[0]), knownString(args[1]), knownString(args[2])
		if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			return "" // a regular expression: its matches are not counted ahead
		}
		// An empty substring matches between every character.
		if n := strings.Count(s, sub); len(s)+n*(len(rep)-len(sub)) > maxString {
			return fmt.Sprintf("more than %d MiB of text", maxString>>20)
		}
		return ""
	},
	"jsondecode": func(args []cty.Value) string {
		if len(args) == 1 {
			if _, deep := tooDeep([]byte(knownString(args[0])), false); deep {
				return fmt.Sprintf("nested more than %d levels deep", maxNesting)
			}
		}
		return ""
	},
}

// knownString is a known string argument's text, else "".
func knownString(v cty.Value) string {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}
