package verify

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// PressureCounts is what one load did to the pool, summed over the run's seeds.
type PressureCounts struct {
	Run         string    `json:"run"`
	Behaviour   Behaviour `json:"behaviour"`
	Hypothesis  string    `json:"hypothesis,omitempty"`
	Seeds       int       `json:"seeds"`
	Requests    int       `json:"requests"`
	Concurrency int       `json:"concurrency"`
	// PeakRunning is the most requests any seed ran at once.
	PeakRunning int `json:"peak_running"`
	// PoolPressured counts the requests the pool turned away or disturbed: rejected by a
	// limit the pool sets (max_req_input_len below the context), served from a prefill
	// abort, aborted, stalled, left unfinished, clipped or retracted. A request the
	// context window rejects is not the pool's doing. PerThousand is the same per 1,000.
	PoolPressured int     `json:"pool_pressured_requests"`
	PerThousand   float64 `json:"per_1000_requests"`
	// PerSeed is PoolPressured of each seed: the spread.
	PerSeed           []int `json:"pool_pressured_per_seed"`
	PoolRejected      int   `json:"pool_rejected"`
	ContextRejected   int   `json:"context_rejected"`
	ServedAfterAbort  int   `json:"served_after_prefill_abort"`
	Aborted           int   `json:"aborted"`
	TimedOut          int   `json:"timed_out"`
	Unfinished        int   `json:"unfinished"`
	Clipped           int   `json:"clipped"`
	Retractions       int   `json:"retractions"`
	RetractedRequests int   `json:"retracted_requests"`
	// CrossTenantResponses counts responses that delivered another tenant's canary;
	// CrossTenantPaths the same by the path that produced them (an engine path, the
	// hypothesis, or "unattributed").
	CrossTenantResponses int            `json:"cross_tenant_responses"`
	CrossTenantPaths     map[string]int `json:"cross_tenant_paths"`
}

// CapacityEvidence backs a verdict on a pool that is too small (leakage.md §5.3 (a)), with
// the static check beside the measurements. The verdict rests on DeclaredLoad alone: the
// declared traffic under the release's engine behaviour.
type CapacityEvidence struct {
	Server                  string `json:"server"`
	ContextTokens           int64  `json:"context_tokens"`
	PoolTokens              int64  `json:"pool_tokens"`
	PoolExact               bool   `json:"pool_exact"`
	ConcurrencyPerScheduler int    `json:"concurrency_per_scheduler"`
	RequiredTokens          int64  `json:"required_tokens"`
	// PeakPoolUse is the largest share of a decode pool any seed of the declared load
	// used (0 to 1).
	PeakPoolUse  float64        `json:"peak_pool_use"`
	DeclaredLoad PressureCounts `json:"declared_load"`
	// Hypothesis is the declared load under a hypothesis: context, never the verdict.
	Hypothesis *PressureCounts `json:"hypothesis,omitempty"`
	Limits     *LimitsEvidence `json:"limits,omitempty"`
}

// contextRejection reports whether a rejection came from the context window (the
// tokenizer's check, runtime/sim.go tokenizerCheck) rather than from a pool limit.
func contextRejection(msg string) bool {
	return strings.HasPrefix(msg, "The input (") || strings.HasPrefix(msg, "Requested token count")
}

// countPressure sums what a run's seeds did to the pool.
func countPressure(name string, results []*rt.Result, concurrency int) PressureCounts {
	pc := PressureCounts{Run: name, Behaviour: BehaviourEngine, Concurrency: concurrency, Seeds: len(results), PerSeed: []int{}, CrossTenantPaths: map[string]int{}}
	for _, res := range results {
		if len(res.Faults) > 0 {
			pc.Behaviour, pc.Hypothesis = BehaviourHypothesis, string(res.Faults[0])
		}
		pc.PeakRunning = max(pc.PeakRunning, peakRunning(res))
		seed := 0
		for _, r := range res.Requests {
			if r.Kind != "generated" {
				continue
			}
			pc.Requests++
			pool := false
			switch r.Outcome {
			case "rejected":
				if contextRejection(r.Error) {
					pc.ContextRejected++
				} else {
					pc.PoolRejected++
					pool = true
				}
			case "aborted":
				pc.Aborted++
				pool = true
			case "timeout":
				pc.TimedOut++
				pool = true
			case "unfinished":
				pc.Unfinished++
				pool = true
			}
			if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "prefill aborted the request") }) {
				pc.ServedAfterAbort++
				pool = true
			}
			if r.Clipped {
				pc.Clipped++
				pool = true
			}
			pc.Retractions += r.Retractions
			if r.Retractions > 0 {
				pc.RetractedRequests++
				pool = true
			}
			if pool {
				seed++
			}
			if len(r.LeakedFrom) > 0 {
				pc.CrossTenantResponses++
				pc.CrossTenantPaths[leakPath(r, res)]++
			}
		}
		pc.PoolPressured += seed
		pc.PerSeed = append(pc.PerSeed, seed)
	}
	if pc.Requests > 0 {
		pc.PerThousand = math.Round(float64(pc.PoolPressured)*10000/float64(pc.Requests)) / 10
	}
	return pc
}

