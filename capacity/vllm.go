package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// vLLM sizes its KV cache differently from SGLang: the cache is a number of
// blocks of --block-size tokens, every attention layer of a worker holds one
// page per block, and the startup check refuses a configuration whose cache
// cannot hold one --max-model-len request. The facts below are read in
// vllm-project/vllm at 9aaf83ef502f (upstream main 2026-05-19, the commit of
// engine/data/vllm_serve.tsv) unless another commit is named:
//
//   - memory: vllm/v1/worker/utils.py request_memory (requested =
//     ceil(total × gpu_memory_utilization)) and v1/worker/gpu_worker.py
//     determine_available_memory (available = requested − weights − peak
//     activations − non-torch memory − CUDA-graph estimate; with
//     --kv-cache-memory-bytes, exactly that many bytes, ignoring the
//     utilization);
//   - page: v1/kv_cache_interface.py FullAttentionSpec.real_page_size_bytes
//     = block_size × num_kv_heads × (head_size + head_size_v) × dtype bytes,
//     MLAAttentionSpec = block_size × 1 × (kv_lora_rank + qk_rope_head_dim) ×
//     dtype bytes (656 B per token for fp8_ds_mla);
//   - blocks: v1/core/kv_cache_utils.py get_num_blocks = available // page //
//     layers, or --num-gpu-blocks-override; the minimum over workers
//     (get_kv_cache_configs);
//   - the startup check: _check_enough_kv_cache_memory, needed = layers ×
//     page × cdiv(max_model_len, block_size) per worker.
type vllmEstimator struct {
	*estimator

	dcp, pcp  int
	block     int64
	blockOK   bool
	split     []int // layers per pipeline stage (vLLM's get_pp_indices)
	ctxAuto   bool  // --max-model-len -1 / auto
	ctx       int64 // max_model_len (before auto-fit)
	ctxKnown  bool
	perLayer  int64 // bytes per token per layer on one worker
	cellKnown bool
	hyb       *vllmHybrid // the hybrid manager's groups; nil when every layer keeps full KV

	kvMemBytes   int64 // --kv-cache-memory-bytes
	kvMemSet     bool
	override     int64 // --num-gpu-blocks-override
	overrideSet  bool
	overrideUnkn bool
	util         float64
	utilKnown    bool
	available    []int64 // KV memory per pipeline stage (per GPU)
	availKnown   bool
}

// vllmDefaultUtilization is CacheConfig.gpu_memory_utilization's default:
// 0.92 since vllm-project/vllm#38284 (commit 96a85c57, 2026-04-21, released
// in v0.21.0), which also started counting CUDA-graph memory inside it
// (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1); 0.9 before.
const vllmDefaultUtilization = 0.92

// vllmUtilizationRelease is the first release with the 0.92 default, as
// the note above dates it; a server pinned to an earlier release gets 0.9.
const vllmUtilizationRelease = "0.21.0"

// vllmDefaultBlockSize is CacheConfig.DEFAULT_BLOCK_SIZE (vllm/config/cache.py).
const vllmDefaultBlockSize = 16

// estimateVLLM fills est for a vLLM server.
func estimateVLLM(s *deploy.Server, opt Options, est *Estimate) {
	cat := opt.Catalog
	if cat == nil {
		cat = Default()
	}
	base := &estimator{s: s, opt: opt, cat: cat, est: est, vllm: true}
	base.r = &argReader{s: s, est: est}
	e := &vllmEstimator{estimator: base}
	e.parallelVLLM()
	e.resolveGPU()
	e.resolveModel()
	e.maxModelLen()
	e.blockSize()
	e.dtypesVLLM()
	e.cellVLLM()
	e.weightsVLLM()
	e.memoryVLLM()
	e.poolVLLM()
}

// engineLabel names the engine in the shared steps' messages.
func (e *estimator) engineLabel() string {
	if e.vllm {
		return "vLLM"
	}
	return "SGLang"
}

// modelFlags says where the engine takes its model from.
func (e *estimator) modelFlags() string {
	if e.vllm {
		return "no model after vllm serve, nor --model"
	}
	return "--model-path"
}

// parallelVLLM reads -tp, -pp, -dp, -dcp and -pcp. Each data-parallel rank
// is its own engine with its own KV cache, so the estimate is per rank.
func (e *vllmEstimator) parallelVLLM() {
	e.parallelKnown = true
	read := func(name string) int {
		v, st := e.r.int(name)
		switch st {
		case argUnset:
			return 1
		case argUnknown:
			e.parallelKnown = false
			return 1
		}
		if v < 1 || v > 1<<16 {
			e.est.assume("%s %d is not a valid parallel size", name, v)
			e.parallelKnown = false
			return 1
		}
		return int(v)
	}
	e.tp = read("--tensor-parallel-size")
	e.pp = read("--pipeline-parallel-size")
	e.dp = read("--data-parallel-size")
	e.dcp = read("--decode-context-parallel-size")
	e.pcp = read("--prefill-context-parallel-size")
	e.attnTP, e.attnCP = e.tp, 1
	if !e.parallelKnown {
		return
	}
	e.est.TP, e.est.DP, e.est.PP = e.tp, e.dp, e.pp
	if e.dp > 1 {
		e.est.derive("dp %d: %d engines of tp %d × pp %d GPUs, each with its own KV cache", e.dp, e.dp, e.tp, e.pp)
	}
	if e.dcp*e.pcp > 1 {
		e.est.notSized("context parallelism (-dcp %d, -pcp %d) spreads each request's KV over ranks; kvlint does not model it, so the cache is not sized", e.dcp, e.pcp)
	}
}

