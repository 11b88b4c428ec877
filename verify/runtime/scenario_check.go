package runtime

import (
	"fmt"
	"slices"
	"strings"
)

// Limits that keep a run small enough to finish in seconds on a laptop. A scenario is a
// scaled-down model of a deployment, never the deployment itself.
const (
	maxWorkersPerRole = 16
	maxPoolTokens     = 1 << 20
	maxTotalPool      = 1 << 22
	maxContext        = 1 << 20
	maxRequests       = 100_000
	maxPageSize       = 4096
)

// ScenarioError is a problem with a scenario, located in its file when it came from one.
type ScenarioError struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// Path names the field, like "prefill[0].page_size".
	Path string `json:"path,omitempty"`
	Msg  string `json:"msg"`
}

func (e *ScenarioError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func problem(path, format string, args ...any) *ScenarioError {
	return &ScenarioError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// Validate reports the first problem of the scenario, after defaults are applied.
func (s Scenario) Validate() error {
	_, err := s.withDefaults()
	if err != nil {
		return err
	}
	return nil
}

// withDefaults returns a copy with SGLang's defaults filled in, or the first problem.
func (s Scenario) withDefaults() (Scenario, *ScenarioError) {
	out := s
	out.Prefill = slices.Clone(s.Prefill)
	out.Decode = slices.Clone(s.Decode)
	if out.MaxVirtualSeconds == 0 {
		out.MaxVirtualSeconds = 3600
	}
	if !(out.MaxVirtualSeconds > 0 && out.MaxVirtualSeconds <= 86400) {
		return out, problem("max_virtual_seconds", "must be between 0 and 86400, got %g", out.MaxVirtualSeconds)
	}
	if e := out.Router.fill(); e != nil {
		return out, e
	}
	if len(out.Prefill) == 0 {
		return out, problem("prefill", "at least one prefill worker is required")
	}
	if len(out.Decode) == 0 {
		return out, problem("decode", "at least one decode worker is required")
	}
	total := 0
	for _, side := range []struct {
		role  string
		group []Worker
	}{{"prefill", out.Prefill}, {"decode", out.Decode}} {
		role, group := side.role, side.group
		count := 0
		for i := range group {
			if e := group[i].fill(fmt.Sprintf("%s[%d]", role, i), role == "decode"); e != nil {
				return out, e
			}
			count += group[i].Count
			total += group[i].Count * group[i].PoolTokens
		}
		if count > maxWorkersPerRole {
			return out, problem(role, "at most %d %s workers, got %d", maxWorkersPerRole, role, count)
		}
	}
	names := map[string]bool{}
	for _, side := range []struct {
		role  string
		group []Worker
	}{{"prefill", out.Prefill}, {"decode", out.Decode}} {
		for i, w := range side.group {
			if w.Name != "" && names[w.Name] {
				return out, problem(fmt.Sprintf("%s[%d].name", side.role, i), "two worker groups are named %q", w.Name)
			}
			names[w.Name] = true
		}
	}
	if total > maxTotalPool {
		return out, problem("prefill", "the pools add up to %d tokens; at most %d (scale the scenario down)", total, maxTotalPool)
	}
	if e := out.Timing.fill(); e != nil {
		return out, e
	}
	seen := map[Fault]bool{}
	for i, f := range out.Faults {
		if !f.known() {
			return out, problem(fmt.Sprintf("faults[%d]", i), "unknown fault %q (known: %s)", f, strings.Join(faultNames(), ", "))
		}
		if seen[f] {
			return out, problem(fmt.Sprintf("faults[%d]", i), "fault %q listed twice", f)
		}
		seen[f] = true
	}
	seenM := map[Mechanism]bool{}
	for i, m := range out.Engine {
		if !m.known() {
			return out, problem(fmt.Sprintf("engine_paths[%d]", i), "unknown engine path %q (known: %s)", m, strings.Join(mechanismNames(), ", "))
		}
		if seenM[m] {
			return out, problem(fmt.Sprintf("engine_paths[%d]", i), "engine path %q listed twice", m)
		}
		seenM[m] = true
	}
	wl, e := out.Workload.withDefaults(out.Seed)
	if e != nil {
		return out, e
	}
	out.Workload = wl
	return out, nil
}

func (r *RouterConfig) fill() *ScenarioError {
	switch r.Policy {
	case "":
		r.Policy = "round_robin"
	case "round_robin", "prefix_aware":
	default:
		return problem("router.policy", "unknown policy %q (round_robin, prefix_aware)", r.Policy)
	}
	if r.CacheThreshold == 0 {
		r.CacheThreshold = 0.5
	}
	if !(r.CacheThreshold >= 0 && r.CacheThreshold <= 1) {
		return problem("router.cache_threshold", "must be within [0, 1], got %g", r.CacheThreshold)
	}
	return nil
}

func (w *Worker) fill(path string, decode bool) *ScenarioError {
	if w.Count == 0 {
		w.Count = 1
	}
	if w.Count < 0 || w.Count > maxWorkersPerRole {
		return problem(path+".count", "must be between 1 and %d, got %d", maxWorkersPerRole, w.Count)
	}
	if w.PageSize == 0 {
		w.PageSize = 1 // the CUDA default (arg_groups/overrides.py _page_size_default)
	}
	if w.PageSize < 1 || w.PageSize > maxPageSize {
		return problem(path+".page_size", "must be between 1 and %d, got %d", maxPageSize, w.PageSize)
	}
	if w.PoolTokens <= 0 || w.PoolTokens > maxPoolTokens {
		return problem(path+".pool_tokens", "must be between 1 and %d, got %d", maxPoolTokens, w.PoolTokens)
	}
	// The pool is rounded down to whole pages (pool_configurator.py calculate_pool_sizes).
	w.PoolTokens = w.PoolTokens / w.PageSize * w.PageSize
	if w.PoolTokens == 0 {
		return problem(path+".pool_tokens", "holds no whole page of %d tokens", w.PageSize)
	}
	if w.KVDtype == "" {
		w.KVDtype = "auto"
	}
	if w.ContextLength == 0 {
		w.ContextLength = 2048 // get_context_length's fallback
	}
	if w.ContextLength < 2 || w.ContextLength > maxContext {
		return problem(path+".context_length", "must be between 2 and %d, got %d", maxContext, w.ContextLength)
	}
	// tp_worker.py: assert max_req_len > 0, "Memory pool size is too small".
	if min(w.ContextLength-1, w.PoolTokens-1) <= 0 {
		return problem(path+".pool_tokens", "Memory pool size is too small")
	}
	if w.MaxRunningRequests == 0 {
		w.MaxRunningRequests = autoMaxRunning(w.PoolTokens, w.ContextLength)
	}
	if w.MaxRunningRequests < 1 || w.MaxRunningRequests > 1<<16 {
		return problem(path+".max_running_requests", "must be between 1 and %d, got %d", 1<<16, w.MaxRunningRequests)
	}
	if w.ChunkedPrefillSize == 0 {
		w.ChunkedPrefillSize = 2048 // the smallest GPU class's default (server_args.py)
	}
	if w.ChunkedPrefillSize < -1 || w.ChunkedPrefillSize > 0 && w.ChunkedPrefillSize < w.PageSize {
		return problem(path+".chunked_prefill_size", "must be -1 (off) or at least the page size (%d), got %d", w.PageSize, w.ChunkedPrefillSize)
	}
	if w.MaxPrefillTokens == 0 {
		w.MaxPrefillTokens = 16384
	}
	if w.MaxPrefillTokens < 1 {
		return problem(path+".max_prefill_tokens", "must be positive, got %d", w.MaxPrefillTokens)
	}
	if decode {
		// disaggregation: the decode server is forced to a chunk cache unless
		// --disaggregation-decode-enable-radix-cache, which this runtime does not model.
		off := false
		w.RadixCache = &off
	} else if w.RadixCache == nil {
		on := true
		w.RadixCache = &on
	}
	switch w.EvictionPolicy {
	case "":
		w.EvictionPolicy = "lru"
	case "lru", "lfu":
	default:
		return problem(path+".eviction_policy", "unknown policy %q (lru, lfu)", w.EvictionPolicy)
	}
	switch w.Isolation {
	case "":
		w.Isolation = "cache_salt"
	case "cache_salt", "tenant", "none":
	default:
		return problem(path+".isolation", "unknown isolation %q (cache_salt, tenant, none)", w.Isolation)
	}
	if w.NumReservedDecodeTokens == 0 {
		w.NumReservedDecodeTokens = 512
	}
	if w.NumReservedDecodeTokens < 0 {
		return problem(path+".num_reserved_decode_tokens", "must not be negative")
	}
	if w.TestRetractInterval < 0 {
		return problem(path+".test_retract_interval", "must not be negative")
	}
	return nil
}

// autoMaxRunning is resolve_max_num_reqs's default (mem_cache/kv_cache_configurator.py):
// clamp(max_total_tokens / context_len * 512, 2048, 4096), capped at max_total_tokens // 2.
func autoMaxRunning(pool, context int) int {
	v := int(float64(pool) / float64(context) * 512)
	v = min(max(v, 2048), 4096)
	v = min(v, pool/2)
	return max(v, 1)
}

func (t *Timing) fill() *ScenarioError {
	def := func(v *float64, d float64, name string) *ScenarioError {
		if *v == 0 {
			*v = d
		}
		if !(*v >= 0 && *v <= 1e9) {
			return problem("timing."+name, "must be between 0 and 1e9, got %g", *v)
		}
		return nil
	}
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&t.PrefillPerTokenUs, 20, "prefill_per_token_us"},
		{&t.PrefillStepUs, 1000, "prefill_step_us"},
		{&t.DecodeStepUs, 10000, "decode_step_us"},
		{&t.DecodePerRequestUs, 20, "decode_per_request_us"},
		{&t.RouterUs, 200, "router_us"},
		{&t.PrefillAttentionUs, 0, "prefill_attention_us"},
		{&t.DecodePerContextTokenUs, 0, "decode_per_context_token_us"},
		// SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT and _WAITING_TIMEOUT (pd_disaggregation.mdx).
		{&t.BootstrapTimeoutSec, 300, "bootstrap_timeout_s"},
		{&t.WaitingTimeoutSec, 300, "waiting_timeout_s"},
	} {
		if e := def(f.v, f.d, f.name); e != nil {
			return e
		}
	}
	// transfer_per_page_us 0 means 5 µs per token of the page (about 2 MB per 16-token
	// page of an 8B model over a 25 GB/s link); see prefillWorker.transferCost.
	if !(t.TransferPerPageUs >= 0 && t.TransferPerPageUs <= 1e9) {
		return problem("timing.transfer_per_page_us", "must be between 0 and 1e9, got %g", t.TransferPerPageUs)
	}
	if t.Jitter == nil {
		j := 0.05
		t.Jitter = &j
	}
	if !(*t.Jitter >= 0 && *t.Jitter < 1) {
		return problem("timing.jitter", "must be within [0, 1), got %g", *t.Jitter)
	}
	return nil
}
