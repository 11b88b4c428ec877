package rules

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/worker"
)

// TestMain lets the test binary serve the worker it re-execs, as kvlint's
// main does. Workers stay off (KVLINT_WORKER=off) except in the tests that
// turn them on, so the other tests evaluate in process as before.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == worker.Arg {
		os.Exit(worker.Serve(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	worker.Enable()
	os.Setenv("KVLINT_WORKER", "off")
	os.Exit(m.Run())
}

// TestCustomPoliciesInWorker checks that a worker evaluates custom rules as
// the process does (the same findings, and a failing builtin at the same
// expression), and that a rule that exhausts the worker's memory is an
// error at its deny rule while the other rules' findings survive.
func TestCustomPoliciesInWorker(t *testing.T) {
	bad := `# METADATA
# title: bad
# description: d
# custom:
#   id: ACME002
#   severity: high
#   remediation: r
package kvlint.rules.bad

deny contains {"msg": "x", "server": s.index} if {
	some s in input.servers
	to_number("nope") > 1
}
`
	bomb := `# METADATA
# title: bomb
# description: d
# custom:
#   id: ACME003
#   severity: high
#   remediation: r
package kvlint.rules.bomb

deny contains {"msg": sprintf("%d", [count(r)]), "server": s.index} if {
	some s in input.servers
	r := numbers.range(1, 1e11)
}
`
	dir := writePolicies(t, map[string]string{
		"require_metrics.rego": customRule,
		"lib/helpers.rego":     customHelper,
		"bad.rego":             bad,
	})
	srv, est := incidentDecode()
	servers, ests := []*deploy.Server{srv}, []capacity.Estimate{est}
	evaluate := func(dirs ...string) []string {
		t.Helper()
		e, err := New(context.Background(), Options{PolicyDirs: dirs})
		if err != nil {
			t.Fatal(err)
		}
		findings, err := e.Evaluate(context.Background(), servers, ests, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range findings {
			out = append(out, fmt.Sprintf("%s %s %s", f.Span, f.Rule, f.Message))
		}
		return out
	}
	inProcess := evaluate(dir)
	t.Setenv("KVLINT_WORKER", "on")
	t.Setenv("KVLINT_WORKER_MEM", "200000000")
	if !worker.Available() {
		t.Skip("no worker processes on this platform")
	}
	inWorker := evaluate(dir)
	if fmt.Sprint(inProcess) != fmt.Sprint(inWorker) {
		t.Errorf("in process:\n%q\nin a worker:\n%q", inProcess, inWorker)
	}
	want := dir + "/bad.rego:12:2  policy ACME002 (kvlint.rules.bad) failed, so it was not applied: to_number: strconv.ParseFloat: parsing \"nope\": invalid syntax"
	if !contains(inWorker, want) {
		t.Errorf("no %q in %q", want, inWorker)
	}

	bombDir := writePolicies(t, map[string]string{"bomb.rego": bomb})
	got := evaluate(dir, bombDir)
	// The memory limit stops it, or on a loaded machine a time limit first:
	// either way an error at its deny rule.
	stopped := bombDir + "/bomb.rego:10:1  policy ACME003 (kvlint.rules.bomb) "
	found := false
	for _, f := range got {
		found = found || strings.HasPrefix(f, stopped) && strings.Contains(f, "so it was not applied")
	}
	if !found {
		t.Errorf("no %q… in %q", stopped, got)
	}
	for _, f := range inWorker {
		if !contains(got, f) {
			t.Errorf("%q is lost beside the bomb: %q", f, got)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
