package sarif

import (
	"os"
	"testing"

	"github.com/kvlint/kvlint/internal/worker"
)

// TestMain makes the test binary the worker it re-execs (internal/worker),
// as kvlint's main does: the corpus includes every end-to-end script's
// files, the hostile ones among them (a Helm repeat bomb, a Terraform
// setproduct), whose render must run in a bounded worker here as in
// kvlint, not in this process, which it would exhaust.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == worker.Arg {
		os.Exit(worker.Serve(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	worker.Enable()
	os.Exit(m.Run())
}
