package terraform

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/confined"
)

// variable is one input variable block.
type variable struct {
	name     string
	decl     deploy.Span // `variable "name"`, where the chain of a set value starts
	ty       cty.Type
	defaults *typeexpr.Defaults
	def      hcl.Expression // the default, or nil when the variable is required
}

func (m *module) declareVariable(b *hclsyntax.Block) {
	name := b.Labels[0]
	if prev, dup := m.variables[name]; dup {
		m.errorf(m.fs.span(b.LabelRanges[0]), "variable %q is declared twice; the first declaration is at %s", name, prev.decl)
		return
	}
	v := &variable{name: name, ty: cty.DynamicPseudoType,
		decl: m.fs.span(hcl.RangeBetween(b.TypeRange, b.LabelRanges[0]))}
	if a, ok := b.Body.Attributes["type"]; ok {
		// A bare list or map keyword is list(any) or map(any), the pre-0.12
		// shorthand Terraform still accepts and HCL's type parser does not
		// (hashicorp/terraform internal/configs/named_values.go
		// decodeVariableType).
		switch hcl.ExprAsKeyword(a.Expr) {
		case "list":
			v.ty = cty.List(cty.DynamicPseudoType)
		case "map":
			v.ty = cty.Map(cty.DynamicPseudoType)
		default:
			ty, defs, ds := typeexpr.TypeConstraintWithDefaults(a.Expr)
			m.diags(ds)
			if !ds.HasErrors() {
				v.ty, v.defaults = ty, defs
			}
		}
	}
	if a, ok := b.Body.Attributes["default"]; ok {
		v.def = a.Expr
	}
	m.variables[name] = v
	m.varOrder = append(m.varOrder, name)
}

// inputs sets every variable's value, in Terraform's order of precedence
// (developer.hashicorp.com/terraform/language/values/variables, "Variable
// Definition Precedence"): the default, then the environment, then
// terraform.tfvars, terraform.tfvars.json, *.auto.tfvars(.json) in lexical
// order of their names, then the -var-file options in order. A later source
// replaces an earlier one.
func (m *module) inputs() {
	for _, name := range m.varOrder {
		v := m.variables[name]
		if v.def != nil {
			val, ds := v.def.Value(nil)
			m.diags(ds)
			m.setVar(v, m.inputSites(v.def, val, deploy.StepVariableDefault, nil), m.fs.span(v.def.Range()), "")
			continue
		}
		s := &site{f: m.fs[v.decl.File], ref: "var." + name, unknown: "var." + name, input: true}
		s.start, s.end = m.declRange(v)
		m.varVals[name] = cty.DynamicVal.Mark(s)
	}
	m.environment()
	for _, p := range m.tfvarsFiles() {
		m.varFile(p, m.cfs())
	}
	// --tf-var-file files are the user's: read wherever they are.
	for _, p := range m.opt.VarFiles {
		m.varFile(p, confined.Unconfined)
	}
}

func (m *module) declRange(v *variable) (int, int) {
	f := m.fs[v.decl.File]
	if f == nil {
		return 0, 0
	}
	return offsetOf(f, v.decl.Line, v.decl.Col), offsetOf(f, v.decl.EndLine, v.decl.EndCol)
}

// inputSites gives the leaves of a variable's value their sites: each leaf
// points where it was written (a step of the given kind) and, when via is
// set, goes on to the variable's declaration.
func (m *module) inputSites(e hcl.Expression, val cty.Value, kind deploy.StepKind, via deploy.Origin) cty.Value {
	val = m.syntactic(e, val, nil, "", true)
	return transformLeaves(val, func(leaf cty.Value) cty.Value {
		ss := sitesOf(leaf)
		if len(ss) != 1 {
			return leaf
		}
		c := *ss[0]
		c.input = true
		c.kind = kind
		c.via = hopsOf(append(copyOrigin(via), c.via.origin()...))
		return withSite(leaf, &c)
	})
}

// setVar converts a value to the variable's type and binds it to var.name.
// at is where the value was written; from names a source without a line
// (an environment variable).
func (m *module) setVar(v *variable, val cty.Value, at deploy.Span, from string) {
	if v.ty != cty.DynamicPseudoType {
		if v.defaults != nil {
			val = applyDefaults(v.defaults, val)
		}
		conv, err := convert.Convert(val, v.ty)
		if err != nil {
			m.errorf(at, "variable %q%s: %s is required: %s", v.name, from, typeexpr.TypeString(v.ty), err.Error())
			conv = cty.UnknownVal(v.ty)
		}
		val = conv
	}
	val = transformLeaves(val, func(leaf cty.Value) cty.Value {
		for _, s := range sitesOf(leaf) {
			leaf = withSite(leaf, s.rebind("var."+v.name))
		}
		return leaf
	})
	m.varVals[v.name] = val
}

