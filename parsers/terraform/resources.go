package terraform

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// resources reads every resource that can launch a server, once per
// instance.
func (m *module) resources() {
	for _, b := range m.blocks {
		typ := b.Labels[0]
		var read func(*hclsyntax.Block, *hcl.EvalContext, string)
		switch {
		case typ == "kubernetes_manifest":
			read = m.manifestResource
		case typ == "kubectl_manifest":
			read = m.kubectlManifest
		case typ == "helm_release":
			read = m.helmRelease
		default:
			if _, ok := kubeKind(typ); ok {
				read = m.kubeResource
			}
		}
		if read == nil {
			continue
		}
		for _, in := range m.instances(b, maxInstances) {
			read(b, m.evalContext(in.vars), m.call+in.address)
		}
	}
}

// instance is one copy of a resource: count.index or each.key/each.value.
type instance struct {
	address string
	vars    map[string]cty.Value
	// key is each.key under for_each; index is count.index under count,
	// 0 without either, -1 for the one instance that stands for an
	// unknown count or collection.
	key   *string
	index int
}

// instances expands count and for_each. A known count of zero (a resource
// switched off) has no instance. When the count or the collection is not
// known, one instance stands for all of them, with count.index or each.*
// unknown.
//
// At most limit instances are read; a count or a collection past it is an
// error at its expression, and the first limit instances are still read.
func (m *module) instances(b *hclsyntax.Block, limit int) []instance {
	addr := strings.Join(b.Labels, ".")
	if b.Type == "module" {
		addr = "module." + b.Labels[0]
	}
	if a, ok := b.Body.Attributes["count"]; ok {
		v := m.eval(a.Expr, m.evalContext(nil), "count.index")
		bare, _ := v.Unmark()
		n, err := convert.Convert(bare, cty.Number)
		if err != nil || !n.IsKnown() || n.IsNull() {
			idx := cty.UnknownVal(cty.Number).Mark(m.unknownSite(a.Expr.Range(), "count.index"))
			return []instance{{address: addr + "[*]", index: -1, vars: map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": idx})}}}
		}
		count, acc := n.AsBigFloat().Int64()
		if acc != big.Exact || count < 0 {
			m.errorf(m.fs.span(a.Expr.Range()), "count must be a whole number of zero or more, not %s", n.AsBigFloat().Text('f', -1))
			return nil
		}
		if count > int64(limit) {
			m.errorf(m.fs.span(a.Expr.Range()), "count is %d; kvlint reads the first %d instances", count, limit)
			count = int64(limit)
		}
		out := make([]instance, 0, count)
		for i := range count {
			idx := cty.NumberIntVal(i)
			out = append(out, instance{address: fmt.Sprintf("%s[%d]", addr, i), index: int(i),
				vars: map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": idx})}})
		}
		return out
	}
	if a, ok := b.Body.Attributes["for_each"]; ok {
		v := m.eval(a.Expr, m.evalContext(nil), "each.value")
		bare, _ := v.Unmark()
		if !bare.IsWhollyKnown() && !(bare.IsKnown() && (bare.Type().IsMapType() || bare.Type().IsObjectType())) {
			s := m.unknownSite(a.Expr.Range(), "each.value")
			k := cty.UnknownVal(cty.String).Mark(m.unknownSite(a.Expr.Range(), "each.key"))
			return []instance{{address: addr + "[*]", index: -1, vars: map[string]cty.Value{
				"each": cty.ObjectVal(map[string]cty.Value{"key": k, "value": cty.DynamicVal.Mark(s)})}}}
		}
		var out []instance
		if n := bare.LengthInt(); n > limit {
			m.errorf(m.fs.span(a.Expr.Range()), "for_each has %d elements; kvlint reads the first %d instances", n, limit)
		}
		for _, kv := range elements(v, limit) {
			key, _ := kv[0].Unmark()
			label := "?"
			if ks, err := convert.Convert(key, cty.String); err == nil && ks.IsKnown() && !ks.IsNull() {
				label = ks.AsString()
			}
			keyVal := kv[0]
			if !hasSite(keyVal) {
				keyVal = m.leaves(a.Expr, keyVal, "each.key", false)
			}
			out = append(out, instance{address: fmt.Sprintf("%s[%q]", addr, label), key: &label, vars: map[string]cty.Value{
				"each": cty.ObjectVal(map[string]cty.Value{"key": keyVal, "value": rebindAll(kv[1], "each.value")})}})
		}
		return out
	}
	return []instance{{address: addr}}
}

// unknownSite marks a value that stands for what an expression may be.
func (m *module) unknownSite(r hcl.Range, ref string) *site {
	return &site{f: m.fs[r.Filename], start: r.Start.Byte, end: r.End.Byte, ref: ref,
		unknown: strings.TrimSpace(ref)}
}

// rebindAll binds every site of v to ref.
func rebindAll(v cty.Value, ref string) cty.Value {
	return transformLeaves(v, func(leaf cty.Value) cty.Value {
		for _, s := range sitesOf(leaf) {
			leaf = withSite(leaf, s.rebind(ref))
		}
		return leaf
	})
}
