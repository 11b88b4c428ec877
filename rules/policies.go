package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/open-policy-agent/opa/v1/ast"
)

// policyFS holds the built-in policies: policies/<area>/<name>.rego, each
// beside its <name>_test.rego, and the shared library under policies/lib.
//
//go:embed policies
var policyFS embed.FS

// rulePackagePrefix is where every rule lives: package kvlint.rules.<name>.
const rulePackagePrefix = "kvlint.rules."

// suppressionPackagePrefix is where the rules about suppressions live
// (KV00x): they judge the suppressions a run found, not servers, so they
// are evaluated by their own query (EvaluateSuppressions).
const suppressionPackagePrefix = "kvlint.suppressions."

// coveragePackagePrefix is where the rules about what kvlint could not see
// live (KV5xx): they judge the places files name an engine where no launch
// was recognised, through EvaluateCoverage.
const coveragePackagePrefix = "kvlint.coverage."

// libDir holds helper packages that are not rules; suppressionDir holds the
// rules about suppressions.
const (
	libDir         = "policies/lib"
	suppressionDir = "policies/suppressions"
	coverageDir    = "policies/coverage"
)

var ruleIDPattern = regexp.MustCompile(`^KV[0-9]{3}$`)

// policySet is the parsed policy tree: modules keyed by path.
type policySet struct {
	modules map[string]*ast.Module // rules and library, what the engine compiles
	tests   map[string]*ast.Module // *_test.rego, only for the Rego test run
}

// parsePolicies parses every .rego file under root in fsys as Rego v1 with
// METADATA processing.
func parsePolicies(fsys fs.FS, root string) (*policySet, error) {
	set := &policySet{modules: map[string]*ast.Module{}, tests: map[string]*ast.Module{}}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		mod, err := ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{
			ProcessAnnotation: true,
			RegoVersion:       ast.RegoV1,
		})
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, "_test.rego") {
			set.tests[p] = mod
		} else {
			set.modules[p] = mod
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rules: reading policies: %w", err)
	}
	return set, nil
}

// ruleFiles returns the paths of the rule modules (everything but the
// library), sorted.
func (s *policySet) ruleFiles() []string {
	var paths []string
	for p := range s.modules {
		if !strings.HasPrefix(p, libDir+"/") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// ruleFromModule reads a built-in rule's METADATA and checks the layout
// conventions: the package is kvlint.rules.<file name> (kvlint.suppressions.<file
// name> under policies/suppressions, kvlint.coverage.<file name> under
// policies/coverage), the metadata names an ID (KV and three
// digits), a severity, a title, a description and a remediation, and the
// module defines deny.
func ruleFromModule(file string, mod *ast.Module) (Rule, error) {
	prefix := rulePackagePrefix
	switch {
	case strings.HasPrefix(file, suppressionDir+"/"):
		prefix = suppressionPackagePrefix
	case strings.HasPrefix(file, coverageDir+"/"):
		prefix = coveragePackagePrefix
	}
	r, err := readRule(file, mod, prefix)
	if err != nil {
		return Rule{}, err
	}
	if !ruleIDPattern.MatchString(r.ID) {
		return Rule{}, fmt.Errorf("%s: METADATA custom.id %q, want KV followed by three digits", file, r.ID)
	}
	return r, nil
}

// readRule reads the METADATA of a rule module whose package must be
// prefix + the file's name, and checks everything but the ID's form.
func readRule(file string, mod *ast.Module, prefix string) (Rule, error) {
	name := strings.TrimSuffix(path.Base(file), ".rego")
	pkg := strings.TrimPrefix(mod.Package.Path.String(), "data.")
	if pkg != prefix+name {
		return Rule{}, fmt.Errorf("%s: package %s, want %s%s (one rule per file, named after it)", file, pkg, prefix, name)
	}
	var meta *ast.Annotations
	for _, a := range mod.Annotations {
		if a.Scope == "package" {
			meta = a
			break
		}
	}
	if meta == nil {
		return Rule{}, fmt.Errorf("%s: no METADATA block before the package", file)
	}
	custom := func(key string) string {
		s, _ := meta.Custom[key].(string)
		return strings.TrimSpace(s)
	}
	r := Rule{
		ID:          custom("id"),
		Title:       strings.TrimSpace(meta.Title),
		Description: strings.TrimSpace(meta.Description),
		Remediation: custom("remediation"),
		Package:     pkg,
	}
	if r.ID == "" {
		return Rule{}, fmt.Errorf("%s: METADATA has no custom.id", file)
	}
	sev, err := diag.ParseSeverity(custom("severity"))
	if err != nil {
		return Rule{}, fmt.Errorf("%s: METADATA custom.severity: %w", file, err)
	}
	r.Severity = sev.String()
	for _, rr := range meta.RelatedResources {
		r.References = append(r.References, rr.Ref.String())
	}
	if r.StopsStart, err = stopsStart(meta.Custom["stops_start"]); err != nil {
		return Rule{}, fmt.Errorf("%s: METADATA custom.stops_start: %w", file, err)
	}
	if v, present := meta.Custom["assumes"]; present {
		if s, _ := v.(string); s != AssumesTenancy {
			return Rule{}, fmt.Errorf("%s: METADATA custom.assumes %v, want %q", file, v, AssumesTenancy)
		}
		r.Assumes = AssumesTenancy
	}
	switch {
	case r.Title == "":
		return Rule{}, fmt.Errorf("%s: METADATA has no title", file)
	case r.Description == "":
		return Rule{}, fmt.Errorf("%s: METADATA has no description", file)
	case r.Remediation == "":
		return Rule{}, fmt.Errorf("%s: METADATA has no custom.remediation", file)
	}
	if !definesDeny(mod) {
		return Rule{}, fmt.Errorf("%s: defines no deny rule", file)
	}
	return r, nil
}

// stopsStart reads custom.stops_start: absent or false (no finding stops
// the server), true (every finding does), or the severity from which the
// rule's findings do.
func stopsStart(v any) (diag.Severity, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case bool:
		if v {
			return diag.SeverityInfo, nil
		}
		return 0, nil
	case string:
		return diag.ParseSeverity(v)
	}
	return 0, fmt.Errorf("%v: want true, false or a severity name", v)
}

func definesDeny(mod *ast.Module) bool {
	for _, rule := range mod.Rules {
		if rule.Head.Name.String() == "deny" || rule.Head.Ref().String() == "deny" {
			return true
		}
	}
	return false
}

// denySpan is the span of the word deny in mod's first deny rule, else
// the file.
func denySpan(file string, mod *ast.Module) deploy.Span {
	for _, rule := range mod.Rules {
		if rule.Head.Name.String() != "deny" && rule.Head.Ref().String() != "deny" {
			continue
		}
		if loc := rule.Head.Location; loc != nil {
			return deploy.Span{File: file, Line: loc.Row, Col: loc.Col, EndLine: loc.Row, EndCol: loc.Col + len("deny")}
		}
	}
	return deploy.Span{File: file}
}
