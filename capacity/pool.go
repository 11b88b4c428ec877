package capacity

import (
	"fmt"
	"math"
)

// pool computes max_total_num_tokens as SGLang does at startup:
// kv_cache_configurator.py _profile_available_bytes (L1527-1570) gives the
// budget avail − pre × (1 − mem_fraction_static), the pool configurator
// divides it by the cell and aligns to the page (pool_configurator.py
// calculate_pool_sizes), and _apply_token_constraints (L1593-1620) applies
// --max-total-tokens and the MIN across pipeline stages before re-aligning.
func (e *estimator) pool() {
	e.bound()
	if e.gpu == nil || e.gpu.MemoryMiB <= 0 || !e.memFractionKnown || !e.weightsKnown || len(e.cells) == 0 || !e.pageKnown {
		e.memoryBound()
		e.explainMissingPool()
		return
	}
	total := float64(e.gpu.MemoryMiB) / 1024
	gap := sglangPreloadGapGiB(e.gpu, e.tp)
	pre := total - gap
	fabric := "no NVLink peer buffers"
	if n := sglangNVLinkPeers(e.gpu, e.tp); n > 0 {
		fabric = fmt.Sprintf("%d NVLink peers × %.3f GiB", n, sglangPeerBufferGiB)
	}
	e.est.assume("free GPU memory before the weights load is taken as memory.total %.2f GiB − %.2f GiB that the CUDA context (%.2f GiB) and communication buffers (%s) take at start-up (bootstrap.py init_torch_distributed; calibrated on public startup logs, it varies by driver and topology)", total, gap, sglangContextGiB, fabric)
	e.est.assume("weights per GPU: parameter counts × bytes per parameter + %.2f GiB left allocated by loading (calibrated on startup logs); MTP/NextN layers are not loaded without speculative decoding", sglangLoadExtraGiB)

	var budget int64
	limit := int64(math.MaxInt64)
	limitStage := 0
	for r, c := range e.cells {
		weights := float64(e.weights[r])/gib + sglangLoadExtraGiB
		switch {
		case e.draftSelf:
			weights += float64(e.weights[r]) * e.draftFrac / gib
		case e.draftWeightsKnown:
			// The draft worker loads before the target's pool is sized
			// (kv_cache_configurator.py _profile_available_bytes: "Loaded
			// weights (target + draft)").
			weights += float64(e.draftWeights) / gib
		}
		avail := pre - weights
		rest := avail - pre*(1-e.memFraction)
		restBytes := int64(rest * gib)
		if r == 0 || restBytes < budget {
			budget = restBytes
		}
		if rest <= 0 {
			minFrac := 1 - avail/pre
			e.est.KVBudgetBytes = ptr(restBytes)
			e.est.StartupError = fmt.Sprintf("ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=%v. Raise --mem-fraction-static above %.3f (minimum viable = 1 - available/pre = %.4f).",
				e.memFraction, math.Ceil(minFrac*1000)/1000, minFrac)
			e.est.derive("KV budget = %.2f GiB × %v − weights %.2f GiB = %.2f GiB: nothing is left for the pool", pre, e.memFraction, weights, rest)
			return
		}
		tokens, err := e.stageTokens(c, restBytes)
		if err != "" {
			e.est.KVBudgetBytes = ptr(restBytes)
			e.est.StartupError = err
			return
		}
		if len(e.cells) == 1 {
			e.est.derive("KV budget = free %.2f GiB × mem_fraction_static %v − weights and load buffers %.2f GiB = %s B", pre, e.memFraction, weights, Thousands(restBytes))
			e.est.derive("pool = %s B // %s B/token = %s tokens (aligned down to page size %d)", Thousands(restBytes), formatBytesFloat(c.Bytes), Thousands(tokens), e.page)
		} else {
			e.est.derive("stage %d: budget %s B − weights → pool %s tokens", r, Thousands(restBytes), Thousands(tokens))
		}
		if tokens < limit {
			limit, limitStage = tokens, r
		}
	}
	e.est.KVBudgetBytes = ptr(budget)
	if len(e.cells) > 1 {
		e.est.derive("pipeline stages take the minimum (all-reduce MIN): %s tokens, from stage %d", Thousands(limit), limitStage)
	}
	tokens := limit
	if e.maxTotalTokensSet {
		if e.maxTotalTokens < tokens {
			tokens = e.maxTotalTokens
			e.est.derive("--max-total-tokens %s caps the pool", Thousands(e.maxTotalTokens))
		} else {
			e.est.derive("--max-total-tokens %s is above the profiled %s: SGLang warns and keeps the profiled value", Thousands(e.maxTotalTokens), Thousands(limit))
		}
	}
	if tokens != limit {
		tokens = tokens / int64(e.page) * int64(e.page)
	}
	if e.maxTotalTokensUnkn {
		e.est.derive("the profiled pool is %s tokens, but --max-total-tokens is unknown and may lower it: pool not known", Thousands(tokens))
		return
	}
	if e.hybridSWA {
		swa, err := e.swaTokens(tokens)
		if err != "" {
			e.est.StartupError = err
			return
		}
		e.est.SWAPoolTokens = ptr(swa)
	}
	if tokens <= 0 {
		e.est.StartupError = fmt.Sprintf("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=%v", e.memFraction)
		e.est.derive("the pool would hold %d tokens: SGLang stops at startup", tokens)
		return
	}
	e.est.PoolTokens = ptr(tokens)
	perGiB := int64(gib / e.cells[limitStage].Bytes)
	e.est.derive("pool: %s tokens per scheduler; each GiB of memory less at startup lowers it by about %s tokens", Thousands(tokens), Thousands(perGiB))
}

