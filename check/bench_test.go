package check

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/kvlint/kvlint/internal/benchrepo"
	"github.com/kvlint/kvlint/internal/memlimit"
	"github.com/kvlint/kvlint/rules"
)

// BenchmarkRun runs the whole pipeline over a generated repository
// (internal/benchrepo, seed 42), under the memory settings of the CLI
// (internal/memlimit). KVLINT_BENCH_FILES sets its size (default
// 2,000); KVLINT_BENCH_DIR reuses a repository generated before, so a
// profile of the 50,000-file tree does not pay for writing it:
//
//	go test -run='^$' -bench=Run -benchtime=1x -memprofile mem.out -cpuprofile cpu.out ./check/
func BenchmarkRun(b *testing.B) {
	dir := os.Getenv("KVLINT_BENCH_DIR")
	if dir == "" {
		n := 2000
		if s := os.Getenv("KVLINT_BENCH_FILES"); s != "" {
			var err error
			if n, err = strconv.Atoi(s); err != nil {
				b.Fatal(err)
			}
		}
		dir = b.TempDir()
		if _, err := benchrepo.Generate(dir, n, 42); err != nil {
			b.Fatal(err)
		}
	}
	defer memlimit.Follow()()
	ctx := context.Background()
	engine, err := rules.New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(ctx, engine, Options{Paths: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Findings)), "findings")
	}
}
