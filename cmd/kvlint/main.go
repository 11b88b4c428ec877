// Command kvlint audits LLM-serving deployments for KV-cache capacity and
// tenant-isolation mistakes. See README.md for usage.
package main

import (
	"os"

	"github.com/kvlint/kvlint/internal/memlimit"
	"github.com/kvlint/kvlint/internal/worker"
)

func main() {
	worker.Enable()
	stop := memlimit.Follow()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