// leakPath names the path a cross-tenant response came through, from what the runtime
// noted on the request.
func leakPath(r rt.RequestRecord, res *rt.Result) string {
	for _, n := range r.Notes {
		switch {
		case strings.HasPrefix(n, "prefill aborted the request"):
			return string(rt.MechAbortStillTransfers)
		case strings.HasPrefix(n, "took the KV transfer"):
			return string(rt.MechUncheckedRoom)
		}
	}
	if r.Retractions > 0 && len(res.Faults) > 0 {
		return string(res.Faults[0])
	}
	return "unattributed"
}

// describePaths lists the cross-tenant responses by path, with each engine path's source.
func describePaths(paths map[string]int) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		part := fmt.Sprintf("%d through %s", paths[p], p)
		for _, ep := range enginePaths {
			if string(ep.Mechanism) == p {
				part += " (" + ep.Path + "; " + ep.Reference + ")"
			}
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// peakPoolUse is the largest share of a decode pool the runs used.
func peakPoolUse(results []*rt.Result) float64 {
	u := 0.0
	for _, res := range results {
		for _, w := range res.Workers {
			if w.Role == "decode" && w.PoolTokens > 0 {
				u = max(u, float64(w.PeakUsedTokens)/float64(w.PoolTokens))
			}
		}
	}
	return math.Round(u*1000) / 1000
}

// judgeCapacity applies leakage.md §5.3 (a) at the declared load: a finding is confirmed
// when the declared traffic, under the release's engine behaviour, makes the pool turn
// requests away or disturb them, and not confirmed when it never does. stall narrows it to
// KV104's claim: a request that passes validation waits forever instead of failing.
func (p *plan) judgeCapacity(di int, f diag.Diagnostic, res *analysis.Result, stall bool) (Verdict, Evidence) {
	d := p.deps[di]
	c := d.scaling.Concurrency
	load := p.results(di, runLoad)
	ce := &CapacityEvidence{DeclaredLoad: countPressure(runLoad, load, c), PeakPoolUse: peakPoolUse(load)}
	runs := []string{runLoad}
	if hyp := p.results(di, runLoadStale); len(hyp) > 0 {
		h := countPressure(runLoadStale, hyp, c)
		ce.Hypothesis = &h
		runs = append(runs, runLoadStale)
	}
	p.staticCapacity(di, f, res, ce)
	ev := Evidence{Question: "pool too small", Capacity: ce, Runs: runs}
	dl := ce.DeclaredLoad
	if stall {
		limits, _ := p.result(di, runLimits)
		le := readLimits(limits)
		ce.Limits = &le
		ev.Runs = append(ev.Runs, runLimits)
		stalls := dl.TimedOut + dl.Unfinished
		var verdict Verdict
		switch {
		case stalled(le.Edge) || stalls > 0:
			verdict = Confirmed
		case le.Edge == "ok" && stalls == 0 && d.poolsExact:
			verdict = NotConfirmed
		default:
			verdict = Inconclusive
		}
		ev.Summary = stallSummary(ce, le, stalls)
		return verdict, ev
	}
	var verdict Verdict
	switch {
	case dl.PoolPressured > 0:
		verdict = Confirmed
	case !d.poolsExact:
		verdict = Inconclusive
	default:
		verdict = NotConfirmed
	}
	ev.Summary = capacitySummary(d, ce, verdict)
	return verdict, ev
}

func capacitySummary(d *deployment, ce *CapacityEvidence, v Verdict) string {
	dl := ce.DeclaredLoad
	var b strings.Builder
	fmt.Fprintf(&b, "%s traffic (%d concurrent offered, prompts %s median / %s max, answers %s / %s tokens) on %s",
		d.workload.Source, d.workload.Concurrency, capacity.Thousands(int64(d.workload.Prompt.Median)), capacity.Thousands(int64(d.workload.Prompt.Max)),
		capacity.Thousands(int64(d.workload.Output.Median)), capacity.Thousands(int64(d.workload.Output.Max)), d.release.describe())
	fmt.Fprintf(&b, ": %d requests over %d seeds peaked at %d running and %s of a decode pool",
		dl.Requests, dl.Seeds, dl.PeakRunning, percent(ce.PeakPoolUse))
	if dl.PoolPressured > 0 {
		fmt.Fprintf(&b, "; the pool turned away or disturbed %d (%s per 1,000; per seed %s: %s)",
			dl.PoolPressured, trimFloat(dl.PerThousand), joinInts(dl.PerSeed), pressureParts(dl))
	} else {
		b.WriteString("; the pool turned away or disturbed none of them")
	}
	if dl.ContextRejected > 0 {
		fmt.Fprintf(&b, "; %d prompts longer than the context window were rejected by the tokenizer, which is the traffic's doing, not the pool's", dl.ContextRejected)
	}
	if dl.CrossTenantResponses > 0 {
		fmt.Fprintf(&b, "; under the release's engine behaviour %d responses crossed tenants: %s", dl.CrossTenantResponses, describePaths(dl.CrossTenantPaths))
	}
	if h := ce.Hypothesis; h != nil {
		fmt.Fprintf(&b, "; under the hypothesis %s (not shown in SGLang, never counted as confirmation), %d of %d responses cross tenants", h.Hypothesis, h.CrossTenantResponses, h.Requests)
	}
	if ce.RequiredTokens > 0 && ce.PoolTokens > 0 {
		rel := "≤"
		if ce.RequiredTokens > ce.PoolTokens {
			rel = ">"
		}
		fmt.Fprintf(&b, "; static: %d concurrent × %s-token context = %s tokens %s the %s-token pool of %s",
			ce.ConcurrencyPerScheduler, capacity.Thousands(ce.ContextTokens), capacity.Thousands(ce.RequiredTokens), rel, capacity.Thousands(ce.PoolTokens), ce.Server)
	}
	switch v {
	case NotConfirmed:
		b.WriteString("; the declared traffic never fills the pool")
	case Inconclusive:
		b.WriteString("; only an upper bound of a pool is known, so the absence of pressure proves nothing")
	}
	return b.String()
}

func percent(x float64) string { return trimFloat(x*100) + "%" }

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func stallSummary(ce *CapacityEvidence, le LimitsEvidence, stalls int) string {
	var b strings.Builder
	switch {
	case stalled(le.Edge):
		fmt.Fprintf(&b, "a prompt that passes validation (%s scaled tokens) waited %s s for pages and ended %s",
			capacity.Thousands(int64(le.EdgePromptTokens)), trimFloat(float64(le.EdgeLatencyMs)/1000), le.Edge)
		if le.BehindLatencyMs >= 1000 {
			fmt.Fprintf(&b, "; the small request behind it waited %s s", trimFloat(float64(le.BehindLatencyMs)/1000))
		}
	case le.Edge == "ok":
		fmt.Fprintf(&b, "a prompt at the validation limit (%s scaled tokens) was admitted and served in %s s",
			capacity.Thousands(int64(le.EdgePromptTokens)), trimFloat(float64(le.EdgeLatencyMs)/1000))
	default:
		fmt.Fprintf(&b, "a prompt at the validation limit (%s scaled tokens) ended %s (%s), so the stall path was not reached",
			capacity.Thousands(int64(le.EdgePromptTokens)), le.Edge, le.EdgeError)
	}
	fmt.Fprintf(&b, "; %d requests of the declared load stalled", stalls)
	if h := ce.Hypothesis; h != nil {
		fmt.Fprintf(&b, "; under the hypothesis %s, %d of %d responses cross tenants", h.Hypothesis, h.CrossTenantResponses, h.Requests)
	}
	return b.String()
}

// LimitsEvidence is the scripted edge of the limits: a prompt as long as the context (which
// must be rejected), the longest prompt validation accepts, and a small request behind it.
type LimitsEvidence struct {
	NeverFits        string `json:"never_fits"`
	NeverFitsError   string `json:"never_fits_error,omitempty"`
	EdgePromptTokens int    `json:"edge_prompt_tokens"` // scaled
	Edge             string `json:"edge"`
	EdgeError        string `json:"edge_error,omitempty"`
	EdgeLatencyMs    int64  `json:"edge_latency_ms"`
	Behind           string `json:"behind"`
	BehindLatencyMs  int64  `json:"behind_latency_ms"`
}

func readLimits(res *rt.Result) LimitsEvidence {
	var le LimitsEvidence
	if res == nil {
		return le
	}
	for _, r := range res.Requests {
		switch r.Label {
		case labelNeverFits:
			le.NeverFits, le.NeverFitsError = r.Outcome, r.Error
		case labelEdge:
			le.Edge, le.EdgeError, le.EdgePromptTokens, le.EdgeLatencyMs = r.Outcome, r.Error, r.PromptTokens, r.LatencyUs/1000
		case labelBehind:
			le.Behind, le.BehindLatencyMs = r.Outcome, r.LatencyUs/1000
		}
	}
	return le
}

// stalled reports whether a request waited for pages that never came.
func stalled(outcome string) bool { return outcome == "timeout" || outcome == "unfinished" }

// staticCapacity fills in the static check of §5.3 (a) for the finding's server:
// required tokens = concurrency × context against the pool.
func (p *plan) staticCapacity(di int, f diag.Diagnostic, res *analysis.Result, ce *CapacityEvidence) {
	d := p.deps[di]
	if f.Server < 0 || f.Server >= len(res.Servers) {
		return
	}
	s := res.Servers[f.Server]
	ce.Server = s.Name
	est := res.Estimates[f.Server]
	for _, sw := range d.scaling.Workers {
		if sw.Server == s.Name {
			ce.PoolTokens, ce.PoolExact, ce.ContextTokens = sw.PoolTokens, sw.PoolExact, sw.ContextTokens
		}
	}
	per := perSchedulerRunning(s, est)
	if per == 0 {
		// No explicit limit: the declared concurrency shared over the schedulers that
		// decode.
		total := 0
		for _, sw := range d.scaling.Workers {
			if sw.Role != string(deploy.RolePrefill) {
				total += sw.Schedulers
			}
		}
		per = (d.scaling.Concurrency + max(total, 1) - 1) / max(total, 1)
	}
	ce.ConcurrencyPerScheduler = per
	ce.RequiredTokens = int64(per) * ce.ContextTokens
}
func pressureParts(pc PressureCounts) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", what, n))
		}
	}
	add(pc.PoolRejected, "rejected by a pool limit")
	add(pc.ServedAfterAbort, "served after a prefill abort")
	add(pc.Clipped, "clipped")
	add(pc.RetractedRequests, "retracted")
	add(pc.Aborted, "aborted")
	add(pc.TimedOut, "timed out")
	add(pc.Unfinished, "unfinished")
	return strings.Join(parts, ", ")
}

