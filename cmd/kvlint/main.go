// Command kvlint audits LLM-serving deployments for KV-cache capacity and
// tenant-isolation mistakes. See README.md for usage.
package main

import (
	"log"
	"os"

	"github.com/kvlint/kvlint/internal/memlimit"
	"github.com/kvlint/kvlint/internal/worker"
	"github.com/kvlint/kvlint/report"
)

func main() {
	worker.Enable()
	// Embedded libraries log to the standard logger (Helm's chart loader
	// names files of the chart in its warnings): escaped like kvlint's own
	// stderr, so a file name cannot write to the terminal or the CI log.
	logw := report.NewSafeWriter(os.Stderr, false)
	log.SetOutput(logw)
	stop := memlimit.Follow()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	logw.Flush()
	os.Exit(code)
}
