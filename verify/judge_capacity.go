package verify

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// PressureCounts is what one load did to the pool, counted per request within the
// declared limits (prompt + max_tokens ≤ the declared context), under correct semantics
// unless Fault says otherwise.
type PressureCounts struct {
	Requests    int      `json:"requests"`
	Concurrency int      `json:"concurrency"`
	PeakRunning int      `json:"peak_running"`
	Fault       rt.Fault `json:"fault,omitempty"`
	// Pressured counts the requests that met the pool's limits (any of the counts below);
	// PerThousand is the same per 1,000 requests.
	Pressured         int     `json:"pressured_requests"`
	PerThousand       float64 `json:"per_1000_requests"`
	Rejected          int     `json:"rejected"`
	Aborted           int     `json:"aborted"`
	TimedOut          int     `json:"timed_out"`
	Unfinished        int     `json:"unfinished"`
	Clipped           int     `json:"clipped"`
	Retractions       int     `json:"retractions"`
	RetractedRequests int     `json:"retracted_requests"`
	// CrossTenantResponses counts responses that delivered another tenant's canary.
	CrossTenantResponses int `json:"cross_tenant_responses"`
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

// FaultPathEvidence is a fault path of leakage.md §5.3 (c) exercised on purpose: how often
// it was reached, what crossed tenants with correct semantics, and what crossed with the
// fault switched on.
type FaultPathEvidence struct {
	Requests         int      `json:"requests"`
	PathReached      int      `json:"path_reached"`
	Responses        int      `json:"cross_tenant_responses"`
	IncorrectOutputs int      `json:"incorrect_outputs"`
	Fault            rt.Fault `json:"fault"`
	FaultResponses   int      `json:"fault_cross_tenant_responses"`
}

// CapacityEvidence backs a verdict on a pool that is too small (leakage.md §5.3 (a)), with
// the static check beside the measurements.
type CapacityEvidence struct {
	Server                  string             `json:"server"`
	ContextTokens           int64              `json:"context_tokens"`
	PoolTokens              int64              `json:"pool_tokens"`
	PoolExact               bool               `json:"pool_exact"`
	ConcurrencyPerScheduler int                `json:"concurrency_per_scheduler"`
	RequiredTokens          int64              `json:"required_tokens"`
	DeclaredLoad            PressureCounts     `json:"declared_load"`
	Burst                   PressureCounts     `json:"burst"`
	FaultLoad               *PressureCounts    `json:"fault_load,omitempty"`
	Limits                  LimitsEvidence     `json:"limits"`
	CancelStorm             *FaultPathEvidence `json:"cancel_storm,omitempty"`
	ForcedRetraction        *FaultPathEvidence `json:"forced_retraction,omitempty"`
}

func countPressure(res *rt.Result, concurrency int) PressureCounts {
	pc := PressureCounts{Concurrency: concurrency}
	if res == nil {
		return pc
	}
	if len(res.Faults) > 0 {
		pc.Fault = res.Faults[0]
	}
	for _, w := range res.Workers {
		if w.Role == "decode" {
			pc.PeakRunning += w.PeakRunning
		}
	}
	for _, r := range res.Requests {
		if r.Kind != "generated" {
			continue
		}
		pc.Requests++
		if pressured(r) {
			pc.Pressured++
		}
		switch r.Outcome {
		case "rejected":
			pc.Rejected++
		case "aborted":
			pc.Aborted++
		case "timeout":
			pc.TimedOut++
		case "unfinished":
			pc.Unfinished++
		}
		if r.Clipped {
			pc.Clipped++
		}
		pc.Retractions += r.Retractions
		if r.Retractions > 0 {
			pc.RetractedRequests++
		}
		if len(r.LeakedFrom) > 0 {
			pc.CrossTenantResponses++
		}
	}
	if pc.Requests > 0 {
		pc.PerThousand = math.Round(float64(pc.Pressured)*10000/float64(pc.Requests)) / 10
	}
	return pc
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

func faultPath(correct, faulty *rt.Result, reached func(rt.Summary) int) *FaultPathEvidence {
	if correct == nil || faulty == nil {
		return nil
	}
	fp := &FaultPathEvidence{
		Requests: correct.Summary.Requests, PathReached: reached(correct.Summary),
		Responses: correct.Summary.LeakingRequests, IncorrectOutputs: correct.Summary.IncorrectOutputs,
		FaultResponses: faulty.Summary.LeakingRequests,
	}
	if len(faulty.Faults) > 0 {
		fp.Fault = faulty.Faults[0]
	}
	return fp
}

// stalled reports whether a request waited for pages that never came.
func stalled(outcome string) bool { return outcome == "timeout" || outcome == "unfinished" }

// judgeCapacity applies leakage.md §5.3 (a). stall narrows it to KV104's claim: a request
// that passes validation waits forever instead of failing.
func (p *plan) judgeCapacity(di int, f diag.Diagnostic, res *analysis.Result, stall bool) (Verdict, Evidence) {
	d := p.deps[di]
	c := d.scaling.Concurrency
	load, _ := p.result(di, runLoad)
	faulty, _ := p.result(di, runLoadFault)
	burst, _ := p.result(di, runBurst)
	limits, _ := p.result(di, runLimits)
	ce := &CapacityEvidence{
		DeclaredLoad: countPressure(load, c),
		Burst:        countPressure(burst, c),
		Limits:       readLimits(limits),
	}
	runs := []string{runLoad, runBurst, runLimits}
	if faulty != nil {
		fl := countPressure(faulty, c)
		ce.FaultLoad = &fl
		runs = append(runs, runLoadFault)
	}
	storm, _ := p.result(di, runStorm)
	stormFault, _ := p.result(di, runStormFault)
	ce.CancelStorm = faultPath(storm, stormFault, func(s rt.Summary) int { return s.Cancelled })
	retract, _ := p.result(di, runRetract)
	retractFault, _ := p.result(di, runRetractFault)
	ce.ForcedRetraction = faultPath(retract, retractFault, func(s rt.Summary) int { return s.Retractions })
	if ce.CancelStorm != nil {
		runs = append(runs, runStorm, runStormFault, runRetract, runRetractFault)
	}
	p.staticCapacity(di, f, res, ce)

	ev := Evidence{Question: "pool too small", Capacity: ce, Runs: runs}
	dl, b, le := ce.DeclaredLoad, ce.Burst, ce.Limits
	edgePressured := le.Edge != "" && le.Edge != "ok" && le.Edge != "cancelled"
	var verdict Verdict
	if stall {
		stalls := dl.TimedOut + dl.Unfinished + b.TimedOut + b.Unfinished
		switch {
		case stalled(le.Edge) || stalls > 0:
			verdict = Confirmed
		case le.Edge == "ok" && stalls == 0 && d.poolsExact:
			verdict = NotConfirmed
		default:
			verdict = Inconclusive
		}
		ev.Summary = p.stallSummary(di, ce, stalls)
		return verdict, ev
	}
	// A burst at twice the declared concurrency retracts even on a pool sized for context ×
	// concurrency: decode pre-allocation reserves num_reserved_decode_tokens per request,
	// not its max_new_tokens, and admits requests beyond --max-running-requests
	// (disaggregation/decode.py _allocatable_token_budgets). That is SGLang's design, and
	// harmless with correct semantics, so in the burst only what a client sees counts.
	switch {
	case dl.Pressured > 0 || visible(b) > 0 || edgePressured:
		verdict = Confirmed
	case !d.poolsExact:
		verdict = Inconclusive
	case dl.PeakRunning*2 < min(c, dl.Requests):
		verdict = Inconclusive
	default:
		verdict = NotConfirmed
	}
	ev.Summary = capacitySummary(d, ce, verdict)
	return verdict, ev
}

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

func capacitySummary(d *deployment, ce *CapacityEvidence, v Verdict) string {
	dl := ce.DeclaredLoad
	var b strings.Builder
	fmt.Fprintf(&b, "at the declared load (%d concurrent, %d requests within the declared limits) the pressure path is reached %s times per 1,000 requests",
		dl.Concurrency, dl.Requests, trimFloat(dl.PerThousand))
	if parts := pressureParts(dl); parts != "" {
		fmt.Fprintf(&b, " (%s)", parts)
	}
	if bu := ce.Burst; visible(bu) > 0 {
		fmt.Fprintf(&b, "; in a burst of %d, %s per 1,000 (%s)", bu.Requests, trimFloat(bu.PerThousand), pressureParts(bu))
	} else if bu.RetractedRequests > 0 {
		fmt.Fprintf(&b, "; a burst of %d retracted %d requests (decode pre-allocation admits beyond --max-running-requests), which correct semantics survive", bu.Requests, bu.RetractedRequests)
	}
	if fl := ce.FaultLoad; fl != nil {
		fmt.Fprintf(&b, "; if the eviction path misbehaves as in the incident (%s), %d of %d responses cross tenants", fl.Fault, fl.CrossTenantResponses, fl.Requests)
	}
	le := ce.Limits
	if le.Edge != "" && le.Edge != "ok" {
		fmt.Fprintf(&b, "; a prompt at the validation limit (%s scaled tokens) ended %s", capacity.Thousands(int64(le.EdgePromptTokens)), le.Edge)
	}
	if ce.RequiredTokens > 0 && ce.PoolTokens > 0 {
		rel := "≥"
		if ce.RequiredTokens > ce.PoolTokens {
			rel = ">"
		}
		fmt.Fprintf(&b, "; static: %d concurrent × %s-token context = %s tokens %s the %s-token pool of %s",
			ce.ConcurrencyPerScheduler, capacity.Thousands(ce.ContextTokens), capacity.Thousands(ce.RequiredTokens), rel, capacity.Thousands(ce.PoolTokens), ce.Server)
	}
	switch v {
	case NotConfirmed:
		b.WriteString("; no request within the declared limits was refused, clipped, stalled or retracted at the declared load")
	case Inconclusive:
		if !d.poolsExact {
			b.WriteString("; only an upper bound of a pool is known, so the absence of pressure proves nothing")
		} else {
			fmt.Fprintf(&b, "; the run reached only %d of the %d declared concurrent requests", dl.PeakRunning, dl.Concurrency)
		}
	}
	return b.String()
}

func (p *plan) stallSummary(di int, ce *CapacityEvidence, stalls int) string {
	le := ce.Limits
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
	fmt.Fprintf(&b, "; %d requests of the declared load and the burst stalled", stalls)
	if fl := ce.FaultLoad; fl != nil {
		fmt.Fprintf(&b, "; under %s, %d of %d responses cross tenants", fl.Fault, fl.CrossTenantResponses, fl.Requests)
	}
	return b.String()
}

// visible counts the requests whose client saw the pressure: refused, aborted, stalled,
// unfinished or clipped (a retraction alone is invisible to the client).
func visible(pc PressureCounts) int {
	return pc.Rejected + pc.Aborted + pc.TimedOut + pc.Unfinished + pc.Clipped
}

func pressureParts(pc PressureCounts) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", what, n))
		}
	}
	add(pc.Rejected, "rejected")
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
