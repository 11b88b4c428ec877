package verify

import (
	"fmt"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// Efficiencies of the roofline timing model: the share of the data sheet's peak a serving
// engine reaches. Prefill is a large GEMM workload; half of dense peak is a round figure for
// the model FLOPs utilisation of prefill, and 80% of peak bandwidth for the streaming reads
// of decode. They scale every cost alike: the probe's verdict depends on the ratio of hit to
// miss time and on the background noise, not on these constants.
const (
	prefillEfficiency = 0.5
	decodeEfficiency  = 0.8
	// stepOverheadUs is the fixed cost of one scheduler step (batch formation, kernel
	// launches, sampling).
	stepOverheadUs = 1000
)

// TimingBasis says where the probe's costs come from: the deployment's model on its GPU, or,
// when either is unknown, the runtime's reference costs, named as an assumption.
type TimingBasis struct {
	// Source is "modelled" (model × GPU) or "assumed" (one of them unknown).
	Source string `json:"source"`
	// Model, GPU and TP are the server's the costs were modelled on; nil
	// (null) when the deployment has no server to read them from or the
	// estimate does not know them.
	Model *string `json:"model"`
	GPU   *string `json:"gpu"`
	TP    *int    `json:"tp"`
	// ActiveParams are the parameters one token multiplies through (MoE: the routed
	// experts it picks, not all of them); nil when unknown.
	ActiveParams *int64   `json:"active_params"`
	TFLOPS       *float64 `json:"dense_bf16_tflops"`
	BandwidthGBs *float64 `json:"memory_bandwidth_gbs"`
	// PrefillUsPerToken is the linear cost of one real (unscaled) prompt token,
	// AttentionUsPerPair that of one token attending to one earlier token.
	PrefillUsPerToken  float64 `json:"prefill_us_per_token"`
	AttentionUsPerPair float64 `json:"attention_us_per_pair"`
	DecodeStepUs       float64 `json:"decode_step_us"`
	Why                string  `json:"why,omitempty"`
}

// probeTiming is a deployment's modelled costs, in the scaled runtime's units.
type probeTiming struct {
	timing rt.Timing
	basis  TimingBasis
}

// modelTiming derives the runtime's costs from the prefill servers' model and GPU:
//
//	prefill per token   2 · active params FLOPs           / (TP · peak · prefillEfficiency)
//	attention per pair  4 · layers · heads · head_dim     / (TP · peak · prefillEfficiency)
//	decode step         weights bytes per GPU             / (bandwidth · decodeEfficiency)
//	decode per KV token KV cell bytes per token (per GPU) / (bandwidth · decodeEfficiency)
//
// (QKᵀ and AV are each 2·d FLOPs per pair per layer.) A scaled token stands for Factor real
// ones, so per-token costs are multiplied by Factor and per-pair costs by Factor².
func modelTiming(d *deployment, res *analysis.Result) probeTiming {
	f := float64(max(d.scaling.Factor, 1))
	var srv *deploy.Server
	var est capacity.Estimate
	for _, i := range d.servers {
		s := res.Servers[i]
		if s.Role == deploy.RoleRouter || s.Engine == deploy.EngineSGLangRouter || s.Role == deploy.RoleDecode {
			continue
		}
		srv, est = s, res.Estimates[i]
		break
	}
	if srv == nil {
		for _, i := range d.servers {
			if s := res.Servers[i]; s.Engine == deploy.EngineSGLang {
				srv, est = s, res.Estimates[i]
				break
			}
		}
	}
	b := TimingBasis{Source: "assumed"}
	tp := 1 // the prefill cost's divisor while TP is unknown
	var m *capacity.Model
	var g *capacity.GPU
	if srv != nil {
		cat := capacity.Default()
		if est.Model != "" {
			b.Model = &est.Model
			m, _ = cat.Model(est.Model)
		}
		if est.GPU != "" {
			b.GPU = &est.GPU
			g, _ = cat.GPU(est.GPU)
		}
		if est.TP > 0 {
			tp = est.TP
			b.TP = &tp
		}
	}
	var why string
	switch {
	case m == nil:
		why = "the model is unknown"
	case m.Params <= 0 || m.Layers <= 0 || m.Heads <= 0:
		why = fmt.Sprintf("the catalog lacks %s's parameter count or shape", m.ID)
	case g == nil:
		why = "the GPU is unknown"
	case g.DenseBF16TFLOPS <= 0 || g.MemoryBandwidthGBs <= 0:
		why = fmt.Sprintf("the catalog has no data-sheet throughput for %s", g.Name)
	}
	t := rt.Timing{}
	if why != "" {
		// The runtime's reference costs (runtime/scenario_check.go Timing.fill), in real
		// tokens: 20 µs per prompt token, no attention term.
		b.Why = why + ": the runtime's reference costs are assumed"
		b.PrefillUsPerToken, b.DecodeStepUs = 20, 10000
		t.PrefillPerTokenUs = 20 * f
		t.PrefillStepUs = stepOverheadUs
		t.DecodeStepUs = 10000
	} else {
		b.Source = "modelled"
		active := m.Params
		if m.Experts > 0 && m.ExpertsPerToken > 0 && m.ExpertParams > 0 {
			active = m.Params - m.ExpertParams + m.ExpertParams*int64(m.ExpertsPerToken)/int64(m.Experts)
		}
		tf, bw := g.DenseBF16TFLOPS, g.MemoryBandwidthGBs
		b.ActiveParams, b.TFLOPS, b.BandwidthGBs = &active, &tf, &bw
		flopsPerUs := float64(tp) * tf * 1e12 * prefillEfficiency / 1e6
		bytesPerUs := bw * 1e9 * decodeEfficiency / 1e6
		headDim := m.HeadDim
		if headDim <= 0 {
			headDim = m.HiddenSize / m.Heads
		}
		b.PrefillUsPerToken = 2 * float64(active) / flopsPerUs
		b.AttentionUsPerPair = 4 * float64(m.Layers) * float64(m.Heads*headDim) / flopsPerUs
		weights := float64(active) * 2 / float64(tp)
		if est.WeightsBytesPerGPU != nil && *est.WeightsBytesPerGPU > 0 {
			weights = float64(*est.WeightsBytesPerGPU)
		}
		b.DecodeStepUs = stepOverheadUs + weights/bytesPerUs
		t.PrefillStepUs = stepOverheadUs
		t.PrefillPerTokenUs = b.PrefillUsPerToken * f
		t.PrefillAttentionUs = b.AttentionUsPerPair * f * f
		t.DecodeStepUs = b.DecodeStepUs
		if est.CellBytesPerToken != nil && *est.CellBytesPerToken > 0 {
			t.DecodePerContextTokenUs = float64(*est.CellBytesPerToken) / bytesPerUs * f
		}
	}
	// Noise comes from the background tenants the probe runs beside, not from a
	// multiplier on every cost.
	zero := 0.0
	t.Jitter = &zero
	return probeTiming{timing: t, basis: b}
}

// missUs is the modelled prefill time of an uncached prompt of n scaled tokens, and hitUs
// that of the same prompt with its first cached tokens served from the prefix cache.
func (pt probeTiming) missUs(n int) float64 { return pt.prefillUs(0, n) }

func (pt probeTiming) hitUs(n, cached int) float64 { return pt.prefillUs(cached, n-cached) }

func (pt probeTiming) prefillUs(from, n int) float64 {
	t := pt.timing
	fn, fp := float64(n), float64(from)
	return t.PrefillStepUs + fn*t.PrefillPerTokenUs + t.PrefillAttentionUs*fn*(fp+fn/2)
}
