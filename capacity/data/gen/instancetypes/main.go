// Command instancetypes regenerates capacity/data/instance-types.json from
// the hand-maintained capacity/data/instance-types.tsv, checking each row
// against the GPU catalog. Run from the repository root:
//
//	go run ./capacity/data/gen/instancetypes
package main

import (
	"fmt"
	"os"

	"github.com/kvlint/kvlint/capacity"
)

func main() {
	if err := run("capacity/data"); err != nil {
		fmt.Fprintln(os.Stderr, "instancetypes:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	tsv, err := os.ReadFile(dir + "/instance-types.tsv")
	if err != nil {
		return err
	}
	gpus, err := os.ReadFile(dir + "/gpus.json")
	if err != nil {
		return err
	}
	out, err := capacity.GenerateInstanceTypes(tsv, gpus)
	if err != nil {
		return err
	}
	return os.WriteFile(dir+"/instance-types.json", out, 0o644)
}
