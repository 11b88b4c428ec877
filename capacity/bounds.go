package capacity

import "fmt"

// Bases of Estimate.PoolUpperBound: what proves the pool is at most that.
const (
	// BoundMaxTotalTokens is SGLang's explicit --max-total-tokens.
	BoundMaxTotalTokens = "--max-total-tokens"
	// BoundGPUBlocksOverride is vLLM's --num-gpu-blocks-override.
	BoundGPUBlocksOverride = "--num-gpu-blocks-override"
	// BoundMemory is the GPU's memory × mem_fraction_static ÷ the cell:
	// the pool with weights that weigh nothing.
	BoundMemory = "memory"
)

// memoryBound bounds an SGLang pool whose weights are unknown when the GPU
// memory and the cell are known. SGLang's budget per GPU is
// pre × mem_fraction_static − weights (kv_cache_configurator.py
// _profile_available_bytes: avail − pre × (1 − mem_fraction_static), avail
// = pre − weights), and the free memory before loading, pre, is at most
// memory.total: whatever the weights, the pool holds at most
// memory.total × mem_fraction_static ÷ cell tokens, aligned down to the
// page (pool_configurator.py calculate_pool_sizes). An unknown fraction is
// taken at its ceiling, 1 (server_args.py rejects a larger one). The
// hybrid sliding-window pool splits its budget between two pools, so it
// gets no bound here.
func (e *estimator) memoryBound() {
	if e.weightsKnown || e.gpu == nil || e.gpu.MemoryMiB <= 0 || len(e.cells) == 0 || !e.pageKnown || e.page <= 0 || e.hybridSWA {
		return
	}
	frac, fracNote := e.memFraction, fmt.Sprintf("mem_fraction_static %v", e.memFraction)
	if !e.memFractionKnown {
		frac, fracNote = 1, "mem_fraction_static at most 1"
	}
	total := e.gpu.MemoryBytes()
	page := int64(e.page)
	bound := int64(-1)
	for _, c := range e.cells {
		if c.Bytes <= 0 {
			return
		}
		t := int64(float64(total)*frac/c.Bytes) / page * page
		if bound < 0 || t < bound {
			bound = t
		}
	}
	if bound < 0 {
		return
	}
	if e.est.PoolUpperBound != nil && *e.est.PoolUpperBound <= bound {
		return // --max-total-tokens already bounds it lower
	}
	e.est.PoolUpperBound = ptr(bound)
	e.est.PoolBoundBasis = BoundMemory
	e.est.derive("pool ≤ %s tokens whatever the weights: memory.total %s B × %s ÷ %s B/token (aligned down to page size %d); the weights are unknown, so this is a bound, not the pool",
		Thousands(bound), Thousands(total), fracNote, formatBytesFloat(e.cells[0].Bytes), e.page)
}

// memoryBoundVLLM bounds a vLLM cache whose weights are unknown: the KV
// memory of a worker is requested memory − weights − activation, non-torch
// and CUDA-graph memory (gpu_worker.py determine_available_memory), and
// the requested memory is total × gpu_memory_utilization with a CUDA total
// below nvidia-smi's memory.total, so memory.total × utilization bounds it
// whatever the weights; the blocks are that memory // (block × bytes per
// token per layer) // layers of the stage (kv_cache_utils.py
// get_num_blocks), the smallest stage's for every worker.
func (e *vllmEstimator) memoryBoundVLLM() {
	if e.weightsKnown || e.kvMemSet || e.overrideSet || e.overrideUnkn || !e.utilKnown || !e.cellKnown || !e.blockOK ||
		e.gpu == nil || e.gpu.MemoryMiB <= 0 || e.perLayer <= 0 || e.block <= 0 || len(e.split) == 0 {
		return
	}
	total := e.gpu.MemoryBytes()
	mem := int64(float64(total) * e.util)
	blocks := int64(-1)
	for _, l := range e.split {
		if l <= 0 {
			return
		}
		b := mem / (e.block * e.perLayer) / int64(l)
		if blocks < 0 || b < blocks {
			blocks = b
		}
	}
	if blocks < 0 {
		return
	}
	tokens := blocks * e.block
	e.est.PoolUpperBound = ptr(tokens)
	e.est.PoolBoundBasis = BoundMemory
	e.est.derive("KV cache ≤ %s tokens whatever the weights: memory.total %s B × gpu_memory_utilization %g // (%d tokens × %s B) // %d layers = %s blocks; the weights are unknown, so this is a bound, not the cache",
		Thousands(tokens), Thousands(total), e.util, e.block, Thousands(e.perLayer), maxInt(e.split), Thousands(blocks))
}
