package terraform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkChainedLocals checks that evaluating locals grows about linearly
// with their number: n locals, each reading the one before
// (l0 = "x", l1 = local.l0, ...); the 20k case should take about ten times
// the 2k one.
func BenchmarkChainedLocals(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		var src strings.Builder
		src.WriteString("locals {\n  l0 = \"x\"\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&src, "  l%d = local.l%d\n", i, i-1)
		}
		src.WriteString("}\n")
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("locals=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, errs := ParseModule(dir, Options{}); len(errs) > 0 {
					b.Fatalf("errors: %v", errs)
				}
			}
		})
	}
}
