package rules

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// fixturesFile holds the test fixtures of kvlint's own rule tests
// (package kvlint.test: input_with, server, base_capacity, …); custom
// policy tests may import them too.
const fixturesFile = libDir + "/fixtures_test.rego"

// PolicyTest is the outcome of one Rego test (a test_… rule) of a custom
// policy directory.
type PolicyTest struct {
	Package  string // kvlint.rules.require_metrics_test
	Name     string // test_fires_without_metrics
	File     string
	Line     int
	Passed   bool
	Skipped  bool  // todo_test_…
	Err      error // the test could not run to a result (a builtin error, the timeout)
	Duration time.Duration
	Output   []byte // what print() wrote
}

// RunPolicyTests runs the *_test.rego files under opts.PolicyDirs, as `opa
// test` would, with kvlint's library, its rules and its test fixtures
// (package kvlint.test) loaded beside the policies, under the engine's
// compiler and restrictions; each test is bounded by the engine's timeout.
// Policies that would not load into the engine are a *PolicyError, so a
// policy that passes its tests is one `kvlint check --policy` accepts.
// Results come sorted by file and line.
func RunPolicyTests(ctx context.Context, opts Options) ([]PolicyTest, error) {
	if _, err := New(ctx, opts); err != nil {
		return nil, err
	}
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		return nil, err
	}
	custom, err := loadCustomPolicies(opts.PolicyDirs, set.modules)
	if err != nil {
		return nil, err
	}
	all := maps.Clone(set.modules)
	maps.Copy(all, custom.modules)
	maps.Copy(all, custom.tests)
	if fx, ok := set.tests[fixturesFile]; ok {
		all[fixturesFile] = fx
	}
	ch, err := tester.NewRunner().
		SetCompiler(newCompiler().WithEnablePrintStatements(true)).
		SetModules(all).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		SetTimeout(opts.timeout()).
		RunTests(ctx, nil)
	if err != nil {
		return nil, &PolicyError{fmt.Errorf("compiling the policies with their tests: %w", err)}
	}
	var results []PolicyTest
	for r := range ch {
		if r.Location == nil || custom.tests[r.Location.File] == nil {
			continue // kvlint's own tests
		}
		results = append(results, PolicyTest{
			Package: trimData(r.Package), Name: r.Name,
			File: r.Location.File, Line: r.Location.Row,
			Passed:   r.Pass(),
			Skipped:  r.Skip,
			Err:      r.Error,
			Duration: r.Duration,
			Output:   r.Output,
		})
	}
	slices.SortFunc(results, func(a, b PolicyTest) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
	})
	return results, nil
}

func trimData(pkg string) string {
	if ref, err := ast.ParseRef(pkg); err == nil && len(ref) > 1 {
		return ref[1:].String()
	}
	return pkg
}
