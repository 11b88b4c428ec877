package terraform

import (
	"encoding/base64"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions are the Terraform functions kvlint evaluates: go-cty's standard
// library under Terraform's names, plus what Terraform adds (file access,
// templatefile, YAML, base64). Functions whose result cannot be known
// before apply (timestamp, uuid, the hashes of files) return unknown
// values.
func (m *module) functions() map[string]function.Function {
	if m.funcs != nil {
		return m.funcs
	}
	fs := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,

		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "split": stdlib.SplitFunc,
		"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
		"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc, "replace": replaceFunc,
		"startswith": startsWithFunc, "endswith": endsWithFunc, "strcontains": strContainsFunc,

		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "index": stdlib.IndexFunc,
		"keys": stdlib.KeysFunc, "length": lengthFunc, "lookup": lookupFunc, "merge": stdlib.MergeFunc,
		"range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc, "setproduct": stdlib.SetProductFunc,
		"setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc,
		"slice": stdlib.SliceFunc, "sort": stdlib.SortFunc, "values": stdlib.ValuesFunc,
		"zipmap": stdlib.ZipmapFunc, "one": oneFunc,

		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
		"csvdecode": stdlib.CSVDecodeFunc, "base64encode": base64EncodeFunc,
		"base64decode": base64DecodeFunc, "yamlencode": yamlEncodeFunc, "yamldecode": yamlDecodeFunc,

		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"sensitive": identityFunc, "nonsensitive": identityFunc,

		"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,

		"basename": pathFunc(path.Base), "dirname": pathFunc(path.Dir),
		"file": m.fileFunc(), "fileexists": m.fileExistsFunc(), "templatefile": m.templateFileFunc(),
		"fileset": m.filesetFunc(),
	}
	for name, f := range fs {
		if name != "try" && name != "can" { // they take expressions, not values
			fs[name] = capped(name, f)
		}
	}
	for _, name := range []string{"timestamp", "plantimestamp", "uuid", "uuidv5", "bcrypt",
		"md5", "sha1", "sha256", "sha512", "base64sha256", "base64sha512",
		"filemd5", "filesha1", "filesha256", "filesha512", "filebase64", "filebase64sha256",
		"abspath", "pathexpand"} {
		fs[name] = unknownFunc
	}
	for name := range m.calls {
		if _, ok := fs[name]; !ok {
			fs[name] = unknownFunc
		}
	}
	m.funcs = fs
	return fs
}

// unknownFunc stands for a function whose result depends on the time, on
// randomness or on files kvlint does not hash: its result is unknown.
var unknownFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type:     function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.DynamicVal, nil
	},
})

var identityFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
})

// lengthFunc is Terraform's length: collections and strings (in characters).
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if v.Type() == cty.String {
			return stdlib.Strlen(v)
		}
		return stdlib.Length(v)
	},
})

// lookupFunc is Terraform's lookup(map, key[, default]).
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "inputMap", Type: cty.DynamicPseudoType, AllowMarked: true},
		{Name: "key", Type: cty.String, AllowMarked: true},
	},
	VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType, AllowNull: true, AllowMarked: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		if len(args) > 3 {
			return cty.NilType, fmt.Errorf("lookup takes a map, a key and an optional default, not %d arguments", len(args))
		}
		return cty.DynamicPseudoType, nil
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if len(args) == 3 {
			return stdlib.LookupFunc.Call(args)
		}
		m, mm := args[0].Unmark()
		k, km := args[1].Unmark()
		ty := m.Type()
		if (ty.IsObjectType() && ty.HasAttribute(k.AsString())) ||
			(ty.IsMapType() && m.HasIndex(k).True()) {
			if ty.IsObjectType() {
				return m.GetAttr(k.AsString()).WithMarks(mm, km), nil
			}
			return m.Index(k).WithMarks(mm, km), nil
		}
		return cty.NilVal, fmt.Errorf("the map has no key %q and no default was given", k.AsString())
	},
})

var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType, AllowMarked: true}},
	Type:   function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, marks := args[0].Unmark()
		ty := v.Type()
		if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
			return cty.NilVal, fmt.Errorf("one needs a list, a set or a tuple")
		}
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(cty.DynamicPseudoType), nil
		case 1:
			elems := v.AsValueSlice()
			return elems[0].WithMarks(marks), nil
		}
		return cty.NilVal, fmt.Errorf("one needs at most one element, not %d", v.LengthInt())
	},
})

// replaceFunc is Terraform's replace: a substring wrapped in slashes is a
// regular expression.
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}, {Name: "replace", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		sub := args[1].AsString()
		if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			re, err := regexp.Compile(sub[1 : len(sub)-1])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(re.ReplaceAllString(args[0].AsString(), args[2].AsString())), nil
		}
		return cty.StringVal(strings.ReplaceAll(args[0].AsString(), sub, args[2].AsString())), nil
	},
})

func stringPredicate(f func(s, t string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "other", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(f(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

var (
	startsWithFunc  = stringPredicate(strings.HasPrefix)
	endsWithFunc    = stringPredicate(strings.HasSuffix)
	strContainsFunc = stringPredicate(strings.Contains)
)

var base64EncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(args[0].AsString()))), nil
	},
})

var base64DecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, fmt.Errorf("not valid base64: %v", err)
		}
		return cty.StringVal(string(b)), nil
	},
})

