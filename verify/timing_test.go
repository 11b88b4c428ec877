package verify

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
)

// TestModelTimingIsTheRoofline: the incident's prefill servers run a model the catalog
// knows on H100s, so the probe's costs are the roofline's: 2 × active params FLOPs per
// token over TP × dense BF16 peak × efficiency, times the scale factor.
func TestModelTimingIsTheRoofline(t *testing.T) {
	res := checked(t, "../examples/incident")
	var d *deployment
	for _, dep := range groupDeployments(res, Options{}) {
		if runnable(dep) && d == nil {
			var why string
			if d, why = modelDeployment(dep, res, Options{}); why != "" {
				t.Fatal(why)
			}
		}
	}
	if d == nil {
		t.Fatal("no deployment the runtime can model")
	}
	d.timing = modelTiming(d, res)
	b := d.timing.basis
	if b.Source != "modelled" || b.ActiveParams == nil || b.TFLOPS == nil || *b.TFLOPS != 989.4 || b.TP == nil || b.Model == nil || b.GPU == nil {
		t.Fatalf("basis %+v", b)
	}
	want := 2 * float64(*b.ActiveParams) / (float64(*b.TP) * 989.4e12 * prefillEfficiency / 1e6)
	if math.Abs(b.PrefillUsPerToken-want) > 1e-9*want {
		t.Errorf("prefill µs/token %g, want %g", b.PrefillUsPerToken, want)
	}
	f := float64(d.scaling.Factor)
	if got := d.timing.timing.PrefillPerTokenUs; math.Abs(got-want*f) > 1e-9*want*f {
		t.Errorf("scaled prefill µs/token %g, want %g × %g", got, want, f)
	}
	if d.timing.timing.Jitter == nil || *d.timing.timing.Jitter != 0 {
		t.Error("the probe's noise must come from its background traffic, not jitter")
	}
	// A hit on 95% of a prompt saves most of its prefill, never all of it.
	n := d.probeLength()
	miss, hit := d.timing.missUs(n), d.timing.hitUs(n, n*9/10)
	if !(hit > 0 && hit < miss/2) {
		t.Errorf("miss %g µs, hit %g µs", miss, hit)
	}
}

// With no server to read them from, the model, GPU and TP the costs rest
// on are unknown: null in the report, not "" and 1.
func TestTimingBasisUnknownIsNull(t *testing.T) {
	b := modelTiming(&deployment{}, &analysis.Result{}).basis
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"model":null`, `"gpu":null`, `"tp":null`, `"source":"assumed"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("basis %s lacks %s", out, want)
		}
	}
}
