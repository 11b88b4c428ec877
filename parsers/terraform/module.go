package terraform

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
)

// module is one Terraform module being evaluated.
type module struct {
	dir  string // as given, for spans
	abs  string // absolute and symlink-free, for confining file access
	opt  Options
	fs   files
	errs []*diag.Diagnostic
	// remote are the module calls with a remote source, never downloaded.
	remote []RemoteModule

	// syntaxBroken is set when a .tf file did not parse: references into
	// what it would have declared then fail, and those failures are
	// consequences, not news.
	syntaxBroken bool
	reported     map[deploy.Span]bool

	variables map[string]*variable
	varOrder  []string
	locals    map[string]*hclsyntax.Attribute
	localOrd  []string
	blocks    []*hclsyntax.Block // resource blocks in file order
	data      map[string]map[string]*hclsyntax.Block
	modules   map[string]*hclsyntax.Block
	resTypes  map[string]map[string]*hclsyntax.Block

	outputs []*hclsyntax.Block // output blocks in file order

	varVals    map[string]cty.Value
	localVals  map[string]cty.Value
	moduleVals map[string]cty.Value // the outputs of the local module calls evaluated so far
	servers    []*deploy.Server

	// root is the module kvlint was asked to check (itself for the root):
	// file functions take relative paths from its directory, as Terraform
	// takes them from the working directory, and every file a child reads
	// stays inside it.
	root *module
	// call is the address of this instance of a child module
	// (`module.llm["a"].`), prefixed to its resources' addresses; ""
	// for the root.
	call string
	// stack lists the directories (resolved) of the calls that led here,
	// the root's first, for the cycle check.
	stack []string
	// evaluated counts the child module instances evaluated under the
	// root (kept on the root), bounded by maxModuleInstances.
	evaluated int

	funcs         map[string]function.Function
	calls         map[string]bool // every function name the module calls
	placeholders  placeholders
	templateDepth int
	reeval        int // nesting of positional (eval.go)
}

func newModule(dir string, opt Options) *module {
	m := &module{dir: dir, opt: opt, fs: files{}, reported: map[deploy.Span]bool{},
		variables: map[string]*variable{}, locals: map[string]*hclsyntax.Attribute{},
		data: map[string]map[string]*hclsyntax.Block{}, modules: map[string]*hclsyntax.Block{},
		resTypes: map[string]map[string]*hclsyntax.Block{},
		varVals:  map[string]cty.Value{}, localVals: map[string]cty.Value{}, moduleVals: map[string]cty.Value{}}
	m.root = m
	if abs, err := filepath.Abs(dir); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		m.abs = abs
	}
	return m
}

func (m *module) errorf(span deploy.Span, format string, args ...any) {
	e := diag.Errorf(span, format, args...)
	m.errs = append(m.errs, e)
}

// diags reports the errors among HCL diagnostics, once per position.
func (m *module) diags(ds hcl.Diagnostics) {
	for _, d := range ds {
		if d.Severity != hcl.DiagError {
			continue
		}
		span := deploy.Span{File: m.dir}
		switch {
		case d.Summary == "Error in function call" && d.Context != nil:
			span = m.fs.span(*d.Context) // the whole call, not just its name
		case d.Subject != nil:
			span = m.fs.span(*d.Subject)
		}
		if m.reported[span] {
			continue
		}
		m.reported[span] = true
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		m.errs = append(m.errs, &diag.Diagnostic{Span: span, Message: msg})
	}
}

// evalDiags reports diagnostics of evaluation, unless a syntax error already
// explains them.
func (m *module) evalDiags(ds hcl.Diagnostics) {
	if m.syntaxBroken {
		return
	}
	m.diags(ds)
}

// readFile reads a file of the module within the per-file limits, through
// the run's confinement (internal/confined): a .tf file, tfvars file or
// file() argument that is a symbolic link out of the checked paths is
// refused, as is anything that is not a regular file.
func (m *module) readFile(p string) ([]byte, error) { return m.cfs().ReadFile(p) }

