package verify

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// Options are the settings of one verification.
type Options struct {
	// Seed makes the run reproducible: the same findings, options and seed give
	// byte-identical reports.
	Seed uint64
	// Requests is the number of generated requests of the declared-load workload; 0 picks
	// four per declared concurrent request, between 200 and 1,000.
	Requests int
	// Samples is the number of probes per arm of the prompt-caching audit; 0 means
	// DefaultSamples (250).
	Samples int
	// Tenancy is --tenancy, for a Result that carries no Deployments (check.Run applies it
	// to the ones it groups).
	Tenancy deploy.Tenancy
	// Progress, when set, is called after each runtime run with the runs done and planned.
	Progress func(done, total int)
	// Parallel bounds the runs in flight; 0 means GOMAXPROCS.
	Parallel int
}

func (o Options) samples() int {
	if o.Samples > 0 {
		return o.Samples
	}
	return DefaultSamples
}

// Report is the outcome of a verification.
type Report struct {
	Seed uint64 `json:"seed"`
	// Alpha is the significance level of each probe's tests: FamilyAlpha divided by the
	// number of probe cells in the run (Bonferroni); 0 when nothing was probed.
	Alpha       float64            `json:"alpha"`
	Deployments []DeploymentReport `json:"deployments"`
	// Findings[i] is the verdict on analysis.Result.Findings[i]; the zero FindingVerdict
	// (no Verdict) for a suppressed finding, which is not verified.
	Findings []FindingVerdict `json:"findings"`
}

// DeploymentReport is one deployment as verify ran it. Every deployment the runtime can
// model is run, with or without findings.
type DeploymentReport struct {
	Name    string         `json:"name"`
	Mode    deploy.Mode    `json:"mode"`
	Tenancy deploy.Tenancy `json:"tenancy"`
	Servers []string       `json:"servers"`
	// EngineRelease is the SGLang release whose behaviour the runtime modelled, with the
	// known engine paths it has.
	EngineRelease EngineRelease `json:"engine_release"`
	// Workload is the traffic it was run at, declared or the default.
	Workload deploy.Workload `json:"workload"`
	Scaling  Scaling         `json:"scaling"`
	Runs     []RunSummary    `json:"runs"`
	// IsolationProbe is the prompt-caching audit's HIT-cross test, when a probe ran.
	IsolationProbe *IsolationProbe `json:"isolation_probe"`
	Verdicts       []RuleVerdict   `json:"verdicts"`
}

// RuleVerdict is the verdict on one finding of the deployment.
type RuleVerdict struct {
	Rule    string  `json:"rule"`
	Verdict Verdict `json:"verdict"`
}

// Behaviour says what a run's semantics are: the engine release's ("engine"), or a
// hypothesis no engine is known to have ("hypothesis"), which never confirms a finding.
type Behaviour string

const (
	BehaviourEngine     Behaviour = "engine"
	BehaviourHypothesis Behaviour = "hypothesis"
)

// RunSummary is one runtime run, over its seeds: what it exercised and what crossed
// tenants.
type RunSummary struct {
	Name      string    `json:"name"`
	Behaviour Behaviour `json:"behaviour"`
	// Hypothesis names the hypothesis of a hypothesis run (null for an engine run).
	Hypothesis  *string        `json:"hypothesis"`
	EnginePaths []rt.Mechanism `json:"engine_paths"`
	Seeds       []uint64       `json:"seeds"`
	// Requests, CrossTenantLeaks, SimulatedTokens and the outcome counts are summed over
	// the seeds; PeakRunning and VirtualMs are the largest of any seed.
	Requests          int   `json:"requests"`
	PeakRunning       int   `json:"peak_running"`
	CrossTenantLeaks  int   `json:"cross_tenant_leaks"`
	LeakingRequests   int   `json:"leaking_requests"`
	SimulatedTokens   int64 `json:"simulated_tokens"`
	VirtualMs         int64 `json:"virtual_ms"`
	OK                int   `json:"ok"`
	Rejected          int   `json:"rejected"`
	Aborted           int   `json:"aborted"`
	TimedOut          int   `json:"timed_out"`
	Unfinished        int   `json:"unfinished"`
	Retractions       int   `json:"retractions"`
	RetractedRequests int   `json:"retracted_requests"`
	// PerSeed is the runtime's own counts of each seed, in Seeds order.
	PerSeed []rt.Summary `json:"per_seed"`
}