// maxModelLen reads --max-model-len, else derives it from the model config
// as vLLM does (vllm/config/model.py _get_and_verify_max_len).
func (e *vllmEstimator) maxModelLen() {
	derived, how, derivedOK := int64(0), "", false
	if e.model != nil {
		disable, _ := e.r.bool("--disable-sliding-window")
		derived, how, derivedOK = vllmDerivedMaxLen(e.model, disable)
	}
	name, v, st := e.r.value("--max-model-len")
	raw := written(v)
	switch st {
	case argUnknown:
		return
	case argSet:
		// human_readable_int_or_auto: "auto" and "-1" are -1.
		n, ok := v.Typed.Int()
		if !ok || n < -1 {
			e.est.assume("%s %q is not a length vLLM accepts: its value is unknown", name, raw)
			return
		}
		if n != -1 {
			e.ctx, e.ctxKnown = n, true
			e.est.ContextLength, e.est.ContextSource = ptr(n), "flag"
			e.est.derive("max_model_len %s (--max-model-len %s)", Thousands(n), raw)
			if derivedOK && n > derived {
				e.est.assume("--max-model-len %s is above the model's %s (%s): vLLM refuses to start unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set (config/model.py _get_and_verify_max_len)", Thousands(n), Thousands(derived), how)
			}
			return
		}
		e.ctxAuto = true
		e.est.derive("--max-model-len %s: vLLM fits max_model_len to the KV cache (_auto_fit_max_model_len)", raw)
	}
	if e.model == nil {
		return
	}
	if !derivedOK {
		e.est.assume("kvlint does not know the context length of %s: pass --max-model-len or declare its config.json", e.model.ID)
		return
	}
	e.ctx, e.ctxKnown = derived, true
	e.est.ContextLength, e.est.ContextSource = ptr(derived), "model"
	e.est.derive("max_model_len %s from the model config: %s", Thousands(derived), how)
}

// vllmDerivedMaxLen is the default max_model_len: the config's length key
// (vLLM takes the smallest of max_position_embeddings, n_positions,
// max_seq_len, seq_length, model_max_length, max_target_positions,
// max_sequence_length, max_seq_length, seq_len; kvlint's model facts keep
// one), lowered to the sliding window under --disable-sliding-window, then
// scaled by rope_scaling's factor unless its type is su, longrope or llama3
// (yarn scales original_max_position_embeddings) and not for Gemma 3.
// Source: vllm/transformers_utils/model_arch_config_convertor.py
// derive_max_model_len_and_key, vllm/config/model.py _get_and_verify_max_len.
func vllmDerivedMaxLen(m *Model, disableSlidingWindow bool) (int64, string, bool) {
	if m.ContextUnstated {
		return 0, "", false
	}
	if m.ContextKey == "" {
		return 2048, "the config has no length key: vLLM assumes 2048", true
	}
	v := float64(m.ContextValue)
	how := fmt.Sprintf("%s %d", m.ContextKey, m.ContextValue)
	if disableSlidingWindow && m.SlidingWindow > 0 && float64(m.SlidingWindow) < v {
		v = float64(m.SlidingWindow)
		how = fmt.Sprintf("sliding_window %d (--disable-sliding-window)", m.SlidingWindow)
	}
	if rs := m.RopeScaling; rs != nil && !rs.empty() && !strings.HasPrefix(m.ModelType, "gemma3") {
		typ := rs.RopeType
		if typ == "" {
			typ = rs.Type
		}
		switch typ {
		case "su", "longrope", "llama3":
			how += fmt.Sprintf(" (rope_type %s: factor not applied)", typ)
		default:
			factor := rs.Factor
			if factor == 0 {
				factor = 1
			}
			if typ == "yarn" && rs.HasOriginalMax {
				v = float64(rs.OriginalMax)
				how = fmt.Sprintf("yarn original_max_position_embeddings %d", rs.OriginalMax)
			}
			if factor != 1 {
				v *= factor
				how += fmt.Sprintf(" × rope_scaling factor %g", factor)
			}
		}
	}
	if v > math.MaxInt64/2 || v < 1 || math.IsNaN(v) {
		return 0, "", false
	}
	n := int64(v)
	return n, fmt.Sprintf("%s = %d", how, n), true
}

// blockSize reads --block-size (default 16).
func (e *vllmEstimator) blockSize() {
	v, st := e.r.int("--block-size")
	switch st {
	case argUnknown:
		e.est.notSized("the block size is unknown, so the cache is not sized in blocks")
		return
	case argUnset:
		v = vllmDefaultBlockSize
		if e.model != nil && e.model.isMLA() {
			e.est.assume("block size 16 assumed (vLLM's default); MLA attention backends may raise it (FlashMLA uses 64), which only changes rounding")
		}
	}
	if v < 1 || v > 1<<16 {
		e.est.assume("--block-size %d is not a valid block size", v)
		return
	}
	e.block, e.blockOK = v, true
	e.est.PageSize = int(v)
	e.est.derive("block size %d tokens (%s)", v, map[argState]string{argSet: "--block-size", argUnset: "vLLM's default"}[st])
}

// vllmPPSplit is vLLM's get_pp_indices without VLLM_PP_LAYER_PARTITION: the
// layers left over go, one each, to the stages before the last, starting
// from the second-to-last (vllm/distributed/utils.py).
func vllmPPSplit(layers, pp int) []int {
	if pp < 1 {
		pp = 1
	}
	out := make([]int, pp)
	for i := range out {
		out[i] = layers / pp
	}
	for i := 2; i < layers%pp+2; i++ {
		out[pp-i]++
	}
	return out
}
