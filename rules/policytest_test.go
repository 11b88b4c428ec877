package rules

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRunPolicyTests(t *testing.T) {
	dir := writePolicies(t, map[string]string{
		"require_metrics.rego": customRule,
		"lib/helpers.rego":     customHelper,
		"require_metrics_test.rego": `package kvlint.rules.require_metrics_test

import data.kvlint.lib
import data.kvlint.rules.require_metrics
import data.kvlint.test

test_fires_without_metrics if {
	count(require_metrics.deny) == 1 with input as test.input_with([test.server({})])
}

test_quiet_with_metrics if {
	s := test.server({"args": {"--enable-metrics": {"value": "true", "known": true}}})
	count(require_metrics.deny) == 0 with input as test.input_with([s])
}

test_uses_the_library if {
	lib.program("sglang") == "sglang.launch_server"
}

test_wrong if {
	print("counting")
	count(require_metrics.deny) == 2 with input as test.input_with([test.server({})])
}
`,
	})
	res, err := RunPolicyTests(context.Background(), Options{PolicyDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]PolicyTest{}
	for _, r := range res {
		got[r.Name] = r
	}
	if len(res) != 4 {
		t.Fatalf("%d results, want the directory's 4 tests only: %+v", len(res), res)
	}
	for _, name := range []string{"test_fires_without_metrics", "test_quiet_with_metrics", "test_uses_the_library"} {
		if r := got[name]; !r.Passed || r.Err != nil {
			t.Errorf("%s: %+v, want a pass", name, r)
		}
	}
	w := got["test_wrong"]
	if w.Passed || w.Package != "kvlint.rules.require_metrics_test" || w.Line != 20 ||
		!strings.HasSuffix(w.File, "require_metrics_test.rego") ||
		!strings.Contains(string(w.Output), "counting") {
		t.Errorf("test_wrong = %+v, want a failure at line 20 with its print output", w)
	}
}

func TestRunPolicyTestsRejectsBadPolicies(t *testing.T) {
	dir := writePolicies(t, map[string]string{
		"x.rego":      customHelper,
		"x_test.rego": "package acme.x_test\n\ntest_x if http.send({\"method\": \"GET\", \"url\": \"u\"})\n",
	})
	_, err := RunPolicyTests(context.Background(), Options{PolicyDirs: []string{dir}})
	var pe *PolicyError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "x_test.rego:3: http.send") {
		t.Errorf("RunPolicyTests = %v, want the http.send PolicyError", err)
	}
	dir = writePolicies(t, map[string]string{
		"x.rego":      customHelper,
		"x_test.rego": "package acme.x_test\n\ntest_x if data.acme.x.nope(1)\n",
	})
	if _, err := RunPolicyTests(context.Background(), Options{PolicyDirs: []string{dir}}); !errors.As(err, &pe) {
		t.Errorf("a test that does not compile: %v, want a PolicyError", err)
	}
}
