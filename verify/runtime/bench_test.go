package runtime

import (
	"testing"
	"time"
)

// benchScenario reports the runtime's speed in simulated tokens (prefilled plus decoded)
// per wall-clock second, and how much virtual time one wall-clock second covers.
func benchScenario(b *testing.B, file string, faults ...Fault) {
	sc, err := LoadScenario(file)
	if err != nil {
		b.Fatal(err)
	}
	sc.Faults = faults
	var tokens, virtual int64
	start := time.Now()
	for b.Loop() {
		res, err := Run(sc)
		if err != nil {
			b.Fatal(err)
		}
		tokens += res.Summary.PrefillTokens + res.Summary.DecodeTokens
		virtual += res.Summary.VirtualUs
	}
	wall := time.Since(start).Seconds()
	b.ReportMetric(float64(tokens)/wall, "simtok/s")
	b.ReportMetric(float64(virtual)/1e6/wall, "virtual-s/s")
}

func BenchmarkScenarioHealthy(b *testing.B)  { benchScenario(b, "testdata/healthy.yaml") }
func BenchmarkScenarioIncident(b *testing.B) { benchScenario(b, "testdata/incident.yaml") }
func BenchmarkScenarioIncidentStalePages(b *testing.B) {
	benchScenario(b, "testdata/incident.yaml", FaultStalePages)
}
func BenchmarkScenarioIncidentSized(b *testing.B) { benchScenario(b, "testdata/incident-sized.yaml") }
