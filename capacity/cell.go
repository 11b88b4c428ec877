package capacity

import (
	"fmt"
	"math"
)

// kvElementSize is torch._utils._element_size of the KV dtype SGLang
// allocates: bf16/fp16 2, fp32 4, every fp8 variant 1, and 1 for
// float4_e2m1fn_x2 (two FP4 values per byte; the cell formula halves it).
func kvElementSize(dtype string) (int64, bool) {
	switch dtype {
	case "bfloat16", "float16":
		return 2, true
	case "float32":
		return 4, true
	case "fp8_e4m3", "fp8_e5m2", "mxfp8":
		return 1, true
	case "fp4_e2m1":
		return 1, true
	}
	return 0, false
}

// isFP4 says the KV dtype is torch.float4_e2m1fn_x2 (--kv-cache-dtype nvfp4
// or fp4_mx_block16).
func isFP4(dtype string) bool { return dtype == "fp4_e2m1" }

// cellInput is what the cell size depends on besides the model.
type cellInput struct {
	// KVDtype is the resolved pool dtype (bfloat16, float16, float32,
	// fp8_e4m3, fp8_e5m2, mxfp8, fp4_e2m1).
	KVDtype string
	// AttnTP is the attention tensor-parallel size: tp / attention-DP / attention-CP.
	AttnTP int
	// Layers is the number of layers on this pipeline stage.
	Layers int
	// HybridSWA says SGLang uses its hybrid sliding-window pool (the model is
	// a hybrid SWA architecture and --disable-hybrid-swa-memory is off).
	HybridSWA bool
	// SWARatio is --swa-full-tokens-ratio.
	SWARatio float64
}

// cell is the per-token size of one rank's KV pool.
type cell struct {
	// Bytes is bytes per token of max_total_num_tokens. It is fractional only
	// for the hybrid sliding-window pool, whose SWA part scales with the ratio.
	Bytes float64
	Kind  string // "mha", "mla", "dsa", "hybrid-swa"
	// For the hybrid pool: per-layer bytes per token and the layer counts.
	FullPerToken, SWAPerToken int64
	FullLayers, SWALayers     int
	Steps                     []string
}

// kvHeadsPerRank is ModelConfig.get_num_kv_heads: KV heads are split over the
// attention TP ranks and replicated when there are fewer heads than ranks
// (configs/model_config.py L1073-1080).
func kvHeadsPerRank(total, attnTP int) int64 {
	if attnTP < 1 {
		attnTP = 1
	}
	return int64(max(1, total/attnTP))
}

// computeCell is SGLang's per-token cell size.
//
// Default pool (MHA/GQA/MQA, MLA, DSA):
// python/sglang/srt/model_executor/pool_configurator.py
// DefaultPoolConfigurator._compute_cell_size L171-285.
// Hybrid sliding-window pool: HybridSWAPoolConfigurator.__init__ L308-399.
func computeCell(m *Model, in cellInput) (cell, error) {
	c, err := computeCellUnchecked(m, in)
	if err == nil && !(c.Bytes > 0) {
		return cell{}, fmt.Errorf("the config's attention shapes give an empty KV cell")
	}
	return c, err
}

func computeCellUnchecked(m *Model, in cellInput) (cell, error) {
	kv, ok := kvElementSize(in.KVDtype)
	if !ok {
		return cell{}, fmt.Errorf("unknown KV dtype %q", in.KVDtype)
	}
	if in.Layers <= 0 {
		return cell{}, fmt.Errorf("no layers on a pipeline stage (%d layers)", m.Layers)
	}
	if in.HybridSWA {
		return hybridSWACell(m, in, kv)
	}
	L := int64(in.Layers)
	if m.isMLA() {
		if m.KVLoraRank == 0 || m.QKRopeHeadDim == 0 {
			return cell{}, fmt.Errorf("MLA model without kv_lora_rank/qk_rope_head_dim")
		}
		latent := int64(m.KVLoraRank + m.QKRopeHeadDim)
		c := latent * L * kv
		steps := []string{fmt.Sprintf("MLA cell = (kv_lora_rank %d + qk_rope_head_dim %d) × %d layers × %d B = %d B/token (the latent is not split over TP; no separate K and V)",
			m.KVLoraRank, m.QKRopeHeadDim, L, kv, c)}
		kind := "mla"
		if isFP4(in.KVDtype) {
			// FP4 latent plus one scale per 16 values (L185-200).
			c = c/2 + (latent/16)*L*kv
			steps = append(steps, fmt.Sprintf("FP4 KV: cell/2 + ((%d)/16) × %d × %d = %d B/token", latent, L, kv, c))
		}
		if m.isDSA() {
			// Indexer keys: index_head_dim bytes plus a 4-byte scale per
			// 128-value block, in uint8 (L203-214; DSATokenToKVPool
			// quant_block_size 128, index_k_with_scale_buffer_dtype uint8,
			// mem_cache/memory_pool.py L4211-4212).
			idx := int64(m.IndexHeadDim + m.IndexHeadDim/128*4)
			c += idx * L
			kind = "dsa"
			steps = append(steps, fmt.Sprintf("DSA indexer: + (index_head_dim %d + %d/128×4) × %d layers × 1 B = %d B/token", m.IndexHeadDim, m.IndexHeadDim, L, c))
		}
		return cell{Bytes: float64(c), Kind: kind, Steps: steps}, nil
	}
	n := kvHeadsPerRank(m.KVHeads, in.AttnTP)
	hd, vhd := int64(m.headDim()), int64(m.vHeadDim())
	c := n * (hd + vhd) * L * kv
	steps := []string{fmt.Sprintf("cell = max(1, %d KV heads // attn_tp %d) = %d × (head_dim %d + v_head_dim %d) × %d layers × %d B = %d B/token",
		m.KVHeads, in.AttnTP, n, hd, vhd, L, kv, c)}
	switch {
	case isFP4(in.KVDtype):
		// FP4 values, one scale per 16, and one shared FP8 dequant
		// workspace across layers (L260-278).
		c = c/2 + (n*hd*L*2*kv)/16 + n*hd*2*kv
		steps = append(steps, fmt.Sprintf("FP4 KV: cell/2 + scales (%d×%d×%d×2×%d)/16 + workspace %d×%d×2×%d = %d B/token", n, hd, L, kv, n, hd, kv, c))
	case in.KVDtype == "mxfp8":
		// One scale byte per 32 values (L279-284).
		c += n * (hd + vhd) * L / 32
		steps = append(steps, fmt.Sprintf("mxfp8 KV: + %d×(%d+%d)×%d/32 scale bytes = %d B/token", n, hd, vhd, L, c))
	}
	return cell{Bytes: float64(c), Kind: "mha", Steps: steps}, nil
}