// job is one planned runtime run of one seed.
type job struct {
	dep  int
	name string
	sc   rt.Scenario
	res  *rt.Result
	err  error
}

// plan is everything a verification will run, per deployment.
type plan struct {
	deps  []*deployment
	needs [][]need // per deployment, what its findings need
	jobs  []*job
	probe map[int]probePlan // by job index
}

// Seeds is how many seeds each run of the declared load takes: the spread between them is
// part of the evidence, and one seed's count is never reported alone.
const Seeds = 3

// Run verifies the findings of a check run. It returns an error only when the runtime
// refuses a scenario verify built, which is a bug in verify; findings it cannot judge get
// the verdict not-applicable or inconclusive with the reason.
func Run(ctx context.Context, res *analysis.Result, opt Options) (*Report, error) {
	p := &plan{probe: map[int]probePlan{}}
	owner := map[int]int{}         // server index → deployment
	unmodelled := map[int]string{} // server index → why its deployment is not run
	index := map[*deploy.Server]int{}
	for i, s := range res.Servers {
		index[s] = i
	}
	for _, dep := range groupDeployments(res, opt) {
		if !runnable(dep) {
			continue
		}
		d, why := modelDeployment(dep, res, opt)
		if why != "" {
			for _, s := range dep.Servers {
				if i, ok := index[s]; ok {
					unmodelled[i] = why
				}
			}
			continue
		}
		d.timing = modelTiming(d, res)
		p.deps = append(p.deps, d)
		for _, i := range d.servers {
			owner[i] = len(p.deps) - 1
		}
	}
	p.needs = make([][]need, len(p.deps))
	for _, f := range res.Findings {
		di, ok := owner[f.Server]
		if !ok || f.Suppression != nil {
			continue
		}
		if n := needOf(f.Rule); n != needNone && !slices.Contains(p.needs[di], n) {
			p.needs[di] = append(p.needs[di], n)
		}
	}
	cells := 0
	for di, d := range p.deps {
		// Every deployment runs its declared load, findings or not: a fix has to be
		// able to earn "not confirmed".
		p.addLoad(di, d, opt)
		for _, n := range p.needs[di] {
			cells += p.addJobs(di, d, n, opt)
		}
		// Every deployment tenants share is probed, finding or not: a fix must be able
		// to earn a probe that is not significant.
		if d.dep.Tenancy != deploy.TenancySingle {
			cells += p.addJobs(di, d, needIsolation, opt)
		}
	}
	rep := &Report{Seed: opt.Seed, Deployments: []DeploymentReport{}, Findings: make([]FindingVerdict, len(res.Findings))}
	if cells > 0 {
		rep.Alpha = FamilyAlpha / float64(cells)
	}
	if err := runJobs(ctx, p.jobs, opt); err != nil {
		return nil, err
	}
	for di, d := range p.deps {
		dr := DeploymentReport{Name: d.dep.Name, Mode: d.dep.Mode, Tenancy: d.dep.Tenancy, Scaling: d.scaling,
			EngineRelease: d.release, Workload: d.workload, Runs: []RunSummary{}, Verdicts: []RuleVerdict{}}
		for _, i := range d.servers {
			dr.Servers = append(dr.Servers, res.Servers[i].Name)
		}
		var names []string
		for _, j := range p.jobs {
			if j.dep == di && !slices.Contains(names, j.name) {
				names = append(names, j.name)
			}
		}
		for _, name := range names {
			dr.Runs = append(dr.Runs, p.summarize(di, name))
		}
		dr.IsolationProbe, _, _ = p.probeOf(di, runProbe, rep.Alpha)
		rep.Deployments = append(rep.Deployments, dr)
	}
	for i, f := range res.Findings {
		if f.Suppression != nil {
			continue // silenced: not reported, not verified
		}
		di, ok := owner[f.Server]
		switch {
		case ok:
		case unmodelled[f.Server] != "" && needOf(f.Rule) != needNone && needOf(f.Rule) != needStartup:
			rep.Findings[i] = FindingVerdict{Rule: f.Rule, Verdict: Inconclusive, Evidence: Evidence{Summary: "the runtime cannot model this deployment: " + unmodelled[f.Server]}}
			continue
		default:
			rep.Findings[i] = notApplicable(f.Rule, "no deployment the runtime can model holds this server (the runtime models SGLang prefill/decode serving)")
			continue
		}
		rep.Findings[i] = p.judge(di, f, res, rep.Alpha)
		dr := &rep.Deployments[di]
		dr.Verdicts = append(dr.Verdicts, RuleVerdict{Rule: f.Rule, Verdict: rep.Findings[i].Verdict})
	}
	return rep, nil
}

