package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
)

func TestSameSeedSameBytes(t *testing.T) {
	base := checked(t, "../examples/incident")
	res := withFinding(base, "KV301", serverIndex(t, base, deploy.RolePrefill))
	res.Findings = append(res.Findings, only(base, "KV101").Findings...)
	var out [3][]byte
	for i, seed := range []uint64{7, 7, 8} {
		rep := verified(t, res, Options{Seed: seed, Requests: 30, Samples: 10, Parallel: 1 + i})
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two runs with the same seed differ")
	}
	if bytes.Equal(out[0], out[2]) {
		t.Fatal("a different seed changed nothing")
	}
}

// TestScalingKeepsWhatMatters: the incident scaled 1/16 keeps the pool/context ratio, the
// page/context ratio, the concurrency and the worker counts.
func TestScalingKeepsWhatMatters(t *testing.T) {
	res := checked(t, "../examples/incident")
	deps := groupDeployments(res, Options{})
	if len(deps) != 1 || len(deps[0].Servers) != 3 || deps[0].Mode != deploy.ModeDisaggregated || deps[0].Tenancy != deploy.TenancyMulti {
		t.Fatalf("grouping: %+v", deps)
	}
	d, why := modelDeployment(deps[0], res, Options{})
	if why != "" {
		t.Fatal(why)
	}
	sc := d.scaling
	// No workload declared: the default's 32 concurrent requests, said so.
	if sc.Factor != 16 || sc.ScaledContext != 8192 || sc.Concurrency != 32 || sc.ConcurrencySource != "workload (default)" ||
		sc.Router != "prefix_aware" || !sc.PrefixCache || d.enforced {
		t.Fatalf("scaling: %+v", sc)
	}
	for _, w := range sc.Workers {
		if w.Count != 2 || w.Schedulers != 2 {
			t.Errorf("%s: %d workers for %d schedulers", w.Server, w.Count, w.Schedulers)
		}
		// pool/context and page/context survive the scaling (to a page).
		realRatio := float64(w.PoolTokens) / float64(w.ContextTokens)
		scaledRatio := float64(w.ScaledPoolTokens) / float64(sc.ScaledContext)
		if diff := realRatio - scaledRatio; diff < 0 || diff > float64(w.ScaledPageSize)/float64(sc.ScaledContext) {
			t.Errorf("%s: pool/context %.4f became %.4f", w.Server, realRatio, scaledRatio)
		}
		if w.PageSize*sc.ScaledContext != w.ScaledPageSize*int(sc.ContextTokens) {
			t.Errorf("%s: page %d of %d became %d of %d", w.Server, w.PageSize, sc.ContextTokens, w.ScaledPageSize, sc.ScaledContext)
		}
	}
	if d.maxInput != 4096-1-5 {
		t.Errorf("max_req_input_len %d, want 4090 (the decode pool's)", d.maxInput)
	}
	gw := checkedWith(t, gateway(), "../examples/incident")
	deps = groupDeployments(gw, Options{})
	enforced, _ := modelDeployment(deps[0], gw, Options{})
	for _, w := range enforced.base.Prefill {
		if w.Isolation != "tenant" {
			t.Errorf("enforced isolation runs with %q", w.Isolation)
		}
	}
}