// hybridSWACell is HybridSWAPoolConfigurator's cell: full layers at full
// size, sliding-window layers scaled by --swa-full-tokens-ratio (the SWA
// pool holds ratio × the full pool's tokens). It counts the model's layers,
// not one pipeline stage's: the configurator reads
// model_config.full_attention_layer_ids / swa_attention_layer_ids (L314-315).
func hybridSWACell(m *Model, in cellInput, kv int64) (cell, error) {
	nSWA, nFull, ok := m.hybridLayerCounts()
	if !ok || nSWA == 0 {
		return cell{}, fmt.Errorf("the config does not say which layers use the sliding window (layer_types)")
	}
	n := kvHeadsPerRank(m.KVHeads, in.AttnTP)
	hd, vhd := int64(m.headDim()), int64(m.vHeadDim())
	fullPer := n * (hd + vhd) * kv
	swaN := n
	if m.SWAKVHeads > 0 {
		swaN = kvHeadsPerRank(m.SWAKVHeads, in.AttnTP)
	}
	swaHD := hd
	if m.SWAHeadDim > 0 {
		swaHD = int64(m.SWAHeadDim)
	}
	swaVHD := swaHD
	if m.SWAVHeadDim > 0 {
		swaVHD = int64(m.SWAVHeadDim)
	}
	swaPer := swaN * (swaHD + swaVHD) * kv
	if in.KVDtype == "mxfp8" {
		fullPer += n * (hd + vhd) / 32
		swaPer += swaN * (swaHD + swaVHD) / 32
	}
	c := cell{Kind: "hybrid-swa", FullPerToken: fullPer, SWAPerToken: swaPer, FullLayers: nFull, SWALayers: nSWA}
	if nFull == 0 {
		// All-SWA: the pool is the SWA pool itself, no ratio.
		c.Bytes = float64(swaPer * int64(nSWA))
		c.Steps = []string{fmt.Sprintf("all-SWA cell = %d B × %d SWA layers = %.0f B/token", swaPer, nSWA, c.Bytes)}
		return c, nil
	}
	// Same operation order as the Python expression, so the float matches.
	c.Bytes = float64(fullPer*int64(nFull)) + in.SWARatio*float64(swaPer)*float64(nSWA)
	c.Steps = []string{fmt.Sprintf("hybrid SWA cell = full %d B × %d full layers + swa_full_tokens_ratio %g × %d B × %d SWA layers = %s B/token (per layer: max(1, %d KV heads // attn_tp %d) × (%d + %d) × %d B)",
		fullPer, nFull, in.SWARatio, swaPer, nSWA, formatBytesFloat(c.Bytes), m.KVHeads, in.AttnTP, hd, vhd, kv)}
	return c, nil
}

// formatBytesFloat prints a cell size with its fraction only when it has one.
func formatBytesFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// ppLayerSplit is get_pp_indices without SGLANG_PP_LAYER_PARTITION: layers
// are split evenly and the last (L mod pp) stages get one extra
// (python/sglang/srt/distributed/utils.py get_pp_indices L95-132).
func ppLayerSplit(layers, pp int) []int {
	if pp < 1 {
		pp = 1
	}
	base, rem := layers/pp, layers%pp
	out := make([]int, pp)
	for r := range out {
		out[r] = base
		if r >= pp-rem {
			out[r]++
		}
	}
	return out
}

// pyFloorDiv is Python's float floor division a // b, which the hybrid pool
// uses on a float cell size (Objects/floatobject.c float_floor_div).
func pyFloorDiv(a, b float64) float64 {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	floor := math.Floor(div)
	if div-floor > 0.5 {
		floor++
	}
	return floor
}
