package capacity

import (
	"fmt"
	"math"

	"github.com/kvlint/kvlint/deploy"
)

// vLLM's hybrid KV cache manager (the "hybrid memory allocator") sizes a
// model whose layers mix sliding-window and full attention (gpt-oss, Gemma
// 2 and 3) by attention type rather than as if every layer kept every
// token. The facts below are read in vllm-project/vllm at 9aaf83ef502f
// (the commit of engine/data/vllm_serve.tsv) unless another commit is named:
//
//   - groups: v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size
//     puts the layers of one spec (FullAttentionSpec, SlidingWindowSpec with
//     one window) into groups of group_size layers, group_size being the
//     fewest layers of one type, or the most when max < 1.5 × min (gpt-oss
//     with an EAGLE drafter: 12 sliding + 13 full); a type's last group is
//     padded. Every group has the same page size;
//   - blocks: get_kv_cache_config_from_groups, general case: group_size
//     tensors, each shared by one layer of every group, so num_blocks =
//     available // page // group_size (get_num_blocks); the groups draw
//     their blocks from that one pool;
//   - one request: v1/kv_cache_interface.py FullAttentionSpec
//     max_memory_usage_bytes = cdiv(max_model_len, block_size) pages,
//     SlidingWindowSpec = cdiv(min(sliding_window − 1 +
//     max_num_batched_tokens, max_model_len), block_size) + 1 pages (the
//     window need not start on a block boundary);
//     _max_memory_usage_bytes_from_groups = group_size × page × the sum over
//     groups, what _check_enough_kv_cache_memory compares with the memory
//     and _estimate_max_model_len_from_groups binary-searches;
//   - the log: _report_kv_cache_config, "GPU KV cache size: N tokens" with
//     N = int(num_blocks / blocks per request × max_model_len) and
//     "Maximum concurrency" = num_blocks / blocks per request
//     (get_max_concurrency_for_kv_cache_config).
//
// Two older rules are not kept by release, since no snapshot here tags the
// releases between v0.10 and main: the group size was the fewest layers of
// one type until 71df2a57e (#29303, 2025-11-24; the 1.25 threshold, 1.5
// since 891c60dcd, #36684), which only matters for types of unequal but
// close counts; and until 8ee90c83f (#29431, 2025-12-24) the startup check
// summed every layer's pages rather than the groups', which differs only
// by the padding slots (Gemma 3's 8 of 60 sliding-window slots).
//
// Llama 4's chunked local attention layers (v0.10.0 only) take the place of
// the sliding-window ones: see llama4Chunked.
type vllmHybrid struct {
	full, swa  int   // layers of each kind in the model: full, and sliding-window or chunked
	window     int64 // sliding_window
	chunk      int64 // attention_chunk_size when the other layers are chunked local attention, else 0
	layerCheck bool  // the startup check sums every layer's pages, not the groups' (v0.10.0)
	groupSize  int64
	fullGroups int64
	swaGroups  int64
	batched    int64 // max_num_batched_tokens
}

// kind names the layers that are not full attention.
func (h *vllmHybrid) kind() string {
	if h.chunk > 0 {
		return fmt.Sprintf("chunked local attention (chunk %d)", h.chunk)
	}
	return fmt.Sprintf("sliding-window (window %d)", h.window)
}

// vllmHybridRelease is the first release with the hybrid allocator and
// --disable-hybrid-kv-cache-manager: vllm-project/vllm f8a1a2d10 ("[v1]
// Hybrid Memory Allocator", #17996, 2025-06-06) is an ancestor of v0.9.1's
// b6553be1 (read in the jsboige/vllm mirror). Before it, V1's
// unify_hybrid_kv_cache_specs (at red-hat-data-services/vllm v0.9.0.1,
// f237aa23) turned every SlidingWindowSpec into a FullAttentionSpec and V0
// kept every layer in full: every layer held every token.
const vllmHybridRelease = "0.9.1"

// vllmConcurrencyLogRelease is the first release whose "GPU KV cache size"
// is max_concurrency × max_model_len: vllm-project/vllm e68fa1b90 (#41069,
// 2026-04-28) replaced num_blocks // len(kv_cache_groups) × block_size
// (f8a1a2d10 to then). The release is inferred: the commit follows
// 96a85c57, which kvlint dates to v0.21.0, and vllm#43308 reports Gemma 4's
// logged size growing about tenfold from v0.20.0 to v0.21.0 with the same
// KV memory.
const vllmConcurrencyLogRelease = "0.21.0"

