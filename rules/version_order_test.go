package rules

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kvlint/kvlint/deploy"
)

// TestVersionOrderAgrees: the policies' version_key and Go's
// deploy.CompareVersions order every pair of release numbers alike, so a
// rule and the capacity model never disagree on which release is older
// (an rc before its release, rc0 before rc1, a .post after it).
func TestVersionOrderAgrees(t *testing.T) {
	versions := []string{
		"0.4.6", "0.4.7a1", "0.4.7b0", "0.4.7rc0", "0.4.7rc1", "0.4.7rc2", "v0.4.7",
		"0.4.7.post1", "0.4.7.post2", "0.4.8", "0.5.0rc0", "0.5.0", "0.10.1", "0.10.1.1", "0.10.2",
	}
	ctx := context.Background()
	q := prepareQuery(t, "less := data.kvlint.lib.version_key(input.a) < data.kvlint.lib.version_key(input.b)")
	for _, a := range versions {
		for _, b := range versions {
			rs, err := q.Eval(ctx, rego.EvalInput(map[string]any{"a": a, "b": b}))
			if err != nil || len(rs) != 1 {
				t.Fatalf("%s < %s: %v %v", a, b, rs, err)
			}
			rego := rs[0].Bindings["less"].(bool)
			goLess := deploy.CompareVersions(a, b) < 0
			if rego != goLess {
				t.Errorf("%s < %s: Rego says %v, CompareVersions %v", a, b, rego, goLess)
			}
		}
	}
	// The list is in order: both agree with it, not only with each other.
	for i := 1; i < len(versions); i++ {
		if deploy.CompareVersions(versions[i-1], versions[i]) >= 0 {
			t.Errorf("CompareVersions(%s, %s) >= 0", versions[i-1], versions[i])
		}
	}
}

// prepareQuery compiles the built-in policies as the engine does and
// prepares query against them.
func prepareQuery(t *testing.T, query string) rego.PreparedEvalQuery {
	t.Helper()
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		t.Fatal(err)
	}
	compiler := newCompiler()
	if compiler.Compile(set.modules); compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	q, err := rego.New(rego.Query(query), rego.Compiler(compiler)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return q
}
