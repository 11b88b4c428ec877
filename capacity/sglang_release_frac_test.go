package capacity

import (
	"math"
	"testing"
)

// Each case is worked by hand from the release's server_args.py at its
// version-bump commit (see sglangFracRules).
func TestLegacyMemFraction(t *testing.T) {
	h100 := int64(81559)
	b200 := int64(183359)
	cases := []struct {
		version string
		in      legacyFracInput
		want    float64
		unknown bool
	}{
		{"0.3.0", legacyFracInput{TP: 8, PP: 1, ModelKnown: true}, 0.83, false},
		{"0.3.6", legacyFracInput{TP: 8, PP: 1, ModelKnown: true}, 0.81, false},
		{"0.4.0", legacyFracInput{TP: 1, PP: 1}, 0.88, false}, // GPU and model not needed
		{"0.4.5.post3", legacyFracInput{GPUMiB: h100, TP: 2, PP: 1, ModelKnown: true}, 0.87, false},
		{"0.4.5.post3", legacyFracInput{GPUMiB: 97871, TP: 2, PP: 1, ModelKnown: true}, (97871.0 - 13312) / 97871, false},
		{"0.4.5.post3", legacyFracInput{TP: 2, PP: 1, ModelKnown: true}, 0, true},
		{"0.4.6.post2", legacyFracInput{GPUMiB: 143771, TP: 1, PP: 1, ModelKnown: true}, math.Min(0.88+49152*0.12/143771, (143771.0-18432)/143771), false},
		{"0.4.7", legacyFracInput{GPUMiB: b200, CUDA: true, TP: 1, PP: 1, ModelKnown: true}, 0.79, false},
		{"0.4.7", legacyFracInput{GPUMiB: h100, TP: 4, PP: 1, Spec: "EAGLE", ModelKnown: true}, 0.85 * 0.95, false},
		// (81559 − (9.5 + 0.5) × 1024) / 81559 = 0.8744… → 0.874
		{"0.4.7.post1", legacyFracInput{GPUMiB: h100, TP: 1, PP: 1, ModelKnown: true}, 0.874, false},
		// (9.5 + 8/2) GiB + 2 GiB EAGLE + 4 GiB DP attention: (81559 − 19968) / 81559 → 0.755
		{"0.5.0rc0", legacyFracInput{GPUMiB: h100, TP: 8, PP: 1, Spec: "EAGLE", DPAttn: true, ModelKnown: true}, 0.755, false},
		// STANDALONE reserves 6 GiB from 0.5.2 on: (81559 − 16384) / 81559 → 0.799
		{"0.5.2", legacyFracInput{GPUMiB: h100, TP: 1, PP: 1, Spec: "STANDALONE", ModelKnown: true}, 0.799, false},
		{"0.4.9", legacyFracInput{GPUMiB: h100, TP: 1, PP: 1, Multimodal: true, ModelKnown: true}, 0.874 * 0.9, false},
		{"0.4.8", legacyFracInput{GPUMiB: h100, TP: 1, PP: 1, Multimodal: true, ModelKnown: true}, 0, true},
		{"0.4.9", legacyFracInput{GPUMiB: h100, TP: 1, PP: 1}, 0, true},
	}
	for _, c := range cases {
		c.in.Version = c.version
		got, steps, why := legacyMemFraction(sglangFracRule(c.version), c.in)
		if c.unknown {
			if why == "" {
				t.Errorf("%s %+v: got %v, want unknown", c.version, c.in, got)
			}
			continue
		}
		if why != "" || math.Abs(got-c.want) > 1e-9 || len(steps) == 0 {
			t.Errorf("%s %+v: got %v (%q), want %v", c.version, c.in, got, why, c.want)
		}
	}
}

func TestSGLangFracRule(t *testing.T) {
	for v, want := range map[string]memFractionRule{
		"": fracMain, "main": fracMain, "0.3.0": fracTP83, "0.3.5.post2": fracTP83, "0.3.6": fracTP,
		"0.4.5.post2": fracTP, "0.4.5.post3": fracTPLargeGPU, "0.4.6.post1": fracTPLargeGPU,
		"0.4.6.post2": fracParallel, "0.4.7": fracB200, "0.4.7.post1": fracReservedTable,
		"0.5.3rc1": fracReservedTable, "0.5.3rc2": fracMain, "0.5.6": fracMain,
	} {
		if got := sglangFracRule(v); got != want {
			t.Errorf("sglangFracRule(%q) = %d, want %d", v, got, want)
		}
	}
}
