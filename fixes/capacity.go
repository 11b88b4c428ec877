package fixes

import (
	"fmt"
	"strconv"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// The capacity findings (rules/policies/capacity) say a pool is too small
// for what must fit in it: KV101 and KV104 one context window, KV102 a
// context window per concurrent request, KV103 anything at all. Their fixes
// are the flags that make it fit, each judged by re-running the capacity
// estimate with the new value (capacity.Estimate.With), never by a second
// formula, and ranked least disruptive first: a larger pool in memory the
// GPU has, then serving less (fewer requests at once, shorter requests),
// then more GPUs.
func init() {
	register("KV101", poolFixes)
	register("KV104", poolFixes)
	register("KV102", poolFixes)
	register("KV103", poolFixes)
}

// demand is what the pool must hold for a finding to hold no more.
type demand struct {
	ctx int64 // the context window
	// per is how many context windows must fit at once on one scheduler;
	// mrr is set when --max-running-requests is what asks for them.
	per int64
	mrr bool
	// attnDP divides --max-running-requests over attention-DP ranks.
	attnDP int64
	// fixed, when set, is the demand in tokens whatever the context: the
	// longest prompt a prefill partner admits (KV205).
	fixed int64
}

func (d demand) tokens() int64 {
	if d.fixed > 0 {
		return d.fixed
	}
	return d.ctx * d.per
}

func poolFixes(s *Subject) []diag.Fix {
	est, srv := s.Estimate, s.Server
	if est == nil || srv == nil || est.ContextLength == nil || *est.ContextLength <= 0 {
		return nil
	}
	if est.StartupError != "" && est.KVBudgetBytes == nil && est.PoolTokens == nil && est.PoolUpperBound == nil {
		// The server stops before it sizes any memory (a setting it
		// refuses, such as --swa-full-tokens-ratio 0): no pool or
		// fraction changes that, and the flag's own finding says what does.
		return nil
	}
	// What must fit is the context window times the concurrency the
	// server declares, for every capacity finding: a fix that makes one
	// request fit but not the declared concurrency only trades KV101 for
	// KV102.
	d := demand{ctx: *est.ContextLength, per: 1, attnDP: 1}
	if !concurrencyDemand(s, &d) && s.Finding.Rule == "KV102" {
		return nil
	}
	c := &capFixer{s: s, est: est, srv: srv, d: d, ctxFlag: "--context-length", tpFlag: "--tp-size"}
	if srv.Engine == deploy.EngineVLLM {
		c.ctxFlag, c.tpFlag = "--max-model-len", "--tensor-parallel-size"
	}
	var out []diag.Fix
	out = append(out, c.raiseCap()...)
	out = append(out, c.raiseFraction()...)
	if d.mrr {
		out = append(out, c.fewerRequests()...)
	}
	out = append(out, c.shorterContext()...)
	out = append(out, c.moreTP()...)
	return out
}

// concurrencyDemand reads what KV102 compares the pool with
// (ConcurrencyDemand) into d; false when no concurrency is declared or it
// comes to no request per scheduler.
func concurrencyDemand(s *Subject, d *demand) bool {
	cd, ok := ConcurrencyDemand(s.Server, s.Estimate, s.ExpectedConcurrency)
	if !ok || !cd.Declared() {
		return false
	}
	d.per, d.mrr, d.attnDP = cd.Per, cd.MaxRunning, cd.AttnDP
	return d.per > 0
}

type capFixer struct {
	s       *Subject
	est     *capacity.Estimate
	srv     *deploy.Server
	d       demand
	ctxFlag string
	tpFlag  string
}

// fix builds one fix that sets flags, in order, to values; results are the
// numbers the recomputed estimate gives.
func (c *capFixer) fix(desc string, result []diag.Quantity, set ...[2]string) diag.Fix {
	f := diag.Fix{Description: desc, Result: result}
	for _, kv := range set {
		reps, why := setFlag(c.s.Files, c.srv, kv[0], kv[1])
		if why != "" {
			f.Replacements, f.Unwritable = nil, kv[0]+": "+why
			return f
		}
		f.Replacements = append(f.Replacements, reps...)
	}
	return f
}

// finish turns a recomputed estimate into a fix: as it is when its pool
// meets the demand, else, when --max-running-requests is what asks for
// more, with the requests lowered to the full-context requests that pool
// holds (one at least). set are the flag edits that gave e.
func (c *capFixer) finish(desc string, e capacity.Estimate, changes []capacity.Change, set [][2]string, lead ...diag.Quantity) []diag.Fix {
	if c.holds(e, c.d) {
		return []diag.Fix{c.fix(desc, append(lead, poolResult(e)...), set...)}
	}
	if !c.d.mrr || e.PoolTokens == nil || e.ContextLength == nil || *e.ContextLength <= 0 {
		return nil
	}
	per := *e.PoolTokens / *e.ContextLength
	if per < 1 || per >= c.d.per {
		return nil
	}
	n := per * c.d.attnDP
	e2, ok := c.est.With(append(changes, capacity.SetInt("--max-running-requests", n))...)
	d := c.d
	d.per = per
	if !ok || !c.holds(e2, d) {
		return nil
	}
	set = append(set, [2]string{"--max-running-requests", strconv.FormatInt(n, 10)})
	lead = append(lead, diag.Quantity{Name: "running", Value: float64(n), Unit: "requests"})
	return []diag.Fix{c.fix(fmt.Sprintf("%s and --max-running-requests %d", desc, n), append(lead, poolResult(e2)...), set...)}
}

// poolResult is the pool a recomputed estimate gives, with the memory it
// takes and the memory there is for it.
func poolResult(e capacity.Estimate) []diag.Quantity {
	var q []diag.Quantity
	if e.PoolTokens != nil {
		q = append(q, diag.Quantity{Name: "pool", Value: float64(*e.PoolTokens), Unit: "tokens"})
		if e.CellBytesPerToken != nil {
			q = append(q, diag.Quantity{Name: "needs", Value: float64(*e.PoolTokens * *e.CellBytesPerToken), Unit: "bytes"})
		}
		if e.KVBudgetBytes != nil {
			q = append(q, diag.Quantity{Name: "free", Value: float64(*e.KVBudgetBytes), Unit: "bytes"})
		}
	} else if e.PoolUpperBound != nil {
		q = append(q, diag.Quantity{Name: "pool at most", Value: float64(*e.PoolUpperBound), Unit: "tokens"})
	}
	return q
}

// heldAt says how many tokens an estimate's memory holds, for a fix that
// cannot make room. A server that would not start (vLLM's startup check)
// has no pool, yet its budget still holds budget ÷ cell tokens; with
// neither known the count is unknown, never "nothing".
func heldAt(e capacity.Estimate) string {
	switch {
	case e.PoolTokens != nil:
		return fmt.Sprintf("%s tokens", capacity.Thousands(*e.PoolTokens))
	case e.KVBudgetBytes != nil && *e.KVBudgetBytes <= 0:
		return "nothing"
	case e.KVBudgetBytes != nil && e.CellBytesPerToken != nil && *e.CellBytesPerToken > 0:
		return fmt.Sprintf("about %s tokens", capacity.Thousands(*e.KVBudgetBytes / *e.CellBytesPerToken))
	}
	return "an unknown number of tokens"
}

// holds reports whether a recomputed estimate meets the demand: the server
// starts and its pool (or, with no GPU known, its cap) holds ctx × per.
func (c *capFixer) holds(e capacity.Estimate, d demand) bool {
	if e.StartupError != "" || (e.KVBudgetBytes != nil && *e.KVBudgetBytes <= 0) {
		return false
	}
	if e.ContextLength == nil {
		return false
	}
	need := *e.ContextLength * d.per
	if d.fixed > 0 {
		need = d.fixed
	}
	switch {
	case e.PoolTokens != nil:
		return *e.PoolTokens >= need
	case e.PoolUpperBound != nil:
		return *e.PoolUpperBound >= need
	}
	return false
}

// raiseCap raises an explicit --max-total-tokens (SGLang) or
// --num-gpu-blocks-override (vLLM) that holds the pool below the demand,
// when the memory under it already holds more.
func (c *capFixer) raiseCap() []diag.Fix {
	need := c.d.tokens()
	if c.srv.Engine == deploy.EngineVLLM {
		return c.raiseBlocks(need)
	}
	if _, ok := c.srv.Args["--max-total-tokens"]; !ok || c.est.PoolUpperBound == nil || *c.est.PoolUpperBound >= need {
		return nil
	}
	page := int64(max(c.est.PageSize, 1))
	n := (need + page - 1) / page * page // the engine aligns the cap down to the page
	if free, ok := c.est.With(capacity.Unset("--max-total-tokens")); ok && free.PoolTokens != nil && *free.PoolTokens < n {
		// The memory holds less than the demand: the cap can rise to what
		// it holds, no further.
		n = *free.PoolTokens
	}
	if n < c.d.ctx || n <= *c.est.PoolUpperBound {
		return nil
	}
	changes := []capacity.Change{capacity.SetInt("--max-total-tokens", n)}
	e, ok := c.est.With(changes...)
	if !ok {
		return nil
	}
	desc := fmt.Sprintf("--max-total-tokens %d", n)
	if e.PoolTokens == nil {
		desc += " (the GPU's memory is not known, so kvlint cannot check that it holds them)"
	}
	return c.finish(desc, e, changes, [][2]string{{"--max-total-tokens", strconv.FormatInt(n, 10)}})
}

// raiseBlocks raises vLLM's --num-gpu-blocks-override to the blocks one
// demand needs, when the memory holds them.
func (c *capFixer) raiseBlocks(need int64) []diag.Fix {
	if _, ok := c.srv.Args["--num-gpu-blocks-override"]; !ok || c.est.PageSize <= 0 {
		return nil
	}
	block := int64(c.est.PageSize)
	blocks := (need + block - 1) / block
	changes := []capacity.Change{capacity.SetInt("--num-gpu-blocks-override", blocks)}
	e, ok := c.est.With(changes...)
	if !ok {
		return nil
	}
	return c.finish(fmt.Sprintf("--num-gpu-blocks-override %d", blocks), e, changes,
		[][2]string{{"--num-gpu-blocks-override", strconv.FormatInt(blocks, 10)}})
}

// raiseFraction raises the memory fraction to the smallest hundredth whose
// pool holds the demand. The ceiling is the engine's own default for this
// server, or the value already written if higher: above it the engine's
// reserve for activations and CUDA graphs shrinks (SGLang computes that
// reserve per GPU and configuration in server_args.py
// _handle_gpu_memory_settings; vLLM leaves 1 − gpu_memory_utilization
// outside its budget). When no fraction up to it holds the demand the GPU
// does not have the memory: the fix says so and edits nothing.
func (c *capFixer) raiseFraction() []diag.Fix {
	flag := capacity.FractionFlag(c.srv.Engine)
	if flag == "" || c.est.GPUMemoryBytes == nil || c.est.WeightsBytesPerGPU == nil {
		return nil
	}
	if _, ok := c.srv.Args["--kv-cache-memory-bytes"]; ok {
		return nil // vLLM ignores the utilization then
	}
	var keep []capacity.Change
	capped := false
	if v, ok := c.srv.Args["--max-total-tokens"]; ok && c.srv.Engine == deploy.EngineSGLang {
		if n, ok := v.Typed.Int(); ok && n < c.d.tokens() {
			capped = true
			keep = append(keep, capacity.Unset("--max-total-tokens"))
		}
	}
	if capped {
		// The cap, not the memory, holds the pool down when the memory
		// already holds the demand: raiseCap offers that.
		if e, ok := c.est.With(keep...); ok && c.holds(e, c.d) {
			return nil
		}
	}
	def, ok := c.est.With(capacity.Unset(flag))
	if !ok || def.MemFractionStatic == nil {
		return nil
	}
	ceiling := *def.MemFractionStatic
	if c.est.MemFractionStatic != nil && *c.est.MemFractionStatic > ceiling {
		ceiling = *c.est.MemFractionStatic
	}
	need := c.d.tokens()
	f, e, ok := c.est.FractionForPool(need, ceiling, keep...)
	if !ok && c.d.mrr && c.d.per > 1 {
		// No fraction holds every declared request: the fraction that
		// holds one, with fewer requests (finish lowers them).
		f, e, ok = c.est.FractionForPool(c.d.ctx, ceiling, keep...)
	}
	if !ok {
		top, _ := c.est.With(append([]capacity.Change{capacity.SetFloat(flag, ceiling)}, keep...)...)
		held := heldAt(top)
		return []diag.Fix{{
			Description: fmt.Sprintf("%s cannot make room: at %v, the most that keeps the engine's reserve for activations, the pool holds %s, short of %s", flag, ceiling, held, capacity.Thousands(need)),
			Result:      poolResult(top),
			Unwritable:  fmt.Sprintf("the %s does not have the memory: no %s up to %v holds %s tokens", gpuName(c.est), flag, ceiling, capacity.Thousands(need)),
		}}
	}
	if c.est.MemFractionStatic != nil && f <= *c.est.MemFractionStatic {
		return nil
	}
	fs := strconv.FormatFloat(f, 'f', -1, 64)
	set := [][2]string{{flag, fs}}
	changes := []capacity.Change{capacity.SetFloat(flag, f)}
	desc := fmt.Sprintf("%s %s", flag, fs)
	if capped {
		// The cap would hold the larger pool down: it goes too.
		n := *e.PoolTokens
		set = append(set, [2]string{"--max-total-tokens", strconv.FormatInt(n, 10)})
		changes = append(changes, capacity.SetInt("--max-total-tokens", n))
		desc += fmt.Sprintf(" and --max-total-tokens %d", n)
		e2, ok := c.est.With(changes...)
		if !ok {
			return nil
		}
		e = e2
	}
	return c.finish(desc, e, changes, set)
}

func gpuName(e *capacity.Estimate) string {
	if e.GPU != "" {
		return e.GPU
	}
	return "GPU"
}

// fewerRequests lowers --max-running-requests to the full-context requests
// the pool holds at once.
func (c *capFixer) fewerRequests() []diag.Fix {
	pool := c.poolLimit()
	if pool <= 0 {
		return nil
	}
	per := pool / c.d.ctx
	if per < 1 {
		return nil
	}
	n := per * c.d.attnDP
	e, ok := c.est.With(capacity.SetInt("--max-running-requests", n))
	if !ok {
		return nil
	}
	d := c.d
	d.per = per
	if !c.holds(e, d) {
		return nil
	}
	return []diag.Fix{c.fix(fmt.Sprintf("--max-running-requests %d", n),
		append([]diag.Quantity{{Name: "running", Value: float64(n), Unit: "requests"}}, poolResult(e)...),
		[2]string{"--max-running-requests", strconv.FormatInt(n, 10)})}
}

// poolLimit is the pool the finding judged: the computed pool, else the
// explicit cap (rules/policies/lib pool_limit).
func (c *capFixer) poolLimit() int64 {
	switch {
	case c.est.PoolTokens != nil:
		return *c.est.PoolTokens
	case c.est.PoolUpperBound != nil:
		return *c.est.PoolUpperBound
	}
	return 0
}

// shorterContext lowers the context window to what the pool holds: for
// SGLang the pool (per request when several must fit), for vLLM the
// "estimated maximum model length" its startup check computes
// (capacity.Estimate.EstimatedMaxModelLen). The pool is recomputed at the
// new length, which can move it (SGLang's default memory fraction depends
// on it), a few times until the two agree.
func (c *capFixer) shorterContext() []diag.Fix {
	var n int64
	if c.srv.Engine == deploy.EngineVLLM {
		if l, ok := c.est.EstimatedMaxModelLen(); ok {
			n = l / c.d.per
		}
	} else if pool := c.poolLimit(); pool > 0 {
		n = pool / c.d.per
	}
	for range 4 {
		if n <= 0 || n >= c.d.ctx {
			return nil
		}
		e, ok := c.est.With(capacity.SetInt(c.ctxFlag, n))
		if !ok {
			return nil
		}
		if c.holds(e, c.d) {
			return []diag.Fix{c.fix(fmt.Sprintf("%s %d", c.ctxFlag, n),
				append([]diag.Quantity{{Name: "context", Value: float64(n), Unit: "tokens"}}, poolResult(e)...),
				[2]string{c.ctxFlag, strconv.FormatInt(n, 10)})}
		}
		switch {
		case e.PoolTokens != nil:
			n = min(n-1, *e.PoolTokens/c.d.per)
		default:
			if l, ok := e.EstimatedMaxModelLen(); ok {
				n = min(n-1, l/c.d.per)
			} else {
				return nil
			}
		}
	}
	return nil
}

// moreTP doubles tensor parallelism, up to the 8 GPUs of one node, when
// that pool holds the demand: the most disruptive fix, it needs more GPUs.
// A GPU count the container requests is raised with it.
func (c *capFixer) moreTP() []diag.Fix {
	// Only a pool the memory sizes grows with more GPUs: with the GPU or
	// the model unknown there is nothing to recompute.
	memoryBound := c.est.PoolTokens != nil || c.est.StartupError != "" || c.est.KVBudgetBytes != nil && *c.est.KVBudgetBytes <= 0
	if c.est.TP < 1 || !memoryBound {
		return nil
	}
	if _, ok := c.srv.Args["--nnodes"]; ok {
		return nil
	}
	if v, ok := c.srv.Args["--max-total-tokens"]; ok {
		if n, ok := v.Typed.Int(); ok && n < c.d.tokens() {
			return nil // the cap, not the memory, holds the pool down
		}
	}
	pp, dp := max(c.est.PP, 1), max(c.est.DP, 1)
	for tp := c.est.TP * 2; tp*pp <= 8; tp *= 2 {
		if c.srv.Engine == deploy.EngineSGLang {
			if ok, known := c.est.SplitsHeads(tp); known && !ok {
				continue // SGLang asserts at model load
			}
		}
		gpus := tp * pp
		if c.srv.Engine == deploy.EngineVLLM || !dpAttention(c.srv, dp) {
			gpus *= dp
		}
		changes := []capacity.Change{capacity.SetInt(c.tpFlag, int64(tp))}
		if c.srv.GPUCount.IsSet() {
			// The fix raises the container's GPU count with --tp-size:
			// judged on the old count, the server could not start.
			if n, err := strconv.Atoi(c.srv.GPUCount.Raw); err != nil || n < gpus {
				changes = append(changes, capacity.SetGPUCount(gpus))
			}
		}
		e, ok := c.est.With(changes...)
		if !ok {
			continue
		}
		desc := fmt.Sprintf("%s %d (%d GPUs)", c.tpFlag, tp, gpus)
		fs := c.finish(desc, e, changes, [][2]string{{c.tpFlag, strconv.Itoa(tp)}})
		if len(fs) == 0 {
			continue
		}
		f := fs[0]
		if f.Unwritable == "" && c.srv.GPUCount.IsSet() {
			if n, err := strconv.Atoi(c.srv.GPUCount.Raw); err != nil || n < gpus {
				reps, why := setValue(c.s.Files, c.srv.GPUCount, strconv.Itoa(gpus))
				if why != "" {
					f.Replacements, f.Unwritable = nil, "the GPU count: "+why
				} else {
					f.Replacements = append(f.Replacements, reps...)
					f.Description += fmt.Sprintf(", and the container's GPU count %d", gpus)
				}
			}
		}
		return []diag.Fix{f}
	}
	return nil
}

func dpAttention(s *deploy.Server, dp int) bool {
	v, ok := s.Args["--enable-dp-attention"]
	if !ok {
		return false
	}
	b, _ := v.Typed.Bool()
	return b && dp > 1
}