// vllmHMAConnectors are the KV connectors that subclass SupportsHMA at
// 9aaf83ef502f (vllm/distributed/kv_transfer/kv_connector/v1): with any
// other, config/vllm.py __post_init__ turns the hybrid manager off unless
// the flag says otherwise. MultiConnector supports it only when every
// sub-connector does, which kvlint does not follow.
var vllmHMAConnectors = map[string]bool{
	"NixlConnector": true, "MooncakeConnector": true, "MooncakeStoreConnector": true,
	"OffloadingConnector": true, "SimpleCPUOffloadConnector": true,
	"DecodeBenchConnector": true, "ExampleHiddenStatesConnector": true,
}

type hybridMode int

const (
	hybridOff hybridMode = iota
	hybridOn
	hybridUnknown
)

// hybridManager decides whether vLLM runs the hybrid KV cache manager for a
// model that mixes sliding-window and full-attention layers
// (config/vllm.py __post_init__ at 9aaf83ef502f: the flag wins; without it,
// a KV connector that does not support HMA turns it off).
func (e *vllmEstimator) hybridManager() hybridMode {
	if v := e.s.Release.Version; v != "" && deploy.CompareVersions(v, vllmHybridRelease) < 0 {
		e.est.derive("vLLM v%s predates the hybrid KV cache manager (vllm#17996, first in v%s): every layer, sliding-window or not, keeps full KV", v, vllmHybridRelease)
		return hybridOff
	}
	switch off, st := e.r.bool("--disable-hybrid-kv-cache-manager"); {
	case st == argUnknown:
		e.est.notSized("whether the hybrid KV cache manager is on is unknown, so the cache is not sized")
		return hybridUnknown
	case st == argSet && off:
		e.est.derive("--disable-hybrid-kv-cache-manager: every layer, sliding-window or not, keeps full KV (unify_hybrid_kv_cache_specs)")
		return hybridOff
	case st == argSet:
		e.est.derive("--no-disable-hybrid-kv-cache-manager: the hybrid KV cache manager is on")
		return hybridOn
	}
	name, st, ok := e.r.stringField("--kv-transfer-config", "kv_connector")
	switch st {
	case argUnknown:
		e.est.notSized("--kv-transfer-config is unknown, and its connector decides whether vLLM keeps the hybrid KV cache manager, so the cache is not sized")
		return hybridUnknown
	case argSet:
		switch {
		case !ok:
			e.est.notSized("--kv-transfer-config names no connector kvlint can read, and the connector decides whether vLLM keeps the hybrid KV cache manager, so the cache is not sized")
			return hybridUnknown
		case !vllmHMAConnectors[name]:
			e.est.derive("KV connector %s does not support the hybrid KV cache manager (SupportsHMA): vLLM turns it off, so every layer keeps full KV (config/vllm.py)", name)
			return hybridOff
		case e.s.Release.Version != "":
			e.est.notSized("KV connector %s supports the hybrid KV cache manager on vLLM's main branch; kvlint does not know whether it does on v%s, so the cache is not sized", name, e.s.Release.Version)
			return hybridUnknown
		}
		e.est.derive("KV connector %s supports the hybrid KV cache manager (SupportsHMA): it stays on", name)
	}
	return hybridOn
}

