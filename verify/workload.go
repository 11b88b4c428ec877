package verify

import (
	"fmt"
	"math/rand/v2"

	"github.com/kvlint/kvlint/deploy"
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

// maxTenants bounds the tenants a run generates; a declared count above it is run with
// this many (each still distinct, with its own canary).
const maxTenants = 64

// tenantsOf names n tenants.
func tenantsOf(n int) []runtime.Tenant {
	n = min(max(n, 1), maxTenants)
	out := make([]runtime.Tenant, n)
	for i := range out {
		out[i] = runtime.Tenant{Name: fmt.Sprintf("tenant-%02d", i+1)}
	}
	return out
}

// scaledDist is a declared token distribution in scaled tokens, never below 1.
func (d *deployment) scaledDist(t deploy.TokenDist) (median, most int) {
	f := max(d.scaling.Factor, 1)
	median = max(1, t.Median/f)
	most = max(median, t.Max/f)
	return median, most
}

// declaredWorkload is the deployment's declared traffic at scale: a closed loop of the
// declared concurrency whose prompts and answers are drawn from the declared
// distributions, from the declared number of tenants sharing a system prompt. Nothing is
// drawn up to the context: a pool the traffic never fills is never filled.
func (d *deployment) declaredWorkload(requests int) runtime.Workload {
	pm, px := d.scaledDist(d.workload.Prompt)
	om, ox := d.scaledDist(d.workload.Output)
	// The runtime's bound on one prompt (runtime/scenario_check.go maxContext).
	const most = 1 << 20
	px, ox = min(px, most), min(ox, most)
	pm, om = min(pm, px), min(om, ox)
	wl := runtime.Workload{
		Tenants:            tenantsOf(d.workload.Tenants),
		Requests:           requests,
		SharedPrefixTokens: min(d.shape().shared, pm/2),
		Lengths:            &runtime.Lengths{PromptMedian: pm, PromptMax: px, OutputMedian: om, OutputMax: ox},
		Arrival:            runtime.Arrival{Mode: "closed", Concurrency: max(1, min(d.scaling.Concurrency, requests))},
	}
	return wl
}

// loadRequests is the number of requests of the declared load: n when given, else four
// per concurrent request between 200 and 1,000, within the runtime's token budget
// (runtime maxWorkloadTokens, 2^27).
func (d *deployment) loadRequests(n int) int {
	c := d.scaling.Concurrency
	if n <= 0 {
		n = min(1000, max(200, 4*c))
	}
	_, px := d.scaledDist(d.workload.Prompt)
	_, ox := d.scaledDist(d.workload.Output)
	return max(1, min(n, (1<<26)/max(px+ox, 1)))
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
