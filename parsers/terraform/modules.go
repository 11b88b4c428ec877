package terraform

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/confined"
)

const (
	// maxModuleDepth bounds how deep local module calls nest. Terraform
	// sets no limit; real configurations nest two or three deep.
	maxModuleDepth = 8
	// maxModuleInstances bounds the child module instances one root
	// evaluates in all (count and for_each at every level multiply).
	maxModuleInstances = 256
)

// localSource reports whether a module source is a local path, which
// Terraform recognises by its prefix alone (hashicorp/terraform@0e0c7206
// internal/addrs/module_source.go, moduleSourceLocalPrefixes and
// isModuleSourceLocal): everything else is a registry address or a
// go-getter address (git::, github.com/..., https://, s3::) that terraform
// init downloads.
func localSource(src string) bool {
	for _, p := range []string{"./", "../", `.\`, `..\`} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	return false
}

// callModule evaluates a module call: a local module once per instance,
// with the call's arguments as its variables, its servers added to the
// caller's. It returns the value module.<name> reads (the outputs, a tuple
// of them under count, an object of them under for_each) and false when
// the module is not evaluated (a remote source, an error), which leaves
// module.<name> unknown.
func (m *module) callModule(name string, b *hclsyntax.Block) (cty.Value, bool) {
	hdr := m.fs.span(hcl.RangeBetween(b.TypeRange, b.LabelRanges[0]))
	a, ok := b.Body.Attributes["source"]
	if !ok {
		m.errorf(hdr, "module %q has no source", name)
		return cty.NilVal, false
	}
	// Terraform takes the source as written: it must be a literal string.
	sv, ds := a.Expr.Value(nil)
	if ds.HasErrors() || !sv.IsKnown() || sv.IsNull() || sv.Type() != cty.String {
		m.errorf(m.fs.span(a.Expr.Range()), "the source of module %q must be a literal string, as Terraform requires", name)
		return cty.NilVal, false
	}
	src := sv.AsString()
	if !localSource(src) {
		m.remoteModule(name, b, src, a)
		return cty.NilVal, false
	}
	at := m.fs.span(a.Expr.Range())
	// A local source is relative to the calling module's directory
	// (internal/addrs/module_source.go, ResolveRelativeModuleSource: the
	// child's path joined to the parent's).
	rel := filepath.FromSlash(strings.ReplaceAll(src, `\`, "/"))
	display := filepath.Clean(filepath.Join(m.dir, rel))
	real := filepath.Join(m.abs, rel)
	if ev, err := filepath.EvalSymlinks(real); err == nil {
		real = ev
	}
	root := m.root
	if !within(root.abs, real) && !m.inRoots(real) {
		m.errorf(at, "module %q (source %q) is outside the paths kvlint checks; kvlint reads only files inside them, so the module was not analysed", name, src)
		return cty.NilVal, false
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		why := "not a directory"
		if err != nil {
			why = describe(err)
		}
		m.errorf(at, "module %q (source %q): %s: %s", name, src, display, why)
		return cty.NilVal, false
	}
	for _, d := range m.stack {
		if d == real {
			m.errorf(at, "module %q (source %q) calls itself: the module calls lead back to %s, which Terraform rejects; it was not evaluated again", name, src, display)
			return cty.NilVal, false
		}
	}
	if len(m.stack) > maxModuleDepth {
		m.errorf(at, "module %q (source %q) is nested %d modules deep; kvlint evaluates modules %d deep at most, so it was not analysed", name, src, len(m.stack), maxModuleDepth)
		return cty.NilVal, false
	}
	ins := m.instances(b, maxModuleInstances)
	var outs []cty.Value
	keyed := map[string]cty.Value{}
	whole := true
	for _, in := range ins {
		if root.evaluated >= maxModuleInstances {
			m.errorf(hdr, "kvlint evaluates %d module instances at most in one root module; %s and the instances after it were not analysed", maxModuleInstances, m.call+in.address)
			return cty.NilVal, false
		}
		root.evaluated++
		c := newModule(display, m.opt)
		c.root, c.abs = root, real
		c.call = m.call + in.address + "."
		c.stack = append(append([]string(nil), m.stack...), real)
		c.fs = m.fs // spans of the caller's files stay resolvable
		if !c.load() {
			m.errs = append(m.errs, c.errs...)
			return cty.NilVal, false
		}
		c.callInputs(m, b, m.evalContext(in.vars), hdr)
		c.evaluate()
		c.resources()
		m.servers = append(m.servers, c.servers...)
		m.errs = append(m.errs, c.errs...)
		m.remote = append(m.remote, c.remote...)
		out := c.outputValues(name)
		outs = append(outs, out)
		switch {
		case in.key != nil:
			keyed[*in.key] = out
		case in.index < 0:
			whole = false // one instance standing for an unknown count or for_each
		}
	}
	switch {
	case !whole:
		return cty.NilVal, false
	case b.Body.Attributes["for_each"] != nil:
		return cty.ObjectVal(keyed), true
	case b.Body.Attributes["count"] != nil:
		return cty.TupleVal(outs), true
	case len(outs) == 1:
		return outs[0], true
	}
	return cty.NilVal, false
}

// remoteModule reports a module kvlint does not download. Like a
// helm_release from a chart repository, it is an input error (the run
// exits 3) when the call mentions an engine, so a model server in it is
// never passed over in silence. Any other remote module (a VPC, a cluster)
// is a coverage note (KV502), not an error: what it deploys was not
// checked, and the run says so without failing on it.
func (m *module) remoteModule(name string, b *hclsyntax.Block, src string, a *hclsyntax.Attribute) {
	at := m.fs.span(a.Expr.Range())
	if mentionsEngine(src) || mentionsEngine(m.fs.text(b.Range())) {
		m.errorf(at, "module %q (source %q) is not analysed: kvlint reads only local modules, so the servers it may deploy were not checked", name, src)
		return
	}
	m.remote = append(m.remote, RemoteModule{Name: name, Source: src, Span: at})
}

// callInputs gives the child's variables the call's arguments, evaluated
// in the caller (ctx), else their defaults. Each value keeps where the
// caller wrote it and the way it came there; it then goes through the
// child's variable declaration. The caller's arguments are what the user
// sets for the child module, so a word that mixes one with the child's own
// text is reported at the argument.
func (c *module) callInputs(caller *module, b *hclsyntax.Block, ctx *hcl.EvalContext, hdr deploy.Span) {
	given := map[string]bool{}
	for _, a := range sortedAttributes(b.Body) {
		switch a.Name {
		case "source", "version", "count", "for_each", "providers", "depends_on":
			continue
		}
		v := c.variables[a.Name]
		if v == nil {
			if !c.syntaxBroken {
				caller.errorf(caller.fs.span(a.NameRange), "module %q has no variable %q: Terraform rejects an argument the module does not declare", b.Labels[0], a.Name)
			}
			continue
		}
		given[a.Name] = true
		val := caller.eval(a.Expr, ctx, "")
		val = transformLeaves(val, func(leaf cty.Value) cty.Value {
			for _, s := range sitesOf(leaf) {
				cp := *s
				cp.input = true
				cp.via = hopsOf(s.via.origin().Add(deploy.At(deploy.StepVariable, v.decl)))
				leaf = withSite(leaf, &cp)
			}
			return leaf
		})
		c.setVar(v, val, caller.fs.span(a.Expr.Range()), "")
	}
	for _, name := range c.varOrder {
		if given[name] {
			continue
		}
		v := c.variables[name]
		if v.def != nil {
			val, ds := v.def.Value(nil)
			c.diags(ds)
			c.setVar(v, c.inputSites(v.def, val, deploy.StepVariableDefault, nil), c.fs.span(v.def.Range()), "")
			continue
		}
		caller.errorf(hdr, "module %q does not set the variable %q, which has no default (declared at %s): Terraform requires it", b.Labels[0], name, v.decl)
		s := &site{f: c.fs[v.decl.File], ref: "var." + name, unknown: "var." + name, input: true}
		s.start, s.end = c.declRange(v)
		c.varVals[name] = cty.DynamicVal.Mark(s)
	}
}

// outputValues evaluates the module's outputs, bound to module.<name> so a
// reference in the caller adds its own step.
func (m *module) outputValues(name string) cty.Value {
	obj := map[string]cty.Value{}
	for _, o := range m.outputs {
		a, ok := o.Body.Attributes["value"]
		if !ok {
			continue
		}
		obj[o.Labels[0]] = m.eval(a.Expr, m.evalContext(nil), "module."+name)
	}
	return cty.ObjectVal(obj)
}

// LocalCalls lists the directories the module in dir calls through local
// module sources (as written, joined to dir), without evaluating anything.
// A run that checks a root module evaluates these with the root's
// arguments; checked on their own as well, they would be reported a
// second time with their variables' defaults.
func LocalCalls(dir string) []string {
	cfs := confined.New([]string{dir}) // a .tf file linked out of dir is not read
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tf") {
			continue
		}
		data, err := cfs.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if _, deep := tooDeep(data, false); deep {
			continue // reported where the module is parsed
		}
		f, _ := hclsyntax.ParseConfig(data, e.Name(), hcl.InitialPos)
		if f == nil {
			continue
		}
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, b := range body.Blocks {
			a, ok := b.Body.Attributes["source"]
			if b.Type != "module" || !ok {
				continue
			}
			v, ds := a.Expr.Value(nil)
			if ds.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type() != cty.String || !localSource(v.AsString()) {
				continue
			}
			src := filepath.FromSlash(strings.ReplaceAll(v.AsString(), `\`, "/"))
			out = append(out, filepath.Clean(filepath.Join(dir, src)))
		}
	}
	return out
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// inRoots reports whether real (absolute, symlinks resolved) is inside one
// of the checked paths: a module there is part of what the user asked
// kvlint to read, wherever the calling module sits.
func (m *module) inRoots(real string) bool {
	for _, r := range m.opt.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if ev, err := filepath.EvalSymlinks(abs); err == nil {
			abs = ev
		}
		if within(abs, real) {
			return true
		}
	}
	return false
}
