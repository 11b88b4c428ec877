package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkVerifyExamples is the wall time of `kvlint verify --format json examples/` (the
// audit's full 250 samples per arm, the default loads), and the simulated tokens per
// wall-clock second the runtime sustained across every run of it.
func BenchmarkVerifyExamples(b *testing.B) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		b.Fatal(err)
	}
	var wall time.Duration
	var tokens int64
	for b.Loop() {
		var out bytes.Buffer
		start := time.Now()
		code := run([]string{"verify", "--format", "json", "--fail-on", "critical", examples}, &out, io.Discard)
		wall += time.Since(start)
		if code != exitClean && code != exitFindings {
			b.Fatalf("kvlint verify exited %d", code)
		}
		var doc struct {
			Verification struct {
				Deployments []struct {
					Runs []struct {
						SimulatedTokens int64 `json:"simulated_tokens"`
					} `json:"runs"`
				} `json:"deployments"`
			} `json:"verification"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			b.Fatal(err)
		}
		for _, d := range doc.Verification.Deployments {
			for _, r := range d.Runs {
				tokens += r.SimulatedTokens
			}
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(float64(tokens)/wall.Seconds(), "simtok/s")
}