func TestGroupingTakesCheckDeploymentsOrDefaults(t *testing.T) {
	res := checkedWith(t, &config.Config{
		Tenancy:     deploy.TenancySingle,
		Deployments: map[string]config.DeploymentSettings{"llama70b": {Tenancy: deploy.TenancyMulti, Isolation: config.Isolation{CacheSalt: deploy.CacheSaltGateway}}},
	}, "../examples")
	// check's own deployments, with the policy it applied, are taken as they are.
	got := groupDeployments(res, Options{})
	if len(got) != len(res.Deployments) || &got[0] != &res.Deployments[0] {
		t.Errorf("check's deployments were not used")
	}
	var seen []string
	for _, d := range got {
		seen = append(seen, fmt.Sprintf("%s %s %s %v", d.Name, d.Mode, d.Tenancy, enforced(d)))
	}
	if !slices.Contains(seen, "llama70b disaggregated multi true") || !slices.Contains(seen, "llama8b disaggregated single false") {
		t.Errorf("check's per-deployment policy is lost: %q", seen)
	}
	// A Result built by hand is grouped the way check groups, with kvlint's
	// defaults where no configuration could have spoken: multi-tenant,
	// undeclared, no isolation key.
	res.Deployments = nil
	seen = nil
	for _, d := range groupDeployments(res, Options{}) {
		seen = append(seen, fmt.Sprintf("%s %s %s %v %v", d.Name, d.Mode, d.Tenancy, d.TenancyDeclared, enforced(d)))
	}
	for _, want := range []string{
		"llama8b disaggregated multi false false",
		"llama70b disaggregated multi false false",
		"../examples/scripts/Dockerfile:6 colocated multi false false",
		"sglang colocated multi false false",
		"../examples/scripts/serve.sh:9 colocated multi false false",
	} {
		if !slices.Contains(seen, want) {
			t.Errorf("no deployment %q among %q", want, seen)
		}
	}
	for _, d := range groupDeployments(res, Options{Tenancy: deploy.TenancySingle}) {
		if d.Tenancy != deploy.TenancySingle || !d.TenancyDeclared {
			t.Errorf("--tenancy single left %s %s", d.Name, d.Tenancy)
		}
	}
}

// TestFindingsOutsideTheRuntimeAreNotApplicable: flag findings have nothing to measure.
func TestFindingsOutsideTheRuntimeAreNotApplicable(t *testing.T) {
	res := checked(t, "../examples/scripts")
	flagsOnly := *res
	flagsOnly.Findings = nil
	for _, f := range res.Findings {
		if f.Rule >= "KV400" || f.Rule == "KV105" {
			flagsOnly.Findings = append(flagsOnly.Findings, f)
		}
	}
	if len(flagsOnly.Findings) == 0 {
		t.Fatal("the scripts example has no flag findings")
	}
	rep := verified(t, &flagsOnly, Options{Seed: 1})
	for i, v := range rep.Findings {
		if v.Verdict != NotApplicable || v.Evidence.Summary == "" {
			t.Errorf("%s: %s %q", flagsOnly.Findings[i].Rule, v.Verdict, v.Evidence.Summary)
		}
	}
	// Every deployment the runtime models is still run, findings or not, and says what
	// it exercised.
	if len(rep.Deployments) == 0 {
		t.Error("no deployment was run")
	}
	for _, d := range rep.Deployments {
		if len(d.Runs) == 0 || d.Runs[0].Name != runLoad || d.Runs[0].Requests == 0 || d.Runs[0].PeakRunning == 0 || d.Workload.Source != deploy.WorkloadDefault {
			t.Errorf("%s: runs %+v, workload %+v", d.Name, d.Runs, d.Workload)
		}
		// Flag findings add no run of their own: the declared load, its hypothesis and,
		// where tenants share the deployment, the isolation probe.
		for _, r := range d.Runs {
			if r.Name != runLoad && r.Name != runLoadStale && r.Name != runProbe {
				t.Errorf("flag findings alone ran %s of %s", r.Name, d.Name)
			}
		}
	}
}

func TestProgressCountsEveryRun(t *testing.T) {
	heavy(t)
	res := only(checked(t, "../examples/incident"), "KV104")
	var calls, last, total int
	rep := verified(t, res, Options{Seed: 1, Requests: 20, Progress: func(done, n int) {
		calls++
		last, total = done, n
	}})
	runs := 0
	for _, r := range rep.Deployments[0].Runs {
		runs += len(r.Seeds)
	}
	if calls != runs || last != runs || total != runs {
		t.Errorf("progress called %d times, last %d/%d; %d runs", calls, last, total, runs)
	}
}