func pathFunc(f func(string) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(f(args[0].AsString())), nil
		},
	})
}

// resolve confines a path a function reads to the module directory: a
// relative path is taken from the module (Terraform takes it from the
// working directory, which for a root module is the module), and whatever
// it names, symbolic links followed, must stay inside the module.
//
// In a child module a relative path is still taken from the root (which is
// why child modules write "${path.module}/file"), and confined to it.
func (m *module) resolve(p string) (display, real string, err error) {
	r := m.root
	if r.abs == "" {
		return "", "", fmt.Errorf("the module directory cannot be resolved")
	}
	if filepath.IsAbs(p) {
		return "", "", fmt.Errorf("%q is an absolute path; kvlint reads only files inside the module %s", p, r.dir)
	}
	display = filepath.Join(r.dir, p)
	real = filepath.Join(r.abs, p)
	if ev, e := filepath.EvalSymlinks(real); e == nil {
		real = ev
	}
	rel, e := filepath.Rel(r.abs, real)
	if e != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%q is outside the module %s; kvlint reads only files inside it", p, r.dir)
	}
	return display, real, nil
}

// readModuleFile reads a file named by an expression of the module and
// indexes it for spans.
func (m *module) readModuleFile(p string) (*file, error) {
	display, real, err := m.resolve(p)
	if err != nil {
		return nil, err
	}
	if f := m.fs[display]; f != nil {
		return f, nil
	}
	data, err := m.readFile(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", p, describe(err))
	}
	f := m.newFile(display, data) // display opens the same file as real
	m.fs[display] = f
	return f, nil
}

// fileFunc is Terraform's file(path). The content maps byte for byte to the
// file, so what is read out of it (yamldecode(file(...))) points there.
// pathParam is the path argument of the file functions. It takes marks so
// that HCL does not pass the path's site on to the result: where a path
// was written (a for_each over fileset(), a variable's default) is not
// where the file's text was.
var pathParam = function.Parameter{Name: "path", Type: cty.String, AllowMarked: true}

// pathArg is the path argument's text, its marks dropped.
func pathArg(v cty.Value) string {
	p, _ := v.Unmark()
	return p.AsString()
}

func (m *module) fileFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{pathParam},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			f, err := m.readModuleFile(pathArg(args[0]))
			if err != nil {
				return cty.NilVal, err
			}
			s := string(f.data)
			base := &site{f: f, start: 0, end: len(f.data)}
			if len(s) > maxMapped {
				return cty.StringVal(s).Mark(base), nil
			}
			at := make([]bytePos, len(s))
			for i := range at {
				at[i] = bytePos{s: base, off: i}
			}
			return cty.StringVal(s).Mark(&site{f: f, start: 0, end: len(f.data), text: s, at: at}), nil
		},
	})
}

func (m *module) fileExistsFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			_, real, err := m.resolve(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.BoolVal(isFile(real)), nil
		},
	})
}

// templateFileFunc is Terraform's templatefile(path, vars): the file is an
// HCL template whose only variables are vars. The result maps its literal
// bytes to the template file and its interpolations to where their values
// came from.
func (m *module) templateFileFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			pathParam,
			{Name: "vars", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true},
		},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return m.templateFile(pathArg(args[0]), args[1])
		},
	})
}

func (m *module) templateFile(p string, vars cty.Value) (cty.Value, error) {
	if m.templateDepth > 0 {
		return cty.NilVal, fmt.Errorf("templatefile cannot be called from inside a template")
	}
	f, err := m.readModuleFile(p)
	if err != nil {
		return cty.NilVal, err
	}
	if !m.checkNesting(f, true) {
		return cty.UnknownVal(cty.String), nil
	}
	expr, ds := hclsyntax.ParseTemplate(f.data, f.name, hcl.InitialPos)
	if ds.HasErrors() {
		m.diags(ds) // at the template's own line
		return cty.UnknownVal(cty.String), nil
	}
	bare, _ := vars.Unmark()
	if !bare.IsKnown() {
		return cty.UnknownVal(cty.String), nil
	}
	ty := bare.Type()
	if !ty.IsObjectType() && !ty.IsMapType() {
		return cty.NilVal, fmt.Errorf("the template variables must be an object or a map")
	}
	scope := map[string]cty.Value{}
	for k, v := range vars.AsValueMap() {
		// The template reads each value under its key: a value that came
		// from var.x owes the hop through the call's argument, which the
		// caller's expression adds (site.pending).
		scope[k] = transformLeaves(v, func(leaf cty.Value) cty.Value {
			for _, s := range sitesOf(leaf) {
				c := *s
				if s.ref != "" {
					c.pending, c.pendingAt = s.ref, s.via.len()
				}
				c.ref = k
				leaf = withSite(leaf, &c)
			}
			return leaf
		})
	}
	m.templateDepth++
	defer func() { m.templateDepth-- }()
	ctx := &hcl.EvalContext{Variables: scope, Functions: m.functions()}
	v, ds := expr.Value(ctx)
	if ds.HasErrors() {
		m.diags(ds)
		return cty.UnknownVal(cty.String), nil
	}
	v = m.attach(expr, v, ctx, "")
	if !v.IsKnown() {
		return v, nil
	}
	if v.Type() != cty.String {
		return cty.NilVal, fmt.Errorf("the template must produce a string")
	}
	return v, nil
}
