package capacity

import (
	"fmt"
	"math"
	"strconv"
)

// Defaults and the default --mem-fraction-static, from
// python/sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings
// (L3867-4062), reserve_for_graph_mb (L4131-4163),
// reserve_for_deepep_a2a_mb (L4165-4177) and the capture-size generators
// (L4179-4248), at modal-projects/sglang 8905cbd4.

// memDefaults are the GPU-memory-dependent defaults: chunked prefill size and
// decode CUDA-graph max batch size, by nvidia-smi memory.total in MiB.
// gpuMiB 0 means unknown (SGLang's fallback: 4096 and 160).
func memDefaults(gpuMiB int64, tp int) (chunked, decodeMaxBS int) {
	const gib = 1024
	big := tp >= 4
	pick := func(small, large int) int {
		if big {
			return large
		}
		return small
	}
	switch {
	case gpuMiB <= 0:
		return 4096, 160
	case gpuMiB < 20*gib: // T4, 4080
		return 2048, 8
	case gpuMiB < 35*gib: // A10, 4090, 5090
		return 2048, pick(24, 80)
	case gpuMiB < 60*gib: // A100 40GB, L40
		return 4096, pick(32, 160)
	case gpuMiB < 90*gib: // H100, A100 80GB
		return 8192, pick(256, 512)
	case gpuMiB < 160*gib: // H20, H200
		return 8192, pick(256, 512)
	default: // B200, MI300
		return 16384, 512
	}
}

// prefillCaptureSizes is _generate_prefill_cuda_graph_batch_sizes.
func prefillCaptureSizes(maxBS int) []int {
	var s []int
	s = appendRange(s, 4, 33, 4)
	s = appendRange(s, 48, 257, 16)
	s = appendRange(s, 288, 513, 32)
	s = appendRange(s, 576, 1025, 64)
	s = appendRange(s, 1280, 4097, 256)
	s = appendRange(s, 4608, maxBS+1, 512)
	out := s[:0]
	for _, v := range s {
		if v <= maxBS {
			out = append(out, v)
		}
	}
	return out
}

// appendRange appends Python's range(start, stop, step).
func appendRange(s []int, start, stop, step int) []int {
	for i := start; i < stop; i += step {
		s = append(s, i)
	}
	return s
}

// memFractionInput is what the default --mem-fraction-static depends on,
// every value already resolved as ServerArgs holds it at that point.
type memFractionInput struct {
	GPUMiB            int64 // nvidia-smi memory.total; 0 = unknown
	TP, PP, DP        int
	DPAttention       bool   // resolved: --enable-dp-attention with dp > 1
	DisaggMode        string // "null", "prefill", "decode"
	ChunkedPrefill    int    // resolved --chunked-prefill-size (-1 = off)
	MaxPrefillTokens  int64
	MaxRunningReqs    int64 // --max-running-requests, 0 = unset
	SpecDraftTokens   int64 // --speculative-num-draft-tokens, 0 = unset
	DecodeGraph       bool  // decode CUDA graph backend is not "disabled"
	DecodeMaxBS       int
	PrefillGraph      bool // prefill CUDA graph backend is not "disabled"
	PrefillCaptures   int  // len(cuda_graph_config.prefill.bs)
	MLA               bool
	DeepEP            bool // --moe-a2a-backend deepep
	VisionAdjustment  bool // multimodal model, not --language-only
	VisionLayers      int
	VisionHidden      int
	VisionConfigFound bool
}

