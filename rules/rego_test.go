package rules

import (
	"bytes"
	"context"
	"io/fs"
	"maps"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestRegoPolicies runs every *_test.rego through OPA's test runner, under
// the same compiler settings as the engine, and fails on any failing or
// erroring Rego test.
func TestRegoPolicies(t *testing.T) {
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		t.Fatal(err)
	}
	all := maps.Clone(set.modules)
	maps.Copy(all, set.tests)

	ch, err := tester.NewRunner().
		SetCompiler(newCompiler()).
		SetModules(all).
		RaiseBuiltinErrors(true).
		RunTests(context.Background(), nil)
	if err != nil {
		t.Fatalf("compiling policies with their tests: %v", err)
	}
	ran := 0
	for r := range ch {
		ran++
		name := r.Package + "." + r.Name
		switch {
		case r.Error != nil:
			t.Errorf("%s: error: %v", name, r.Error)
		case r.Fail:
			t.Errorf("%s: FAIL at %v", name, r.Location)
		case r.Skip:
			t.Errorf("%s: skipped (todo_ tests are not allowed)", name)
		}
	}
	t.Logf("%d Rego tests ran", ran)
	if ran == 0 {
		t.Fatal("no Rego tests ran")
	}
}

// TestEveryRuleHasTests checks that each rule has <name>_test.rego beside it
// with at least one case where the rule fires (test_fires_…) and one where it
// stays quiet (test_quiet_…).
func TestEveryRuleHasTests(t *testing.T) {
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range set.ruleFiles() {
		testFile := strings.TrimSuffix(file, ".rego") + "_test.rego"
		mod, ok := set.tests[testFile]
		if !ok {
			t.Errorf("%s has no %s", file, path.Base(testFile))
			continue
		}
		var fires, quiet bool
		for _, r := range mod.Rules {
			name := r.Head.Name.String()
			if name == "" {
				name = r.Head.Ref().String()
			}
			fires = fires || strings.HasPrefix(name, "test_fires_")
			quiet = quiet || strings.HasPrefix(name, "test_quiet_")
		}
		if !fires || !quiet {
			t.Errorf("%s: want at least one test_fires_… and one test_quiet_… case (fires=%v quiet=%v)", testFile, fires, quiet)
		}
		wantPkg := set.modules[file].Package.Path.String() + "_test"
		if got := mod.Package.Path.String(); got != wantPkg {
			t.Errorf("%s: package %s, want %s", testFile, got, wantPkg)
		}
	}
}

// TestPoliciesAreFormatted keeps the policies in `opa fmt` form, checked
// with OPA's formatter so no opa binary is needed.
func TestPoliciesAreFormatted(t *testing.T) {
	err := fs.WalkDir(policyFS, "policies", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		src, err := fs.ReadFile(policyFS, p)
		if err != nil {
			return err
		}
		formatted, err := format.SourceWithOpts(p, src, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if !bytes.Equal(formatted, src) {
			t.Errorf("%s is not formatted as opa fmt would; formatted:\n%s", p, formatted)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
