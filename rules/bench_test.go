package rules

import (
	"context"
	"testing"
)

// BenchmarkEvaluate evaluates every rule over 1,000 servers, each with four
// findings (KV101, KV104, KV402, KV403): the cost of one run of a large
// repository, compiling excluded.
func BenchmarkEvaluate(b *testing.B) {
	e := engine(b)
	servers, est := manyServers(1000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		findings, err := e.Evaluate(ctx, servers, est, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		if len(findings) != 4000 {
			b.Fatalf("%d findings, want 4000", len(findings))
		}
	}
}

// BenchmarkNew is the one-time cost of compiling the embedded policies.
func BenchmarkNew(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
