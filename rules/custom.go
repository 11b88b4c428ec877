package rules

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/internal/confined"
)

// customIDPattern is the form of a custom rule's ID: upper-case letters,
// digits, "-" or "_", ending in a digit (ACME001, ORG-12). IDs starting with
// KV are kvlint's own, so a later kvlint release never collides with them.
var customIDPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_-]{0,30}[0-9]$`)

// customPolicies are the modules of the --policy directories.
type customPolicies struct {
	rules   []Rule                 // one per kvlint.rules.<name> module
	modules map[string]*ast.Module // rules and helper packages, keyed by path
	tests   map[string]*ast.Module // *_test.rego, for kvlint test only
	// sources are the texts of modules, keyed like it: a worker process
	// (custom_worker.go) parses them again rather than reading any file.
	sources map[string]string
}

// loadCustomPolicies reads the .rego files under each directory and checks
// them against the conventions of the built-in policies (builtin, keyed by
// path): a module in package kvlint.rules.<file name> is a rule with the same
// METADATA as kvlint's; any package outside kvlint.* is a helper library;
// every other kvlint.* package is reserved. A module may not call a
// forbidden builtin (see forbiddenBuiltin). Every error is a *PolicyError
// naming the file, and the line where there is one.
func loadCustomPolicies(dirs []string, builtin map[string]*ast.Module) (*customPolicies, error) {
	c := &customPolicies{modules: map[string]*ast.Module{}, tests: map[string]*ast.Module{}, sources: map[string]string{}}
	builtinPkgs := map[string]string{}
	for file, mod := range builtin {
		builtinPkgs[strings.TrimPrefix(mod.Package.Path.String(), "data.")] = file
	}
	rulePkgs := map[string]string{}
	for _, dir := range dirs {
		n, err := c.readDir(dir)
		if err != nil {
			return nil, &PolicyError{err}
		}
		if n == 0 {
			return nil, &PolicyError{fmt.Errorf("--policy %s: no .rego policies in it", dir)}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(c.tests)) {
		if err := checkBuiltinCalls(c.tests[file]); err != nil {
			return nil, &PolicyError{err}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(c.modules)) {
		mod := c.modules[file]
		if _, clash := builtin[file]; clash {
			return nil, &PolicyError{fmt.Errorf("%s: the path is also a built-in policy's; move the directory", file)}
		}
		if err := checkBuiltinCalls(mod); err != nil {
			return nil, &PolicyError{err}
		}
		pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
		line := mod.Package.Location.Row
		if prev, ok := builtinPkgs[pkg]; ok {
			return nil, &PolicyError{fmt.Errorf("%s:%d: package %s is kvlint's own (%s); give yours another name", file, line, pkg, prev)}
		}
		if !strings.HasPrefix(pkg, rulePackagePrefix) {
			if pkg == "kvlint" || strings.HasPrefix(pkg, "kvlint.") {
				return nil, &PolicyError{fmt.Errorf("%s:%d: package %s is reserved: a custom rule is package %s<file name>, a helper any package outside kvlint", file, line, pkg, rulePackagePrefix)}
			}
			continue // a helper library
		}
		r, err := readRule(file, mod, rulePackagePrefix)
		if err != nil {
			return nil, &PolicyError{err}
		}
		switch {
		case strings.HasPrefix(r.ID, "KV"):
			return nil, &PolicyError{fmt.Errorf("%s: METADATA custom.id %s: IDs starting with KV are reserved for kvlint's own rules", file, r.ID)}
		case !customIDPattern.MatchString(r.ID):
			return nil, &PolicyError{fmt.Errorf("%s: METADATA custom.id %q, want upper-case letters, digits, - or _, ending in a digit (ACME001)", file, r.ID)}
		}
		if prev, dup := rulePkgs[pkg]; dup {
			return nil, &PolicyError{fmt.Errorf("%s: package %s is also %s's; one rule per package", file, pkg, prev)}
		}
		rulePkgs[pkg] = file
		r.File = file
		c.rules = append(c.rules, r)
	}
	return c, nil
}

// readDir parses every .rego file under dir and reports how many non-test
// modules it found. Module names are the paths as the user wrote them, so
// compiler errors point at the user's files.
func (c *customPolicies) readDir(dir string) (int, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return 0, fmt.Errorf("--policy %s: %w", dir, err)
	}
	if !info.IsDir() {
		return 0, fmt.Errorf("--policy %s: not a directory", dir)
	}
	n := 0
	// The directory is the user's, wherever it is; what is in it is read
	// through a confinement to it: a .rego file that is a link out of the
	// directory, a named pipe or a device is refused, never read.
	cfs := confined.New([]string{dir})
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return nil
		}
		src, err := cfs.ReadFile(p)
		if err != nil {
			return fmt.Errorf("%s: %s", p, confined.Describe(err))
		}
		name := filepath.ToSlash(p)
		mod, err := ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{
			ProcessAnnotation: true,
			RegoVersion:       ast.RegoV1,
		})
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, "_test.rego") {
			c.tests[name] = mod
			return nil
		}
		if _, dup := c.modules[name]; dup {
			return nil // the same directory given twice
		}
		c.modules[name] = mod
		c.sources[name] = string(src)
		n++
		return nil
	})
	return n, err
}

// forbiddenBuiltin says why a builtin is not available to policies, or ""
// when it is. kvlint never reaches the network (http.send, net.*), and its
// findings must depend on the files checked and nothing else, or baselines,
// fingerprints and CI results would change from run to run: so no builtin
// OPA marks non-deterministic (time.now_ns, rand.intn, uuid.rfc4122, the
// io.jwt signing and verifying functions, json.verify_schema and
// json.match_schema, which may fetch remote $refs), no certificate
// verification against the current time, and no opa.runtime (the
// environment and configuration kvlint runs with).
func forbiddenBuiltin(b *ast.Builtin) string {
	switch {
	case b.Name == "http.send" || strings.HasPrefix(b.Name, "net."):
		return "kvlint never reaches the network"
	case b.Name == "opa.runtime":
		return "it exposes the environment kvlint runs in, and findings must depend only on the files checked"
	case b.Nondeterministic || strings.HasPrefix(b.Name, "crypto.x509.parse_and_verify_certificates"):
		return "its result depends on the clock, chance or the network, and findings must depend only on the files checked"
	}
	return ""
}

// allBuiltins are OPA's builtins by name, forbidden ones included, so a
// call to one can be named with the reason it is not available.
var allBuiltins = sync.OnceValue(func() map[string]*ast.Builtin {
	m := map[string]*ast.Builtin{}
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		m[b.Name] = b
	}
	return m
})

// checkBuiltinCalls rejects a module that calls (or mocks, with `with`) a
// forbidden builtin, naming the file and line. The compiler would reject it
// too, as an undefined function; this says why.
func checkBuiltinCalls(mod *ast.Module) error {
	var found error
	check := func(ref ast.Ref, loc *ast.Location) {
		if found != nil {
			return
		}
		b, ok := allBuiltins()[ref.String()]
		if !ok {
			return
		}
		if why := forbiddenBuiltin(b); why != "" {
			found = fmt.Errorf("%s: %s is not available to kvlint policies: %s", locationString(mod, loc), b.Name, why)
		}
	}
	ast.WalkExprs(mod, func(e *ast.Expr) bool {
		if e.IsCall() {
			check(e.Operator(), e.Location)
		}
		for _, w := range e.With {
			if ref, ok := w.Target.Value.(ast.Ref); ok {
				check(ref, w.Location)
			}
		}
		return false
	})
	ast.WalkTerms(mod, func(t *ast.Term) bool {
		if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
			if ref, ok := call[0].Value.(ast.Ref); ok {
				check(ref, t.Location)
			}
		}
		return false
	})
	return found
}

func locationString(mod *ast.Module, loc *ast.Location) string {
	if loc == nil {
		return mod.Package.Location.File
	}
	return fmt.Sprintf("%s:%d", loc.File, loc.Row)
}
