package verify

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
)

// The unit tests run a reduced declared load; the CLI and the benchmark run the full one.
const testRequests = 256

// withWorkload returns res with every deployment carrying w.
func withWorkload(res *analysis.Result, w deploy.Workload) *analysis.Result {
	out := *res
	out.Deployments = append([]deploy.Deployment(nil), res.Deployments...)
	for i := range out.Deployments {
		out.Deployments[i].Workload = w
	}
	return &out
}

// Two declared workloads for the incident's deployment: long-context traffic that fills
// its 65,536-token decode pools, and short chat traffic that never comes near them.
var (
	fillingWorkload = deploy.Workload{Concurrency: 64, Prompt: deploy.TokenDist{Median: 24000, Max: 100000},
		Output: deploy.TokenDist{Median: 1000, Max: 4000}, Tenants: 8, Source: deploy.WorkloadDeclared, Where: ".kvlint.yaml:3:3"}
	lightWorkload = deploy.Workload{Concurrency: 8, Prompt: deploy.TokenDist{Median: 1000, Max: 4000},
		Output: deploy.TokenDist{Median: 200, Max: 500}, Tenants: 8, Source: deploy.WorkloadDeclared, Where: ".kvlint.yaml:3:3"}
)

// TestKV101FollowsTheDeclaredWorkload is the capacity half of issue 16's "done when": the
// same deployment, a KV101 whose declared traffic fills the pool is confirmed, one whose
// traffic never fills it is not confirmed.
func TestKV101FollowsTheDeclaredWorkload(t *testing.T) {
	heavy(t)
	base := only(checked(t, "../examples/incident"), "KV101")

	res := withWorkload(base, fillingWorkload)
	rep := verified(t, res, Options{Seed: 1, Requests: testRequests})
	v := verdictOf(t, res, rep, "KV101")
	if v.Verdict != Confirmed {
		t.Fatalf("filling workload: KV101 %s: %s", v.Verdict, v.Evidence.Summary)
	}
	dl := v.Evidence.Capacity.DeclaredLoad
	if dl.PoolPressured == 0 || dl.Seeds != Seeds || len(dl.PerSeed) != Seeds || dl.Behaviour != BehaviourEngine {
		t.Errorf("filling workload: %+v", dl)
	}
	if !strings.Contains(v.Evidence.Summary, "64 concurrent offered") || !strings.Contains(v.Evidence.Summary, "peaked at") {
		t.Errorf("the summary does not say the load offered and the peak reached: %s", v.Evidence.Summary)
	}

	res = withWorkload(base, lightWorkload)
	rep = verified(t, res, Options{Seed: 1, Requests: testRequests})
	v = verdictOf(t, res, rep, "KV101")
	if v.Verdict != NotConfirmed {
		t.Fatalf("light workload: KV101 %s: %s", v.Verdict, v.Evidence.Summary)
	}
	dl = v.Evidence.Capacity.DeclaredLoad
	if dl.PoolPressured != 0 || dl.Requests == 0 || v.Evidence.Capacity.PeakPoolUse >= 1 {
		t.Errorf("light workload: %+v (peak pool use %v)", dl, v.Evidence.Capacity.PeakPoolUse)
	}
	// The static check beside it: 64 per scheduler × 131,072 against 65,536.
	ce := v.Evidence.Capacity
	if ce.RequiredTokens != 64*131072 || ce.PoolTokens != 65536 || ce.Server != "llama70b-decode/leader" {
		t.Errorf("static check: %d required, %d pool, server %q", ce.RequiredTokens, ce.PoolTokens, ce.Server)
	}
	t.Log(v.Evidence.Summary)
}

// TestHypothesisNeverConfirms: the stale-pages hypothesis runs beside the engine run and
// may deliver foreign responses, but the verdict rests on the engine run alone.
func TestHypothesisNeverConfirms(t *testing.T) {
	heavy(t)
	res := withWorkload(only(checked(t, "../examples/incident"), "KV101"), lightWorkload)
	rep := verified(t, res, Options{Seed: 1, Requests: testRequests})
	v := verdictOf(t, res, rep, "KV101")
	h := v.Evidence.Capacity.Hypothesis
	if h == nil || h.Behaviour != BehaviourHypothesis || h.Hypothesis != "stale-pages" {
		t.Fatalf("no hypothesis run beside the engine run: %+v", h)
	}
	if v.Verdict == Confirmed {
		t.Fatalf("confirmed on a workload that never fills the pool: %s", v.Evidence.Summary)
	}
	var kinds []string
	for _, r := range rep.Deployments[0].Runs {
		h := ""
		if r.Hypothesis != nil {
			h = *r.Hypothesis
		}
		kinds = append(kinds, r.Name+":"+string(r.Behaviour)+":"+h)
	}
	if strings.Join(kinds, " ") != "declared-load:engine: declared-load/stale-pages:hypothesis:stale-pages probe:engine:" {
		t.Errorf("runs %v", kinds)
	}
}

func TestKV104StallIsConfirmedOnTheIncident(t *testing.T) {
	heavy(t)
	res := only(checked(t, "../examples/incident"), "KV104")
	rep := verified(t, res, Options{Seed: 1, Requests: 40})
	v := verdictOf(t, res, rep, "KV104")
	if v.Verdict != Confirmed || !stalled(v.Evidence.Capacity.Limits.Edge) {
		t.Fatalf("KV104 %s (edge %q): %s", v.Verdict, v.Evidence.Capacity.Limits.Edge, v.Evidence.Summary)
	}
	if v.Evidence.Capacity.Limits.NeverFits != "rejected" {
		t.Errorf("a prompt as long as the context ended %q; it must be rejected, not wait", v.Evidence.Capacity.Limits.NeverFits)
	}
}

// TestUpperBoundPoolIsNeverNotConfirmed: a pool known only by its --max-total-tokens cap
// (serve.sh: no model, no GPU) may be smaller still, so a quiet run proves nothing.
func TestUpperBoundPoolIsNeverNotConfirmed(t *testing.T) {
	heavy(t)
	res := only(checked(t, "../examples/scripts/serve.sh"), "KV101")
	rep := verified(t, res, Options{Seed: 1, Requests: 40})
	v := verdictOf(t, res, rep, "KV101")
	if v.Verdict == NotConfirmed {
		t.Fatalf("an upper-bound pool was judged not-confirmed: %s", v.Evidence.Summary)
	}
	if len(rep.Deployments) != 1 || rep.Deployments[0].Mode != deploy.ModeColocated || len(rep.Deployments[0].Scaling.Notes) == 0 {
		t.Errorf("the colocated server's modelling is not noted: %+v", rep.Deployments)
	}
}
