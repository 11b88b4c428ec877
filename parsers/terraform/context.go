package terraform

import (
	"path/filepath"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// evalContext is what expressions of the module can read: var, local, path,
// and, as unknown values, data sources, resources, module outputs and
// terraform.workspace. extra adds count or each for one instance.
func (m *module) evalContext(extra map[string]cty.Value) *hcl.EvalContext {
	vars := map[string]cty.Value{
		"var":   cty.ObjectVal(m.varVals),
		"local": cty.ObjectVal(m.localVals),
		"path": cty.ObjectVal(map[string]cty.Value{
			"module": cty.StringVal(m.pathModule()), "root": cty.StringVal("."), "cwd": cty.StringVal("."),
		}),
		"terraform": cty.ObjectVal(map[string]cty.Value{
			"workspace": cty.UnknownVal(cty.String).Mark(&site{ref: "terraform.workspace", unknown: "terraform.workspace"}),
		}),
	}
	data := map[string]cty.Value{}
	for ty, byName := range m.data {
		data[ty] = m.unknowns("data."+ty, byName)
	}
	vars["data"] = cty.ObjectVal(data)
	mods := map[string]cty.Value{}
	for name, v := range m.unknowns("module", m.modules).AsValueMap() {
		mods[name] = v
	}
	for name, v := range m.moduleVals {
		mods[name] = v
	}
	vars["module"] = cty.ObjectVal(mods)
	for ty, byName := range m.resTypes {
		if _, taken := vars[ty]; !taken {
			vars[ty] = m.unknowns(ty, byName)
		}
	}
	for k, v := range extra {
		vars[k] = v
	}
	return &hcl.EvalContext{Variables: vars, Functions: m.functions()}
}

// unknowns is an object of unknown values, one per declared block, each
// marked with the block's header so its first use can name it.
func (m *module) unknowns(prefix string, blocks map[string]*hclsyntax.Block) cty.Value {
	names := make([]string, 0, len(blocks))
	for n := range blocks {
		names = append(names, n)
	}
	sort.Strings(names)
	obj := map[string]cty.Value{}
	for _, n := range names {
		b := blocks[n]
		r := hcl.RangeBetween(b.TypeRange, b.LabelRanges[len(b.LabelRanges)-1])
		s := &site{f: m.fs[r.Filename], start: r.Start.Byte, end: r.End.Byte, ref: prefix + "." + n, unknown: prefix + "." + n}
		obj[n] = cty.DynamicVal.Mark(s)
	}
	return cty.ObjectVal(obj)
}

// pathModule is path.module: "." for the root, and for a child module its
// directory relative to the root's, which is what Terraform gives
// (relative to the working directory, which for kvlint is the root).
func (m *module) pathModule() string {
	if m.root == m || m.root == nil {
		return "."
	}
	rel, err := filepath.Rel(m.root.dir, m.dir)
	if err != nil {
		return "."
	}
	return filepath.ToSlash(rel)
}
