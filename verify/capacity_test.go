package verify

import (
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
)

// The unit tests run a reduced declared load; the CLI and the benchmark run the full one.
const testRequests = 256

// TestIncidentConfirmsKV101 is the first criterion: on the incident example the
// pressure path is reached at the declared load, and under stale-pages responses cross
// tenants.
func TestIncidentConfirmsKV101(t *testing.T) {
	heavy(t)
	res := only(checked(t, "../examples/incident"), "KV101")
	rep := verified(t, res, Options{Seed: 1, Requests: testRequests})
	v := verdictOf(t, res, rep, "KV101")
	if v.Verdict != Confirmed {
		t.Fatalf("KV101 %s: %s", v.Verdict, v.Evidence.Summary)
	}
	ce := v.Evidence.Capacity
	if ce == nil || ce.FaultLoad == nil {
		t.Fatalf("no capacity evidence: %+v", v.Evidence)
	}
	dl := ce.DeclaredLoad
	if dl.Retractions+dl.Rejected+dl.Clipped == 0 || dl.Pressured == 0 || dl.PerThousand <= 0 {
		t.Errorf("declared load shows no pressure: %+v", dl)
	}
	if dl.CrossTenantResponses != 0 {
		t.Errorf("correct semantics delivered %d foreign responses", dl.CrossTenantResponses)
	}
	if ce.FaultLoad.CrossTenantResponses == 0 {
		t.Errorf("under stale-pages no response crossed tenants: %+v", ce.FaultLoad)
	}
	// The static check beside it: 64 per scheduler × 131,072 against 65,536.
	if ce.RequiredTokens != 64*131072 || ce.PoolTokens != 65536 || ce.Server != "llama70b-decode/leader" {
		t.Errorf("static check: %d required, %d pool, server %q", ce.RequiredTokens, ce.PoolTokens, ce.Server)
	}
	t.Log(v.Evidence.Summary)
}

// sized returns the incident with every decode pool sized for context × concurrency.
func sized(res *analysis.Result) *analysis.Result {
	out := *res
	out.Estimates = append(out.Estimates[:0:0], res.Estimates...)
	for i, s := range res.Servers {
		if s.Role != deploy.RoleDecode {
			continue
		}
		est := out.Estimates[i]
		pool := *est.ContextLength * *est.MaxRunningRequests
		est.PoolTokens = &pool
		out.Estimates[i] = est
	}
	return &out
}

// TestSizedPoolNeverReachesThePressurePath is the other half: the same workload on pools
// sized for context × concurrency shows no retraction and no delivery even under
// stale-pages. The configuration decides whether the dangerous path is reached.
func TestSizedPoolNeverReachesThePressurePath(t *testing.T) {
	heavy(t)
	res := sized(only(checked(t, "../examples/incident"), "KV101"))
	rep := verified(t, res, Options{Seed: 1, Requests: testRequests})
	v := verdictOf(t, res, rep, "KV101")
	ce := v.Evidence.Capacity
	if ce == nil || ce.FaultLoad == nil {
		t.Fatalf("no capacity evidence: %+v", v.Evidence)
	}
	for _, pc := range []PressureCounts{ce.DeclaredLoad, *ce.FaultLoad} {
		if pc.Retractions != 0 || pc.Pressured != 0 || pc.CrossTenantResponses != 0 {
			t.Errorf("sized pool: %+v", pc)
		}
	}
	if visible(ce.Burst) != 0 || ce.Burst.CrossTenantResponses != 0 {
		t.Errorf("sized pool, burst: %+v", ce.Burst)
	}
	if ce.FaultLoad.Fault != "stale-pages" {
		t.Errorf("fault run under %q", ce.FaultLoad.Fault)
	}
	if v.Verdict != NotConfirmed {
		t.Errorf("verdict %s, want not-confirmed: %s", v.Verdict, v.Evidence.Summary)
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
	if v.Verdict != Confirmed {
		t.Errorf("16,384 tokens under a 32,000-token context: %s: %s", v.Verdict, v.Evidence.Summary)
	}
	if len(rep.Deployments) != 1 || rep.Deployments[0].Mode != deploy.ModeColocated || len(rep.Deployments[0].Scaling.Notes) == 0 {
		t.Errorf("the colocated server's modelling is not noted: %+v", rep.Deployments)
	}
}
