// Command kvlint audits LLM-serving deployments for KV-cache capacity and
// tenant-isolation mistakes. See README.md for usage.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