// stageTokens is the configurator's calculate_pool_sizes for one stage.
// It returns the engine's error text when the configuration cannot start.
func (e *estimator) stageTokens(c cell, availBytes int64) (int64, string) {
	page := int64(e.page)
	if !e.hybridSWA {
		// DefaultPoolConfigurator.calculate_pool_sizes L287-292.
		tokens := availBytes / int64(c.Bytes)
		return tokens / page * page, ""
	}
	if swaCap, ok := e.swaChunkCap(c); ok {
		// SWAChunkCapPoolConfigurator.calculate_pool_sizes L524-549: the SWA
		// pool is sized from the request cap, the rest goes to full layers.
		swaTokens := (swaCap + page - 1) / page * page
		fixed := swaTokens * c.SWAPerToken * int64(c.SWALayers)
		fullCell := c.FullPerToken * int64(c.FullLayers)
		full := (availBytes - fixed) / fullCell / page * page
		e.est.derive("SWA pool sized from --max-running-requests (SWAChunkCapPoolConfigurator): %s SWA tokens × %d B × %d layers = %s B; full pool = (budget − that) // %d B", Thousands(swaTokens), c.SWAPerToken, c.SWALayers, Thousands(fixed), fullCell)
		if full <= 0 {
			return 0, fmt.Sprintf("RuntimeError: SWA pool cap (%d tokens, %.2f GiB) leaves no room for the full KV pool within the available %.2f GiB. Reduce --max-running-requests, lower SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static.",
				swaTokens, float64(fixed)/(1<<30), float64(availBytes)/(1<<30))
		}
		e.swaCapTokens = swaTokens
		return full, ""
	}
	// HybridSWAPoolConfigurator.calculate_pool_sizes L449-453: a float cell.
	tokens := int64(pyFloorDiv(float64(availBytes), c.Bytes))
	full := tokens / page * page
	if _, err := e.swaTokens(full); err != "" {
		return 0, err
	}
	return full, ""
}

// swaTokens is _solve_pool_sizes's SWA pool (L401-447): ratio × the full
// pool, page-aligned, and the check that it holds one window.
func (e *estimator) swaTokens(full int64) (int64, string) {
	page := int64(e.page)
	if e.swaCapTokens > 0 {
		return min(e.swaCapTokens, full), ""
	}
	if _, nFull, _ := e.model.hybridLayerCounts(); nFull == 0 {
		return full, "" // all-SWA: the pool is the SWA pool
	}
	swa := int64(float64(full)*e.swaRatio) / page * page
	if w := int64(e.model.SlidingWindow); w > 0 && w+page >= swa {
		return swa, fmt.Sprintf("ValueError: SWA pool (%d tokens) cannot hold even one request: the prefill admission floor is sliding_window_size (%d) + page_size (%d). Increase --swa-full-tokens-ratio or the total KV budget.", swa, w, page)
	}
	return swa, ""
}