// hybridGroups lays out the KV cache groups as
// _get_kv_cache_groups_uniform_page_size does, and reads the batch the
// sliding-window bound depends on. It fails (with the reason said) when a
// shape kvlint does not follow is involved.
func (e *vllmEstimator) hybridGroups(m *Model, swa, full int) (*vllmHybrid, bool) {
	if e.pp > 1 {
		// get_kv_cache_configs projects the groups onto each stage's
		// layers (_project_kv_cache_groups_to_worker); which layers a stage
		// holds depends on the order of layer_types, which kvlint does not
		// keep.
		e.est.notSized("pipeline parallelism over a hybrid sliding-window model: kvlint does not project vLLM's KV cache groups onto each stage, so the cache is not sized")
		return nil, false
	}
	if (m.SWAKVHeads > 0 && m.SWAKVHeads != m.KVHeads) || (m.SWAHeadDim > 0 && m.SWAHeadDim != m.headDim()) {
		// unify_kv_cache_spec_page_size then grows the smaller pages'
		// block size, which kvlint does not follow.
		e.est.notSized("%s's sliding-window layers have their own head shape, so vLLM's KV cache groups have different pages; kvlint does not model that, so the cache is not sized", m.ID)
		return nil, false
	}
	if on, _ := e.r.bool("--disable-sliding-window"); on {
		e.est.notSized("--disable-sliding-window on a hybrid sliding-window model: kvlint does not model how vLLM then groups the layers, so the cache is not sized")
		return nil, false
	}
	batched, ok := e.hybridBatched("a sliding-window layer holds its window")
	if !ok {
		return nil, false
	}
	h := &vllmHybrid{full: full, swa: swa, window: int64(m.SlidingWindow), batched: batched}
	lo, hi := int64(min(swa, full)), int64(max(swa, full))
	h.groupSize = lo
	if float64(hi) < float64(lo)*1.5 {
		h.groupSize = hi
	}
	padNote := h.groupLayers()
	e.est.derive("hybrid KV cache manager: %d full-attention and %d sliding-window (window %d) layers in groups of %d: %d full and %d sliding-window groups%s (_get_kv_cache_groups_uniform_page_size)", full, swa, h.window, h.groupSize, h.fullGroups, h.swaGroups, padNote)
	return h, true
}

// groupLayers splits each kind of layer into groups of groupSize, the
// last group of a kind padded, and says how many slots are padding.
func (h *vllmHybrid) groupLayers() (padNote string) {
	h.fullGroups, h.swaGroups = ceilDiv(int64(h.full), h.groupSize), ceilDiv(int64(h.swa), h.groupSize)
	if pad := h.fullGroups*h.groupSize - int64(h.full) + h.swaGroups*h.groupSize - int64(h.swa); pad > 0 {
		return fmt.Sprintf(", %d padding layer slots", pad)
	}
	return ""
}

// hybridBatched reads max_num_batched_tokens, the batch a sliding-window or
// chunked layer holds beside its window; what says why the batch matters.
func (e *vllmEstimator) hybridBatched(what string) (int64, bool) {
	batched, st := e.batchedFlag()
	switch {
	case st == argUnknown:
		return 0, false
	case st == argSet && batched > 0:
	case e.gpu != nil && e.gpu.MemoryMiB > 0:
		batched = vllmDefaultBatchedTokens(e.gpu)
	default:
		e.est.notSized("%s plus one batch of tokens (max_num_batched_tokens), whose default depends on the GPU, which is unknown: the cache is not sized", what)
		return 0, false
	}
	return batched, true
}

// fullBlocks and swaBlocks are one max_model_len request's blocks in one
// group of each kind (FullAttentionSpec and SlidingWindowSpec
// max_memory_usage_bytes ÷ page).
func (h *vllmHybrid) fullBlocks(ctx, block int64) int64 { return ceilDiv(ctx, block) }

func (h *vllmHybrid) swaBlocks(ctx, block int64) int64 {
	if h.chunk > 0 {
		// ChunkedLocalAttentionSpec.max_memory_usage_bytes at 6d8d0a24c02b
		// (v0.10.0): cdiv(min(attention_chunk_size +
		// max_num_batched_tokens, max_model_len), block_size) pages, with
		// no extra page (a chunk starts on a multiple of the chunk size).
		return ceilDiv(min(h.chunk+h.batched, ctx), block)
	}
	return ceilDiv(min(h.window-1+h.batched, ctx), block) + 1
}

// requestBlocks is one request's blocks over every group.
func (h *vllmHybrid) requestBlocks(ctx, block int64) int64 {
	return h.fullGroups*h.fullBlocks(ctx, block) + h.swaGroups*h.swaBlocks(ctx, block)
}

