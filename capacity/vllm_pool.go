package capacity

import (
	"fmt"
	"math"

	"github.com/kvlint/kvlint/deploy"
)

// memoryVLLM finds the KV-cache memory of each pipeline stage's GPUs.
func (e *vllmEstimator) memoryVLLM() {
	name, v, st := e.r.value("--kv-cache-memory-bytes")
	raw := written(v)
	if st == argSet && v.Typed.Kind() == deploy.KindNull {
		st = argUnset // optional_type: None, the default
	}
	switch st {
	case argUnknown:
		return
	case argSet:
		n, ok := v.Typed.Int() // human_readable_int: 1k = 1000, 1K = 1024
		if !ok || n < 0 {
			e.est.assume("%s %q is not a size vLLM accepts: its value is unknown", name, raw)
			return
		}
		e.kvMemBytes, e.kvMemSet = n, true
		e.available = make([]int64, max(1, e.pp))
		for i := range e.available {
			e.available[i] = n
		}
		e.availKnown = true
		e.est.KVBudgetBytes = ptr(n)
		e.est.derive("KV cache memory %s B per GPU (--kv-cache-memory-bytes; vLLM then ignores --gpu-memory-utilization and skips memory profiling)", Thousands(n))
		if v, st := e.r.float("--gpu-memory-utilization"); st == argSet {
			e.est.assume("--gpu-memory-utilization %g has no effect: --kv-cache-memory-bytes is set (gpu_worker.py determine_available_memory)", v)
		}
		return
	}

	util, st := e.r.float("--gpu-memory-utilization")
	switch st {
	case argUnknown:
		return
	case argUnset:
		util = vllmDefaultUtilization
		if v := e.s.Release.Version; v != "" && deploy.CompareVersions(v, vllmUtilizationRelease) < 0 {
			// Every release the flag history reads (v0.5.0–v0.9.2) has
			// CacheConfig's 0.9: vllm#38284 (96a85c57) came to main on
			// 2026-04-21.
			util = 0.9
			e.est.assume("--gpu-memory-utilization defaults to 0.9 on vLLM v%s (%s): 0.92 only from vLLM %s on (vllm#38284, which also counts CUDA-graph memory inside it)", v, e.s.Release.Source, vllmUtilizationRelease)
		} else {
			e.est.assume("--gpu-memory-utilization defaults to 0.92 in vLLM 0.21 and later (vllm#38284, which also counts CUDA-graph memory inside it); older releases default to 0.9 and leave CUDA graphs outside")
		}
	case argSet:
		if !(util > 0 && util <= 1) {
			e.est.assume("--gpu-memory-utilization %g is outside (0, 1]: vLLM refuses it", util)
			return
		}
	}
	e.util, e.utilKnown = util, true
	e.est.MemFractionStatic = ptr(util)
	if e.gpu == nil || e.gpu.MemoryMiB <= 0 || !e.weightsKnown {
		return
	}
	smi := float64(e.gpu.MemoryBytes()) / gib
	total := int64((smi - vllmDriverReserveGiB) * gib)
	// request_memory: math.ceil(total_memory × gpu_memory_utilization), on
	// the CUDA total.
	requested := int64(math.Ceil(float64(total) * util))
	batched, v0, ok := e.profileBatchVLLM()
	if !ok {
		if v0 {
			e.est.notSized("the profiling batch of vLLM v%s's V0 engine is unknown, so the cache is not sized: declare --max-num-batched-tokens", e.s.Release.Version)
		} else {
			e.est.notSized("the profiling batch (--max-num-batched-tokens) is unknown, so the cache is not sized")
		}
		return
	}
	perToken := vllmActivationMiBPerToken
	graphs := vllmCUDAGraphGiB(batched)
	if v0 {
		// V0 captures CUDA graphs after the cache is sized
		// (vllm/worker/worker.py initialize_cache → _warm_up_model →
		// capture_model, v0.6.4.post1 a6221a14): they take memory beyond the
		// utilization, not from the cache.
		perToken, graphs = vllmV0ActivationMiBPerToken, 0
	} else if e.s.Release.Version != "" && !vllmAtLeast(e.s.Release, vllmUtilizationRelease) {
		// Before vllm#38284 (v0.21.0) V1 leaves CUDA graphs outside the
		// utilization too: determine_available_memory gives the cache
		// requested_memory − non_kv_cache_memory of the profile run, and
		// compile_or_warm_up_model captures the graphs after the cache is
		// allocated (vllm/v1/worker/gpu_worker.py at 6d8d0a24c02b, v0.10.0).
		graphs = 0
		e.est.derive("CUDA graphs take no memory from the cache on vLLM v%s: they are captured after it is sized, outside the utilization (vLLM %s counts them inside)", e.s.Release.Version, vllmUtilizationRelease)
	}
	if eager, _ := e.r.bool("--enforce-eager"); eager {
		graphs = 0
	}
	activation := float64(batched) * perToken / 1024
	runtime := int64((activation + vllmNonTorchGiB + graphs) * gib)
	e.est.assume("vLLM measures its memory at startup; kvlint takes the CUDA total as memory.total − %.2f GiB, the profiled activation peak as %.2f GiB (%d batched tokens × %.2f MiB), non-torch memory %.2f GiB and CUDA graphs %.2f GiB, figures calibrated on public startup logs of vLLM 0.1x–0.2x", vllmDriverReserveGiB, activation, batched, perToken, vllmNonTorchGiB, graphs)
	e.available = make([]int64, len(e.weights))
	for i, w := range e.weights {
		e.available[i] = requested - w - runtime
	}
	e.availKnown = true
	budget := e.available[0]
	for _, a := range e.available {
		budget = min(budget, a)
	}
	e.est.KVBudgetBytes = ptr(budget)
	e.est.derive("KV memory = ceil(CUDA total %s B × gpu_memory_utilization %g) = %s B − weights %s B − activation, non-torch and CUDA-graph memory %s B = %s B per GPU (request_memory, determine_available_memory)", Thousands(total), util, Thousands(requested), Thousands(maxOf(e.weights)), Thousands(runtime), Thousands(budget))
}