// swaChunkCap is SWAChunkCapPoolConfigurator's SWA token cap (L470-509) when
// it applies (is_applicable L511-522): an explicit --max-running-requests,
// the radix cache off (as PD decode forces), a chunked prefill size and a
// sliding window.
func (e *estimator) swaChunkCap(c cell) (int64, bool) {
	m := e.model
	if c.FullLayers == 0 || m.SlidingWindow <= 0 {
		return 0, false
	}
	mrr, st := e.r.int("--max-running-requests")
	if st != argSet || mrr <= 0 {
		return 0, false
	}
	mode, _ := e.r.str("--disaggregation-mode")
	radixOff, _ := e.r.bool("--disable-radix-cache")
	if mode == "decode" {
		// PD decode forces the chunk cache unless
		// --disaggregation-decode-enable-radix-cache
		// (arg_groups/pd_disaggregation_hook.py L29-57).
		keep, _ := e.r.bool("--disaggregation-decode-enable-radix-cache")
		radixOff = !keep
	}
	if !radixOff {
		return 0, false
	}
	page := int64(e.page)
	window := int64(m.SlidingWindow)
	draft := int64(1)
	if v, st := e.r.int("--speculative-num-draft-tokens"); st == argSet && v > 0 {
		draft = v
	}
	const evictionInterval = 128 // SGLANG_SWA_EVICTION_INTERVAL default (environ.py L414)
	perRequest := window + evictionInterval*draft + page + page
	attnDP := int64(1)
	if e.dpAttention {
		attnDP = int64(e.dp)
	}
	numReqs := mrr / attnDP
	if mode == "decode" {
		extra, st := e.r.int("--disaggregation-decode-extra-slots")
		if st != argSet {
			// pd_disaggregation_hook.py L62-72: 2 × the per-worker batch when it is ≤ 32.
			extra = 0
			if perWorker := mrr / int64(max(1, e.dp)); perWorker <= 32 {
				extra = perWorker * 2
			}
		}
		return perRequest*numReqs + (window+page)*extra, true
	}
	chunked, st := e.r.int("--chunked-prefill-size")
	if st != argSet {
		gpuMiB := int64(0)
		if e.gpu != nil {
			gpuMiB = e.gpu.MemoryMiB
		}
		def, _ := memDefaults(gpuMiB, e.tp)
		chunked = int64(def)
		if e.dpAttention {
			chunked /= int64(e.dp)
		}
	}
	inFlight := int64(2)
	if off, _ := e.r.bool("--disable-overlap-schedule"); off {
		inFlight = 1
	}
	return perRequest*numReqs + inFlight*chunked + page, true
}

// bound sets PoolUpperBound from an explicit --max-total-tokens, aligned to
// the page as the engine aligns it.
func (e *estimator) bound() {
	if !e.maxTotalTokensSet {
		return
	}
	page := int64(1)
	if e.pageKnown && e.page > 0 {
		page = int64(e.page)
	}
	b := e.maxTotalTokens / page * page
	if b < 0 {
		b = 0
	}
	e.est.PoolUpperBound = ptr(b)
	e.est.PoolBoundBasis = BoundMaxTotalTokens
	e.est.derive("pool ≤ %s tokens: --max-total-tokens %s aligned down to page size %d", Thousands(b), Thousands(e.maxTotalTokens), page)
}

// explainMissingPool says why the pool is not computed.
func (e *estimator) explainMissingPool() {
	if e.model != nil && e.model.Unsupported != "" {
		return
	}
	var why []string
	if e.gpu == nil || e.gpu.MemoryMiB <= 0 {
		why = append(why, "the GPU memory")
	}
	if e.model == nil {
		why = append(why, "the model")
	} else if !e.weightsKnown {
		why = append(why, "the weights")
	}
	if len(why) == 0 {
		return
	}
	msg := "pool not computed: " + joinAnd(why) + " unknown"
	if e.est.PoolUpperBound != nil {
		by := e.est.PoolBoundBasis
		if by == BoundMemory {
			by = "GPU memory × fraction ÷ cell"
		}
		msg += fmt.Sprintf("; it is at most %s tokens (%s)", Thousands(*e.est.PoolUpperBound), by)
	}
	e.est.derive("%s", msg)
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := ""
	for i, v := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			out += " and "
		default:
			out += ", "
		}
		out += v
	}
	return out + " are"
}

// limits derives what the pool means for requests: tp_worker.py
// alloc_memory_pool/get_worker_info (L361-386, L481-498).
func (e *estimator) limits() {
	if v, st := e.r.int("--max-running-requests"); st == argSet {
		e.est.MaxRunningRequests = ptr(v)
	}
	ctx, pool := e.est.ContextLength, e.est.PoolTokens
	if ctx == nil || pool == nil {
		return
	}
	maxReq := min(*ctx-1, *pool-1)
	e.est.MaxRequestTokens = ptr(maxReq)
	e.est.derive("max request length = min(context %s − 1, pool %s − 1) = %s tokens", Thousands(*ctx), Thousands(*pool), Thousands(maxReq))
	if maxReq <= 0 {
		e.est.StartupError = "AssertionError: Memory pool size is too small"
	}
	if *ctx > 0 {
		n := *pool / *ctx
		e.est.FullContextRequests = ptr(n)
		e.est.derive("full-context requests that fit at once: pool %s / context %s = %d", Thousands(*pool), Thousands(*ctx), n)
	}
}