// trimFloat prints a number with at most one decimal and no trailing ".0".
func trimFloat(x float64) string {
	s := fmt.Sprintf("%.1f", x)
	return strings.TrimSuffix(s, ".0")
}

// judgeHandshake: the prefill/decode handshake fails on a page size or KV dtype mismatch
// (disaggregation/common/conn.py try_ensure_parallel_info).
func (p *plan) judgeHandshake(di int) (Verdict, Evidence) {
	load, _ := p.result(di, runLoad)
	he := &HandshakeEvidence{}
	if load != nil {
		he.Requests = load.Summary.Requests
		for _, r := range load.Requests {
			if r.Outcome == "failed" && strings.Contains(r.Error, "mismatch") {
				he.Failed++
				if he.Error == "" {
					he.Error = r.Error
				}
			}
		}
	}
	ev := Evidence{Question: "transfer handshake", Handshake: he, Runs: []string{runLoad}}
	if he.Failed > 0 {
		ev.Summary = fmt.Sprintf("%d of %d requests failed at the KV transfer handshake: %s", he.Failed, he.Requests, he.Error)
		return Confirmed, ev
	}
	ev.Summary = fmt.Sprintf("all %d requests passed the KV transfer handshake", he.Requests)
	return NotConfirmed, ev
}

// HandshakeEvidence counts requests the transfer handshake failed.
type HandshakeEvidence struct {
	Requests int    `json:"requests"`
	Failed   int    `json:"failed"`
	Error    string `json:"error,omitempty"`
}