// needed is the memory the startup check asks for one ctx-token request:
// group_size × page × its blocks over the groups
// (_max_memory_usage_bytes_from_groups), or, where the check sums every
// layer's spec (v0.10.0's check_enough_kv_cache_memory and
// estimate_max_model_len, at 6d8d0a24c02b), page × the blocks of every
// layer, which differs only by the padding slots.
func (h *vllmHybrid) needed(ctx, page, block int64) int64 {
	if h.layerCheck {
		return page * (int64(h.full)*h.fullBlocks(ctx, block) + int64(h.swa)*h.swaBlocks(ctx, block))
	}
	return h.groupSize * page * h.requestBlocks(ctx, block)
}

// longest is _estimate_max_model_len_from_groups (estimate_max_model_len
// on v0.10.0): the largest length in [1, upper] whose needed memory fits
// avail, 0 when not even one token does.
func (h *vllmHybrid) longest(avail, page, block, upper int64) int64 {
	fits := func(l int64) bool { return h.needed(l, page, block) <= avail }
	if upper < 1 || !fits(1) {
		return 0
	}
	lo, hi, best := int64(1), upper, int64(1)
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// longestUncapped is the longest request avail holds, whatever
// max_model_len: the full layers alone bound it (a group of them holds no
// fewer slots than the layers it groups).
func (h *vllmHybrid) longestUncapped(avail, page, block int64) int64 {
	if h.full <= 0 || page <= 0 {
		return 0
	}
	upper := avail/page/int64(h.full)*block + block
	return h.longest(avail, page, block, min(upper, math.MaxInt64/4))
}

// poolHybridVLLM is poolVLLM for a model the hybrid manager groups.
func (e *vllmEstimator) poolHybridVLLM() {
	h := e.hyb
	if !e.availKnown && !e.overrideSet {
		e.memoryBoundHybridVLLM()
		e.explainMissingVLLM()
		return
	}
	page := e.block * e.perLayer
	perBlock := page * h.groupSize // _pool_bytes_per_block
	avail := int64(0)
	if e.overrideSet {
		avail = e.override * perBlock
		e.est.KVBudgetBytes = ptr(avail)
	} else {
		avail = e.available[0]
	}
	if avail <= 0 {
		e.est.StartupError = vllmNoMemory(e.s.Release)
		e.est.derive("%s B for the KV cache: vLLM stops at startup (_check_enough_kv_cache_memory)", Thousands(avail))
		return
	}
	if e.est.inputs != nil {
		e.est.inputs.maxModelLen, e.est.inputs.maxModelLenSet = h.longestUncapped(avail, page, e.block), true
	}
	if e.ctxAuto && e.ctxKnown && !e.autoFit(h.longest(avail, page, e.block, e.ctx), "what the KV cache groups hold (_estimate_max_model_len_from_groups)") {
		return
	}
	blocks := avail / page / h.groupSize
	if e.overrideSet {
		blocks = e.override
	}
	// The log of releases before vllmConcurrencyLogRelease needs no length.
	oldRelease := e.s.Release.Version != "" && deploy.CompareVersions(e.s.Release.Version, vllmConcurrencyLogRelease) < 0
	blocksFound := func() {
		e.est.KVBlocks = ptr(blocks)
		if !e.overrideSet {
			e.est.derive("blocks = %s B // (%d tokens × %d B) // group size %d = %s (get_kv_cache_config_from_groups, get_num_blocks)", Thousands(avail), e.block, e.perLayer, h.groupSize, Thousands(blocks))
		}
		if oldRelease {
			oldLog := blocks / (h.fullGroups + h.swaGroups) * e.block
			e.est.LoggedKVTokens = ptr(oldLog)
			e.est.derive("vLLM v%s logs \"GPU KV cache size: %s tokens\": %s blocks // %d groups × %d (before vllm#41069)", e.s.Release.Version, Thousands(oldLog), Thousands(blocks), h.fullGroups+h.swaGroups, e.block)
		}
	}
	if !e.ctxKnown || e.ctx <= 0 {
		blocksFound()
		e.est.assume("a hybrid model's cache holds more short requests than long ones: with max_model_len unknown, kvlint does not say how many tokens it holds")
		return
	}
	fullB, swaB := h.fullBlocks(e.ctx, e.block), h.swaBlocks(e.ctx, e.block)
	req := h.requestBlocks(e.ctx, e.block)
	e.est.RequestBlocks = ptr(req)
	if h.chunk > 0 {
		e.est.derive("one %s-token request takes %d full groups × cdiv(%s, %d) = %s blocks + %d chunked groups × cdiv(min(chunk %s + %s batched tokens, %s), %d) = %s blocks: %s blocks (FullAttentionSpec, ChunkedLocalAttentionSpec max_memory_usage_bytes)",
			Thousands(e.ctx), h.fullGroups, Thousands(e.ctx), e.block, Thousands(fullB), h.swaGroups, Thousands(h.chunk), Thousands(h.batched), Thousands(e.ctx), e.block, Thousands(swaB), Thousands(req))
	} else {
		e.est.derive("one %s-token request takes %d full groups × cdiv(%s, %d) = %s blocks + %d sliding-window groups × (cdiv(min(window %d − 1 + %s batched tokens, %s), %d) + 1) = %d blocks: %s blocks (FullAttentionSpec, SlidingWindowSpec max_memory_usage_bytes)",
			Thousands(e.ctx), h.fullGroups, Thousands(e.ctx), e.block, Thousands(fullB), h.swaGroups, h.window, Thousands(h.batched), Thousands(e.ctx), e.block, swaB, Thousands(req))
	}
	perRequest := perBlock * req
	e.est.CellBytesPerToken = ptr(ceilDiv(perRequest, e.ctx))
	e.est.derive("KV per token of a full-length request = %s B ÷ %s tokens = %s B per GPU (the %s layers hold only part of it)", Thousands(perRequest), Thousands(e.ctx), Thousands(ceilDiv(perRequest, e.ctx)), h.kind())
	if needed := h.needed(e.ctx, page, e.block); needed > avail {
		est := h.longest(avail, page, e.block, e.ctx)
		e.est.StartupError = vllmShortOfMemoryAt(e.s.Release, e.ctx, needed, avail, est)
		e.est.KVBudgetBytes = ptr(avail)
		how := fmt.Sprintf("group size %d × %s B × %s blocks", h.groupSize, Thousands(page), Thousands(req))
		if h.layerCheck {
			how = fmt.Sprintf("%s B × (%d full layers × %s + %d chunked layers × %s blocks)", Thousands(page), h.full, Thousands(fullB), h.swa, Thousands(swaB))
		}
		e.est.derive("startup check: one %s-token request needs %s = %s B, more than the %s B available: vLLM raises ValueError and does not start (_check_enough_kv_cache_memory)", Thousands(e.ctx), how, Thousands(needed), Thousands(avail))
		return
	}
	blocksFound()
	// int(max_concurrency × max_model_len), in the same float order.
	tokens := int64(float64(blocks) / float64(req) * float64(e.ctx))
	e.est.PoolTokens = ptr(tokens)
	if !oldRelease {
		e.est.LoggedKVTokens = ptr(tokens)
	}
	e.est.derive("KV cache: %s blocks ÷ %s blocks per request × %s = %s tokens of full-length requests (_report_kv_cache_config: \"GPU KV cache size\" from vLLM %s on)", Thousands(blocks), Thousands(req), Thousands(e.ctx), Thousands(tokens), vllmConcurrencyLogRelease)
	e.est.MaxRequestTokens = ptr(e.ctx)
	n := blocks / req
	e.est.FullContextRequests = ptr(n)
	e.est.derive("full-context requests that fit at once: %s blocks / %s blocks per %s-token request = %d (vLLM logs \"Maximum concurrency\" %.2fx)", Thousands(blocks), Thousands(req), Thousands(e.ctx), n, float64(blocks)/float64(req))
}

// memoryBoundHybridVLLM is memoryBoundVLLM for a hybrid model: with the
// weights unknown, the GPU's memory × utilization bounds the blocks, and
// so the full-length requests they hold.
func (e *vllmEstimator) memoryBoundHybridVLLM() {
	h := e.hyb
	if e.weightsKnown || e.kvMemSet || e.overrideSet || e.overrideUnkn || !e.utilKnown || !e.blockOK ||
		e.gpu == nil || e.gpu.MemoryMiB <= 0 || e.perLayer <= 0 || !e.ctxKnown || e.ctxAuto || e.ctx <= 0 {
		return
	}
	total := e.gpu.MemoryBytes()
	mem := int64(float64(total) * e.util)
	blocks := mem / (e.block * e.perLayer) / h.groupSize
	req := h.requestBlocks(e.ctx, e.block)
	tokens := int64(float64(blocks) / float64(req) * float64(e.ctx))
	e.est.PoolUpperBound = ptr(tokens)
	e.est.PoolBoundBasis = BoundMemory
	e.est.derive("KV cache ≤ %s tokens of full-length requests whatever the weights: memory.total %s B × gpu_memory_utilization %g // (%d tokens × %s B) // group size %d = %s blocks, %s blocks per request; the weights are unknown, so this is a bound, not the cache",
		Thousands(tokens), Thousands(total), e.util, e.block, Thousands(e.perLayer), h.groupSize, Thousands(blocks), Thousands(req))
}

// vllmChunkedHybridRelease is the one release whose hybrid manager grouped
// Llama 4's chunked local attention layers by default: vllm-project/vllm
// 9a9fda142 (#19351, 2025-07-19) gave them a ChunkedLocalAttentionSpec and
// 8aa1485fc (#21761, 2025-07-28) turned the manager off for them unless
// VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (config/vllm.py
// __post_init__, still so at 9aaf83ef502f). v0.10.0 is 6d8d0a24c02b
// ("Add think chunk", #21333, 2025-07-24): the upstream commit that
// red-hat-data-services/vllm merges as its "v0.10.0-tag" branch (8d0d79870)
// and the parent its v0.10.0.0 tag builds on; the first commit is its
// ancestor, the second is not.
const vllmChunkedHybridRelease = "0.10.0"

// llama4Chunked decides how vLLM keeps Llama 4's KV: hybridOn when the
// hybrid manager groups the chunked local attention layers (v0.10.0),
// hybridOff when every layer keeps full KV, hybridUnknown (with the reason
// said) when kvlint cannot tell.
//
// On v0.10.0 (6d8d0a24c02b) vllm/config.py VllmConfig.__post_init__ turns
// the manager off for --disable-hybrid-kv-cache-manager, any
// --kv-transfer-config (every connector, unlike later releases), any
// --kv-events-config, and a speculative method for which use_eagle() holds
// (eagle, eagle3, deepseek_mtp) on a model with attention_chunk_size; and
// get_kv_cache_config's unify_hybrid_kv_cache_specs then makes every
// ChunkedLocalAttentionSpec a FullAttentionSpec.
func (e *vllmEstimator) llama4Chunked(m *Model) hybridMode {
	if off, st := e.r.bool("--disable-hybrid-kv-cache-manager"); st == argSet && off {
		e.est.derive("--disable-hybrid-kv-cache-manager: every layer, chunked local attention or not, keeps full KV (unify_hybrid_kv_cache_specs)")
		return hybridOff
	}
	v := e.s.Release.Version
	if v == "" || deploy.CompareVersions(v, vllmChunkedHybridRelease) != 0 {
		e.est.derive("Llama 4's chunked local attention layers keep full KV: vLLM turns the hybrid KV cache manager off for them by default (config/vllm.py, vllm#21761)")
		e.est.assume("with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 in the server's environment vLLM groups the chunked layers and holds more, which kvlint does not see")
		return hybridOff
	}
	switch {
	case m.ModelType != "llama4" && m.ModelType != "llama4_text":
		// readChunkedAttention reads only Llama 4 configs.
		e.est.notSized("%s does not say its model_type is llama4, so kvlint cannot read which layers vLLM v%s keeps as chunked local attention: the cache is not sized", m.ID, v)
		return hybridUnknown
	case m.AttentionChunkSize <= 0 || m.ChunkedLayers == 0:
		e.est.derive("%s has no chunked local attention layers (attention_chunk_size null, or every layer NoPE): every layer keeps full KV", m.ID)
		return hybridOff
	case m.ChunkedLayers >= m.Layers:
		e.est.notSized("every layer of %s is chunked local attention, a cache of one ChunkedLocalAttentionSpec kvlint does not model, so the cache is not sized", m.ID)
		return hybridUnknown
	}
	switch off, st := e.r.bool("--disable-hybrid-kv-cache-manager"); {
	case st == argUnknown:
		e.est.notSized("whether the hybrid KV cache manager is on is unknown, so the cache is not sized")
		return hybridUnknown
	case st == argSet && !off:
		e.est.derive("--no-disable-hybrid-kv-cache-manager: the hybrid KV cache manager is on unless the checks below turn it off")
	}
	for _, flag := range []string{"--kv-transfer-config", "--kv-events-config"} {
		if _, _, st := e.r.value(flag); st != argUnset {
			e.est.derive("%s: vLLM v%s turns the hybrid KV cache manager off, so every layer keeps full KV (VllmConfig.__post_init__)", flag, v)
			return hybridOff
		}
	}
	switch method, st, ok := e.r.stringField("--speculative-config", "method"); st {
	case argUnknown:
		e.est.notSized("--speculative-config is unknown, and an EAGLE or MTP method turns vLLM v%s's hybrid KV cache manager off for Llama 4, so the cache is not sized", v)
		return hybridUnknown
	case argSet:
		switch {
		case !ok:
			e.est.notSized("--speculative-config names no method kvlint can read, and an EAGLE or MTP method turns vLLM v%s's hybrid KV cache manager off for Llama 4, so the cache is not sized", v)
			return hybridUnknown
		case method == "eagle" || method == "eagle3" || method == "deepseek_mtp":
			e.est.derive("speculative method %s with chunked local attention: vLLM v%s turns the hybrid KV cache manager off, so every layer keeps full KV (VllmConfig.__post_init__)", method, v)
			return hybridOff
		}
	}
	e.est.derive("vLLM v%s keeps Llama 4's %d chunked local attention layers (attention_chunk_size %d) in KV cache groups of their own (ChunkedLocalAttentionSpec, gpu_model_runner.py get_kv_cache_spec)", v, m.ChunkedLayers, m.AttentionChunkSize)
	return hybridOn
}

// chunkedGroups lays out v0.10.0's KV cache groups for Llama 4, as
// _get_kv_cache_config_uniform_page_size does at 6d8d0a24c02b: the layers
// of each type_id (full attention; local attention of one chunk size) in
// groups of group_size = the fewest layers of one type (that release has
// no 1.5 rule), the last group of a type padded; blocks =
// available // page // group_size; and the log "GPU KV cache size" =
// num_blocks // groups × block_size, which vllmConcurrencyLogRelease
// already covers.
func (e *vllmEstimator) chunkedGroups(m *Model) (*vllmHybrid, bool) {
	if e.pp > 1 {
		// Each stage's worker groups its own layers; which layers a stage
		// holds decides its groups, which kvlint does not follow.
		e.est.notSized("pipeline parallelism over Llama 4 on vLLM v%s: kvlint does not follow how each stage groups its chunked and full layers, so the cache is not sized", vllmChunkedHybridRelease)
		return nil, false
	}
	batched, ok := e.hybridBatched("a chunked local attention layer holds its chunk")
	if !ok {
		return nil, false
	}
	switch on, st := e.r.bool("--enable-chunked-prefill"); {
	case st == argUnknown:
		e.est.notSized("--enable-chunked-prefill is unknown, and without chunked prefill vLLM batches max_model_len tokens, which a chunked layer holds: the cache is not sized")
		return nil, false
	case st == argSet && !on:
		// engine/arg_utils.py _set_default_args_v1 at 6d8d0a24c02b: "if
		// not self.enable_chunked_prefill: self.max_num_batched_tokens =
		// model_config.max_model_len".
		if !e.ctxKnown || e.ctxAuto || e.ctx <= 0 {
			e.est.notSized("--no-enable-chunked-prefill batches max_model_len tokens, which is unknown: the cache is not sized")
			return nil, false
		}
		batched = e.ctx
		e.est.derive("--no-enable-chunked-prefill: max_num_batched_tokens = max_model_len %s", Thousands(batched))
	}
	full, chunked := m.Layers-m.ChunkedLayers, m.ChunkedLayers
	h := &vllmHybrid{full: full, swa: chunked, chunk: int64(m.AttentionChunkSize), layerCheck: true, batched: batched}
	h.groupSize = int64(min(full, chunked))
	padNote := h.groupLayers()
	e.est.derive("hybrid KV cache manager: %d full-attention and %d chunked local attention (chunk %d) layers in groups of %d: %d full and %d chunked groups%s (_get_kv_cache_config_uniform_page_size)", full, chunked, h.chunk, h.groupSize, h.fullGroups, h.swaGroups, padNote)
	return h, true
}