// noMemoryVLLM sets vLLM's startup error when a stage has no memory left
// for the cache, and reports whether one has none.
func (e *vllmEstimator) noMemoryVLLM(avail []int64) bool {
	for i, a := range avail {
		if a <= 0 {
			e.est.StartupError = vllmNoMemory(e.s.Release)
			if vllmEngineV0(e.s.Release) {
				e.est.StartupError = vllmV0NoMemory
			}
			e.est.derive("stage %d: %s B for the KV cache: vLLM stops at startup (_check_enough_kv_cache_memory)", i, Thousands(a))
			return true
		}
	}
	return false
}

// poolVLLM computes the blocks vLLM allocates and runs its startup check
// (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs, at 9aaf83ef502f):
// --num-gpu-blocks-override replaces the memory each worker plans with
// (override × bytes per block), --max-model-len auto fits the length to the
// memory, each worker must hold one max_model_len request, and every worker
// gets the smallest worker's number of blocks.
func (e *vllmEstimator) poolVLLM() {
	switch v, st := e.r.int("--num-gpu-blocks-override"); st {
	case argUnknown:
		e.overrideUnkn = true
	case argSet:
		if v >= 0 {
			e.override, e.overrideSet = v, true
			if e.blockOK {
				e.est.PoolUpperBound = ptr(v * e.block)
				e.est.PoolBoundBasis = BoundGPUBlocksOverride
				e.est.derive("--num-gpu-blocks-override %d: the cache holds %d blocks × %d tokens = %s tokens, whatever the memory", v, v, e.block, Thousands(v*e.block))
			}
		}
	}
	if v, st := e.r.int("--max-num-seqs"); st == argSet {
		e.est.MaxRunningRequests = ptr(v)
	}
	if e.hyb != nil && e.cellKnown && e.blockOK {
		e.poolHybridVLLM()
		return
	}
	if !e.cellKnown || !e.blockOK || (!e.availKnown && !e.overrideSet) {
		// Memory the weights and the profile run leave at or below zero
		// stops vLLM whatever the cell (_check_enough_kv_cache_memory:
		// "No available memory for the cache blocks").
		if e.availKnown && !e.overrideSet && e.noMemoryVLLM(e.available) {
			return
		}
		e.memoryBoundVLLM()
		e.explainMissingVLLM()
		return
	}
	layers := e.split
	page := e.block * e.perLayer // bytes of one block in one layer
	avail := make([]int64, len(layers))
	for i, l := range layers {
		switch {
		case e.overrideSet:
			avail[i] = e.override * page * int64(l)
		default:
			avail[i] = e.available[i]
		}
	}
	if e.overrideSet {
		e.est.KVBudgetBytes = ptr(minOf(avail))
	}
	if e.noMemoryVLLM(avail) {
		return
	}
	// fits is the longest request one worker holds: whole blocks of its
	// memory (estimate_max_model_len's binary search lands on this).
	fits := func(i int) int64 { return avail[i] / (page * int64(layers[i])) * e.block }
	if e.ctxAuto && e.ctxKnown {
		fit := e.ctx
		for i := range layers {
			fit = min(fit, fits(i))
		}
		if !e.autoFit(fit, "what the KV cache holds") {
			return
		}
	}
	if e.est.inputs != nil {
		// estimate_max_model_len (vllm/v1/core/kv_cache_utils.py at
		// 001cabc1be16) binary-searches the largest max_model_len whose
		// max_memory_usage_bytes, layers × page × cdiv(len, block), fits the
		// worker's memory: whole blocks of it, the smallest worker's.
		longest := int64(math.MaxInt64)
		for i := range layers {
			longest = min(longest, fits(i))
		}
		e.est.inputs.maxModelLen, e.est.inputs.maxModelLenSet = longest, true
	}
	if e.ctxKnown {
		blocksPerReq := ceilDiv(e.ctx, e.block)
		for i, l := range layers {
			needed := int64(l) * page * blocksPerReq
			if needed <= avail[i] {
				continue
			}
			est := fits(i)
			e.est.StartupError = vllmShortOfMemoryAt(e.s.Release, e.ctx, needed, avail[i], est)
			if vllmEngineV0(e.s.Release) {
				// V0 compares tokens, not bytes: max_model_len against
				// block_size × num_gpu_blocks, the same whole blocks.
				e.est.StartupError = vllmV0ShortOfMemory(e.ctx, est)
				e.est.assume("vLLM v%s runs the V0 engine (V1 is the default from v%s on): its startup check raises V0's error (worker.py raise_if_cache_size_invalid)", e.s.Release.Version, vllmV1Release)
			}
			e.est.KVBudgetBytes = ptr(avail[i])
			e.est.derive("startup check: one %s-token request needs %d layers × %s B × %s blocks = %s B, more than the %s B available: vLLM raises ValueError and does not start", Thousands(e.ctx), l, Thousands(page), Thousands(blocksPerReq), Thousands(needed), Thousands(avail[i]))
			return
		}
	}
	blocks := int64(math.MaxInt64)
	for i, l := range layers {
		b := avail[i] / page / int64(l)
		if e.overrideSet {
			b = e.override
		}
		blocks = min(blocks, b)
	}
	tokens := blocks * e.block
	e.est.PoolTokens = ptr(tokens)
	e.est.KVBlocks = ptr(blocks)
	e.est.LoggedKVTokens = ptr(tokens)
	if !e.overrideSet {
		e.est.derive("blocks = %s B // (%d tokens × %d B) // %d layers = %s (get_num_blocks%s)", Thousands(minOf(avail)), e.block, e.perLayer, maxInt(layers), Thousands(blocks), stagesNote(len(layers)))
	}
	e.est.derive("KV cache: %s blocks × %d = %s tokens per engine", Thousands(blocks), e.block, Thousands(tokens))
	if !e.ctxKnown || e.ctx <= 0 {
		return
	}
	e.est.MaxRequestTokens = ptr(min(e.ctx, tokens))
	e.est.RequestBlocks = ptr(ceilDiv(e.ctx, e.block))
	if e.s.Release.Version == "" || deploy.CompareVersions(e.s.Release.Version, vllmConcurrencyLogRelease) >= 0 {
		// _report_kv_cache_config logs int(num_blocks / blocks per
		// request × max_model_len), which is num_blocks × block_size
		// only when max_model_len is a whole number of blocks.
		e.est.LoggedKVTokens = ptr(int64(float64(blocks) / float64(ceilDiv(e.ctx, e.block)) * float64(e.ctx)))
	}
	n := blocks / ceilDiv(e.ctx, e.block)
	e.est.FullContextRequests = ptr(n)
	e.est.derive("full-context requests that fit at once: %s blocks / %s blocks per %s-token request = %d (vLLM logs it as \"Maximum concurrency\")", Thousands(blocks), Thousands(ceilDiv(e.ctx, e.block)), Thousands(e.ctx), n)
}

