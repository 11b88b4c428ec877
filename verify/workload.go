package verify

import (
	"math/rand/v2"

	"github.com/kvlint/kvlint/verify/runtime"
)

// The tenants every workload runs with. Their canaries are derived from the seed by the
// runtime; their clients send no cache_salt: a salt a client may or may not send is not
// isolation (issue 4, KV301), and with an enforced key the server derives the namespace
// from the tenant whatever the client sends.
var tenantNames = []string{"tenant-a", "tenant-b", "tenant-c"}

func tenants(names ...string) []runtime.Tenant {
	out := make([]runtime.Tenant, len(names))
	for i, n := range names {
		out[i] = runtime.Tenant{Name: n}
	}
	return out
}

// workloadShape is the request shape every generated workload of a deployment shares, in
// scaled tokens.
type workloadShape struct {
	maxTokens int // max_tokens of every request
	shared    int // the system prompt every tenant shares
	minPrompt int
	maxPrompt int // prompt + max_tokens stays within the declared context
}

// shape is the near-limit long-context mix of leakage.md §5.4 item 7: prompts from an
// sixteenth of the context up to the declared limit (prompt + max_tokens = context), after a
// system prompt all tenants share and a per-tenant canary.
func (d *deployment) shape() workloadShape {
	ws := workloadShape{maxTokens: max(8, d.context/16), shared: max(16, d.context/32)}
	ws.maxPrompt = d.context - ws.maxTokens
	ws.minPrompt = min(ws.maxPrompt, max(ws.shared+64, d.context/16))
	return ws
}

// scenario returns the deployment's base scenario with a workload and faults.
func (d *deployment) scenario(name string, seed uint64, wl runtime.Workload, faults ...runtime.Fault) runtime.Scenario {
	sc := d.base
	sc.Name = d.dep.Name + "/" + name
	sc.Seed = seed
	sc.Prefill = append([]runtime.Worker(nil), d.base.Prefill...)
	sc.Decode = append([]runtime.Worker(nil), d.base.Decode...)
	sc.Workload = wl
	sc.Faults = faults
	return sc
}

// loadWorkload is the long-context mix at a concurrency: a closed loop of that many
// clients, or everything at once for a burst.
func (d *deployment) loadWorkload(requests, concurrency int, burst bool) runtime.Workload {
	ws := d.shape()
	wl := runtime.Workload{
		Tenants:            tenants(tenantNames...),
		Requests:           requests,
		SharedPrefixTokens: ws.shared,
		PromptTokens:       runtime.IntRange{Min: ws.minPrompt, Max: ws.maxPrompt},
		MaxTokens:          ws.maxTokens,
		// More clients than requests change nothing.
		Arrival: runtime.Arrival{Mode: "closed", Concurrency: max(1, min(concurrency, requests))},
	}
	if burst {
		wl.Arrival = runtime.Arrival{Mode: "burst"}
	}
	return wl
}

// Labels of the scripted requests of the limits workload.
const (
	labelNeverFits = "never-fits"
	labelEdge      = "edge"
	labelBehind    = "behind-edge"
)

// limitsWorkload sends, one after the other, a prompt as long as the context (outside the
// declared limits: it must be rejected, never left waiting), the longest prompt every
// worker's validation accepts (inside them: a pool too small to admit it leaves it waiting
// with no error, leakage.md §5.4 item 7 and sglang#28530), and a small request right behind
// it, which shows whether the queue stalls.
func (d *deployment) limitsWorkload(r *rand.Rand) runtime.Workload {
	ws := d.shape()
	edge := max(1, d.maxInput-1)
	edgeOut := max(1, min(ws.maxTokens, d.context-edge))
	return runtime.Workload{
		Tenants: tenants(tenantNames...),
		Script: []runtime.ScriptedRequest{
			{Label: labelNeverFits, Tenant: tenantNames[0], Prompt: filler(r, d.context), MaxTokens: 1},
			{Label: labelEdge, AtMs: 1, Tenant: tenantNames[1], Prompt: filler(r, edge), MaxTokens: edgeOut},
			{Label: labelBehind, AtMs: 2, Tenant: tenantNames[2], Prompt: filler(r, min(64, edge)), MaxTokens: 4},
		},
	}
}

// cancelStormWorkload is leakage.md §5.4 item 8: a burst at twice the declared concurrency
// with 30% of the requests cancelled while their KV is in transfer (the redis-py class);
// never more requests than the declared load's budget.
func (d *deployment) cancelStormWorkload(concurrency, budget int) runtime.Workload {
	ws := d.shape()
	return runtime.Workload{
		Tenants:            tenants(tenantNames...),
		Requests:           min(budget, max(24, 2*concurrency)),
		SharedPrefixTokens: ws.shared,
		PromptTokens:       runtime.IntRange{Min: ws.minPrompt, Max: max(ws.minPrompt, d.context/4)},
		MaxTokens:          min(ws.maxTokens, 32),
		Arrival:            runtime.Arrival{Mode: "burst"},
		Cancel:             runtime.Cancel{Fraction: 0.3, Stage: "transfer"},
	}
}

// forcedRetractEvery is the forced-retraction knob (SGLANG_TEST_RETRACT's analogue,
// leakage.md §4): a retraction every this many decode steps, so the retraction path runs
// even when the load alone never reaches it.
const forcedRetractEvery = 3

// forcedRetraction returns a copy of the scenario with the knob on every decode worker.
func forcedRetraction(sc runtime.Scenario) runtime.Scenario {
	sc.Decode = append([]runtime.Worker(nil), sc.Decode...)
	for i := range sc.Decode {
		sc.Decode[i].TestRetractInterval = forcedRetractEvery
	}
	return sc
}

// retractionWorkload is a moderate closed loop whose requests decode long enough for the
// knob to retract them several times.
func (d *deployment) retractionWorkload(concurrency, budget int) runtime.Workload {
	ws := d.shape()
	return runtime.Workload{
		Tenants:            tenants(tenantNames...),
		Requests:           min(budget, max(24, min(120, 3*concurrency))),
		SharedPrefixTokens: ws.shared,
		PromptTokens:       runtime.IntRange{Min: ws.minPrompt, Max: max(ws.minPrompt, d.context/4)},
		MaxTokens:          max(24, min(ws.maxTokens, 64)),
		Arrival:            runtime.Arrival{Mode: "closed", Concurrency: max(2, min(concurrency, 16))},
	}
}

// filler is n bytes of seeded lowercase words: never a brace or an upper-case letter, so it
// can neither open a secret for the toy model nor contain a canary.
func filler(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		if i%6 == 5 {
			b[i] = ' '
		} else {
			b[i] = 'a' + byte(r.IntN(26))
		}
	}
	return string(b)
}

// newRand is the seeded generator of one part of verify, so that adding a workload never
// shifts what another draws.
func newRand(seed uint64, stream string) *rand.Rand {
	s := uint64(0x7665726966790000) // "verify"
	for i := 0; i < len(stream); i++ {
		s = (s ^ uint64(stream[i])) * 0x100000001b3
	}
	return rand.New(rand.NewPCG(seed, s))
}