// runnable reports whether the runtime can model a deployment: SGLang servers only.
func runnable(dep deploy.Deployment) bool {
	engines := 0
	for _, s := range dep.Servers {
		switch s.Engine {
		case deploy.EngineSGLang:
			engines++
		case deploy.EngineSGLangRouter:
		default:
			return false
		}
	}
	return engines > 0
}

// add plans one run of a deployment (every seed of it), once.
func (p *plan) add(di int, name string, scs ...rt.Scenario) []int {
	var ks []int
	for k, j := range p.jobs {
		if j.dep == di && j.name == name {
			ks = append(ks, k)
		}
	}
	if ks != nil {
		return ks
	}
	for _, sc := range scs {
		p.jobs = append(p.jobs, &job{dep: di, name: name, sc: sc})
		ks = append(ks, len(p.jobs)-1)
	}
	return ks
}

// addLoad plans the declared load under the release's behaviour, and, on a multi-tenant
// deployment, the same load under each hypothesis, every seed of each.
func (p *plan) addLoad(di int, d *deployment, opt Options) {
	requests := d.loadRequests(opt.Requests)
	var engine, hypo []rt.Scenario
	for k := range uint64(Seeds) {
		seed := opt.Seed + k
		load := d.declaredWorkload(requests)
		engine = append(engine, d.scenario(runLoad, seed, load))
		hypo = append(hypo, d.scenario(runLoadStale, seed, load, rt.FaultStalePages))
	}
	p.add(di, runLoad, engine...)
	if d.dep.Tenancy != deploy.TenancySingle {
		p.add(di, runLoadStale, hypo...)
	}
}

// addJobs plans the runs one need of a deployment asks for beyond the declared load,
// once per deployment; it returns the number of probe cells added.
func (p *plan) addJobs(di int, d *deployment, n need, opt Options) int {
	has := func(name string) bool {
		return slices.ContainsFunc(p.jobs, func(j *job) bool { return j.dep == di && j.name == name })
	}
	seed := opt.Seed
	addProbe := func(name string) int {
		if has(name) {
			return 0
		}
		// One run, a job per seed, like the declared load: the report sums its seeds.
		pps := d.probeScenarios(seed, opt.samples(), nil)
		scs := make([]rt.Scenario, len(pps))
		for k, pp := range pps {
			scs[k] = pp.scenario
		}
		for k, j := range p.add(di, name, scs...) {
			p.probe[j] = pps[k]
		}
		return 1
	}
	switch n {
	case needStall:
		// KV104's claim is about one prompt at the validation limit: the limits script
		// sends it, under the release's behaviour.
		p.add(di, runLimits, d.scenario(runLimits, seed, d.limitsWorkload(newRand(seed, "limits"))))
	case needIsolation, needSaltDropped:
		// The probe runs under the release's behaviour, salt-dropped included where the
		// release drops the salt.
		return addProbe(runProbe)
	case needOracle:
		// The probe's cached-token counts are the oracle's direct evidence; the
		// extraction shows what an attacker makes of them.
		p.add(di, runOracle, d.scenario(runOracle, seed, d.oracleWorkload()))
		return addProbe(runProbe)
	}
	return 0
}