// defaultMemFraction computes SGLang's default --mem-fraction-static and the
// steps that led to it.
func defaultMemFraction(in memFractionInput) (float64, []string) {
	if in.GPUMiB <= 0 {
		return 0.88, []string{"mem_fraction_static = 0.88 (SGLang's value when the GPU memory is unknown)"}
	}
	var steps []string
	var activation float64
	switch {
	case in.DisaggMode == "decode":
		running := in.MaxRunningReqs
		if running == 0 {
			running = int64(in.DecodeMaxBS)
		}
		if running == 0 {
			running = 1
		}
		draft := max(in.SpecDraftTokens, 1)
		activation = math.Max(float64(running*draft), 2048)
		steps = append(steps, fmt.Sprintf("activation tokens (decode mode) = max(%d running × %d draft tokens, 2048) = %.0f", running, draft, activation))
	case in.ChunkedPrefill > 0:
		activation = math.Max(float64(in.ChunkedPrefill), 2048)
		steps = append(steps, fmt.Sprintf("activation tokens = max(chunked_prefill_size %d, 2048) = %.0f", in.ChunkedPrefill, activation))
	default:
		activation = math.Max(float64(in.MaxPrefillTokens), 2048)
		steps = append(steps, fmt.Sprintf("activation tokens = max(max_prefill_tokens %d, 2048) = %.0f", in.MaxPrefillTokens, activation))
	}
	reserved := 512 + activation*1.5 + float64(in.TP*in.PP)/8*1024
	graph := reserveForGraphMB(in)
	reserved += graph
	steps = append(steps, fmt.Sprintf("reserved = 512 + 1.5 × %.0f + tp %d × pp %d / 8 × 1024 + CUDA-graph reserve %.0f = %.0f MiB", activation, in.TP, in.PP, graph, reserved))
	if in.GPUMiB > 60*1024 && reserved < 10*1024 {
		reserved = 10 * 1024
		steps = append(steps, "reserved raised to the 10,240 MiB floor of GPUs above 60 GiB")
	}
	if in.DeepEP && in.DisaggMode != "prefill" && in.DecodeGraph {
		reserved += 2048
		steps = append(steps, "+ 2,048 MiB for DeepEP all-to-all buffers")
	}
	frac := pyRound3((float64(in.GPUMiB) - reserved) / float64(in.GPUMiB))
	steps = append(steps, fmt.Sprintf("mem_fraction_static = round((%d − %.0f) / %d, 3) = %.3f", in.GPUMiB, reserved, in.GPUMiB, frac))
	if in.VisionAdjustment && in.VisionConfigFound {
		// adjust_mem_fraction_for_vlm (server_args.py L7921-7957).
		frac, steps = vlmAdjust(in, frac, steps)
	}
	return frac, steps
}

// vlmAdjust lowers a multimodal model's fraction by the size of its vision
// tower: adjust_mem_fraction_for_vlm on main, the same formula inline in
// __post_init__ since 3964b352c (#6881, first in 0.4.9.post3).
func vlmAdjust(in memFractionInput, frac float64, steps []string) (float64, []string) {
	layers, hidden := in.VisionLayers, in.VisionHidden
	if layers == 0 {
		layers = 24
	}
	if hidden == 0 {
		hidden = 1024
	}
	ratio := float64(layers) * float64(hidden) * float64(hidden) / (24 * 1024 * 1024)
	dyn := math.Max(0.8, math.Min(1.05, 1.0-0.1*(ratio-1.0)))
	before := frac
	frac = frac * (0.95 * dyn)
	steps = append(steps, fmt.Sprintf("multimodal: × 0.95 × clamp(1 − 0.1 × (ViT %d layers × %d² / ViT-L − 1), 0.8, 1.05) = %.3f × %.4f = %.4f", layers, hidden, before, 0.95*dyn, frac))
	return frac, steps
}

// reserveForGraphMB is ServerArgs.reserve_for_graph_mb.
func reserveForGraphMB(in memFractionInput) float64 {
	var r float64
	if in.DisaggMode != "prefill" && in.DecodeGraph {
		r += float64(in.DecodeMaxBS) * 2
	}
	if in.DPAttention && in.DisaggMode != "prefill" {
		r += float64(in.DecodeMaxBS*in.DP) * 3
		if in.DecodeMaxBS > 300 {
			r += float64(in.DecodeMaxBS*in.DP) * 1.5
		}
	}
	if in.DisaggMode != "decode" && in.PrefillGraph {
		if in.MLA {
			r += 1.5 * 1024
		} else {
			r += float64(in.PrefillCaptures) * 8
		}
	}
	return r
}

// pyRound3 is Python's round(x, 3): the shortest-repr-free, correctly
// rounded decimal, ties to even on the exact binary value, as strconv does.
func pyRound3(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	if err != nil {
		return x
	}
	return v
}