// applyDefaults fills optional object attributes; a value the defaults do
// not fit is left alone (the conversion reports it).
func applyDefaults(d *typeexpr.Defaults, val cty.Value) (out cty.Value) {
	defer func() {
		if recover() != nil {
			out = val
		}
	}()
	return d.Apply(val)
}

// environment reads TF_VAR_name. Terraform takes the text literally for a
// variable of a primitive type (or none) and parses it as an HCL expression
// for a collection or structural type. The value has no line of its own: it
// points at the variable's declaration.
func (m *module) environment() {
	for _, kv := range m.opt.Environ {
		name, text, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "TF_VAR_") {
			continue
		}
		v := m.variables[strings.TrimPrefix(name, "TF_VAR_")]
		if v == nil {
			continue
		}
		s := &site{f: m.fs[v.decl.File], kind: deploy.StepEnv, input: true}
		s.start, s.end = m.declRange(v)
		var val cty.Value
		if v.ty == cty.DynamicPseudoType || v.ty.IsPrimitiveType() {
			val = cty.StringVal(text)
		} else if _, deep := tooDeep([]byte(text), false); deep {
			m.errorf(v.decl, "the environment variable %s is not a valid value for variable %q: %s", name, v.name, nestingMessage())
			continue
		} else {
			e, ds := hclsyntax.ParseExpression([]byte(text), name, hcl.InitialPos)
			var vs hcl.Diagnostics
			if !ds.HasErrors() {
				val, vs = e.Value(nil)
				ds = append(ds, vs...)
			}
			if ds.HasErrors() {
				m.errorf(v.decl, "the environment variable %s is not a valid value for variable %q: %s", name, v.name, ds[0].Summary)
				continue
			}
		}
		val = transformLeaves(val, func(leaf cty.Value) cty.Value { return withSite(leaf, s) })
		m.setVar(v, val, v.decl, " (from the environment variable "+name+")")
	}
}

// tfvarsFiles lists the variable files Terraform loads by itself.
func (m *module) tfvarsFiles() []string {
	var out []string
	for _, n := range []string{"terraform.tfvars", "terraform.tfvars.json"} {
		if p := filepath.Join(m.dir, n); isFile(p) {
			out = append(out, p)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(m.dir, "*.auto.tfvars"))
	json, _ := filepath.Glob(filepath.Join(m.dir, "*.auto.tfvars.json"))
	auto := append(matches, json...)
	sort.Slice(auto, func(i, j int) bool { return filepath.Base(auto[i]) < filepath.Base(auto[j]) })
	return append(out, auto...)
}

// varFile applies one variable definitions file. A name the module does not
// declare is passed over: Terraform only warns about it in a file, and a
// --tf-var-file applies to every module kvlint checks.
func (m *module) varFile(p string, cfs *confined.FS) {
	data, err := cfs.ReadFile(p)
	if err != nil {
		m.errorf(deploy.Span{File: p}, "%s", describe(err))
		return
	}
	m.fs[p] = m.newFile(p, data)
	if !m.checkNesting(m.fs[p], false) {
		return
	}
	var f *hcl.File
	var ds hcl.Diagnostics
	if strings.HasSuffix(p, ".json") {
		f, ds = hcljson.Parse(data, p)
	} else {
		f, ds = hclsyntax.ParseConfig(data, p, hcl.InitialPos)
	}
	m.diags(ds)
	if f == nil || ds.HasErrors() {
		return
	}
	attrs, ds := f.Body.JustAttributes()
	m.diags(ds)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		v := m.variables[n]
		if v == nil {
			continue
		}
		val, ds := a.Expr.Value(nil)
		m.diags(ds)
		if ds.HasErrors() {
			continue
		}
		m.setVar(v, m.inputSites(a.Expr, val, deploy.StepTFVars, deploy.Origin{deploy.At(deploy.StepVariable, v.decl)}), m.fs.span(a.Expr.Range()), "")
	}
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}