// cfs is the run's confinement, else the checked roots and the root
// module's directory.
func (m *module) cfs() *confined.FS {
	if c := m.opt.Files.FS(); c != nil {
		return c
	}
	roots := append([]string(nil), m.opt.Roots...)
	if m.root.abs != "" {
		roots = append(roots, m.root.abs)
	}
	return confined.New(roots)
}

// load parses the module's .tf files and records its declarations. It
// returns false when the directory could not be read at all.
func (m *module) load() bool {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		m.errorf(deploy.Span{File: m.dir}, "%s", describe(err))
		return false
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".tf") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(m.dir, n)
		data, err := m.readFile(p)
		if err != nil {
			m.errorf(deploy.Span{File: p}, "%s", describe(err))
			continue
		}
		m.fs[p] = m.newFile(p, data)
		if !m.checkNesting(m.fs[p], false) {
			m.syntaxBroken = true
			continue
		}
		f, ds := hclsyntax.ParseConfig(data, p, hcl.InitialPos)
		if ds.HasErrors() {
			m.syntaxBroken = true
			m.diags(ds)
		}
		if f == nil {
			continue
		}
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		m.noteCalls(body)
		m.declare(body)
	}
	return true
}

// declare records the blocks of one file.
func (m *module) declare(body *hclsyntax.Body) {
	for _, b := range body.Blocks {
		switch b.Type {
		case "variable":
			if len(b.Labels) == 1 {
				m.declareVariable(b)
			}
		case "locals":
			for _, a := range sortedAttributes(b.Body) {
				if prev, dup := m.locals[a.Name]; dup {
					m.errorf(m.fs.span(a.NameRange), "local.%s is defined twice; the first definition is at %s",
						a.Name, m.fs.span(prev.NameRange))
					continue
				}
				m.locals[a.Name] = a
				m.localOrd = append(m.localOrd, a.Name)
			}
		case "resource":
			if len(b.Labels) == 2 {
				if m.resTypes[b.Labels[0]] == nil {
					m.resTypes[b.Labels[0]] = map[string]*hclsyntax.Block{}
				}
				m.resTypes[b.Labels[0]][b.Labels[1]] = b
				m.blocks = append(m.blocks, b)
			}
		case "data":
			if len(b.Labels) == 2 {
				if m.data[b.Labels[0]] == nil {
					m.data[b.Labels[0]] = map[string]*hclsyntax.Block{}
				}
				m.data[b.Labels[0]][b.Labels[1]] = b
			}
		case "module":
			if len(b.Labels) == 1 {
				if prev, dup := m.modules[b.Labels[0]]; dup {
					m.errorf(m.fs.span(b.LabelRanges[0]), "module %q is called twice; the first call is at %s",
						b.Labels[0], m.fs.span(prev.LabelRanges[0]))
					continue
				}
				m.modules[b.Labels[0]] = b
			}
		case "output":
			if len(b.Labels) == 1 {
				m.outputs = append(m.outputs, b)
			}
		}
	}
}

// sortedAttributes returns a body's attributes in source order (the body
// keeps them in a map).
func sortedAttributes(b *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(b.Attributes))
	for _, a := range b.Attributes {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// describe turns a filesystem error into a message without the path, which
// the diagnostic's span already names.
func describe(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// noteCalls records the functions a body calls, so that those kvlint does
// not implement (cidrsubnet, provider-defined functions) evaluate to unknown
// values instead of failing: a function kvlint lacks is its limit, not an
// error in the user's module.
func (m *module) noteCalls(body *hclsyntax.Body) {
	if m.calls == nil {
		m.calls = map[string]bool{}
	}
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if c, ok := n.(*hclsyntax.FunctionCallExpr); ok {
			m.calls[c.Name] = true
		}
		return nil
	})
}