// Names of the runs, as the report shows them.
const (
	runLoad      = "declared-load"
	runLoadStale = "declared-load/stale-pages"
	runLimits    = "limits"
	runProbe     = "probe"
	runOracle    = "cache-report-oracle"
)

// runJobs runs the planned scenarios, several at once; each run is deterministic on its
// own, so the order they finish in changes nothing.
func runJobs(ctx context.Context, jobs []*job, opt Options) error {
	workers := opt.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	done := 0
	next := make(chan *job)
	var wg sync.WaitGroup
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range next {
				j.res, j.err = rt.Run(j.sc)
				mu.Lock()
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, j := range jobs {
		if j.err != nil {
			return fmt.Errorf("verify: the runtime refused scenario %s: %w", j.sc.Name, j.err)
		}
	}
	return nil
}

// summarize sums a run's seeds.
func (p *plan) summarize(di int, name string) RunSummary {
	rs := RunSummary{Name: name, Behaviour: BehaviourEngine, EnginePaths: []rt.Mechanism{}, Seeds: []uint64{}, PerSeed: []rt.Summary{}}
	for _, res := range p.results(di, name) {
		if len(res.Faults) > 0 {
			h := string(res.Faults[0])
			rs.Behaviour, rs.Hypothesis = BehaviourHypothesis, &h
		}
		rs.EnginePaths = slices.Clone(res.Engine)
		s := res.Summary
		rs.Seeds = append(rs.Seeds, res.Seed)
		rs.PerSeed = append(rs.PerSeed, s)
		rs.Requests += s.Requests
		rs.CrossTenantLeaks += s.CrossTenantLeaks
		rs.LeakingRequests += s.LeakingRequests
		rs.SimulatedTokens += s.PrefillTokens + s.DecodeTokens
		rs.VirtualMs = max(rs.VirtualMs, s.VirtualUs/1000)
		rs.OK += s.OK
		rs.Rejected += s.Rejected
		rs.Aborted += s.Aborted
		rs.TimedOut += s.TimedOut
		rs.Unfinished += s.Unfinished
		rs.Retractions += s.Retractions
		rs.RetractedRequests += s.RetractedRequests
		rs.PeakRunning = max(rs.PeakRunning, peakRunning(res))
	}
	return rs
}

// peakRunning is the most requests the decode workers ran at one instant.
func peakRunning(res *rt.Result) int { return res.Summary.PeakRunning }

// results are every seed of a deployment's run, in seed order.
func (p *plan) results(di int, name string) []*rt.Result {
	var out []*rt.Result
	for _, j := range p.jobs {
		if j.dep == di && j.name == name && j.res != nil {
			out = append(out, j.res)
		}
	}
	return out
}

// jobsOf are the jobs of a deployment's run, one per seed, in seed order.
func (p *plan) jobsOf(di int, name string) []int {
	var ks []int
	for k, j := range p.jobs {
		if j.dep == di && j.name == name {
			ks = append(ks, k)
		}
	}
	return ks
}

// result finds a deployment's run by name.
func (p *plan) result(di int, name string) (*rt.Result, int) {
	for k, j := range p.jobs {
		if j.dep == di && j.name == name {
			return j.res, k
		}
	}
	return nil, -1
}