// vllmShortOfMemory is the ValueError vLLM's startup check raises, in the
// wording vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory had
// at 001cabc1be16 and in releases before vllm#42479 (2026-05-15, which
// writes "model's" and adds a note on the CPU backend) and #31865
// (2026-01-07, which prints the GiB numbers with round(x, 2) instead of
// "%.2f"). The "Based on the available memory…" sentence appears only when
// the estimate is positive.
func vllmShortOfMemory(ctx, needed, avail, estimate int64) string {
	based := ""
	if estimate > 0 {
		based = fmt.Sprintf("Based on the available memory, the estimated maximum model length is %d. ", estimate)
	}
	return fmt.Sprintf("ValueError: To serve at least one request with the models's max seq len (%d), (%.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). %sTry increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
		ctx, float64(needed)/(1<<30), float64(avail)/(1<<30), based)
}

// explainMissingVLLM says why the cache is not sized.
func (e *vllmEstimator) explainMissingVLLM() {
	if e.model != nil && e.model.Unsupported != "" {
		return
	}
	var why []string
	if !e.kvMemSet && !e.overrideSet && (e.gpu == nil || e.gpu.MemoryMiB <= 0) {
		why = append(why, "the GPU memory")
	}
	if e.model == nil {
		why = append(why, "the model")
	} else if !e.weightsKnown && !e.kvMemSet && !e.overrideSet {
		why = append(why, "the weights")
	}
	if len(why) == 0 {
		return
	}
	e.est.derive("KV cache not sized: %s unknown", joinAnd(why))
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func minOf(v []int64) int64 {
	m := int64(math.MaxInt64)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxInt(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func stagesNote(n int) string {
	if n > 1 {
		return fmt.Sprintf(", the smallest of %d pipeline stages", n)
	}
	return ""
}

// autoFit applies --max-model-len auto: the context becomes fit, the
// longest request the cache holds (how says why), or vLLM refuses to start
// when not one token fits; false then.
func (e *vllmEstimator) autoFit(fit int64, how string) bool {
	if fit <= 0 {
		e.est.StartupError = "ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try increasing `gpu_memory_utilization`."
		return false
	}
	if fit < e.ctx {
		e.est.derive("auto-fit: max_model_len lowered from %s to %s, %s", Thousands(e.ctx), Thousands(fit), how)
	}
	e.ctx = fit
	e.est.ContextLength = ptr(fit)
	return true
}
