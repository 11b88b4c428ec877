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

// DeploymentReport is one deployment as verify ran it.
type DeploymentReport struct {
	Name    string         `json:"name"`
	Mode    deploy.Mode    `json:"mode"`
	Tenancy deploy.Tenancy `json:"tenancy"`
	Servers []string       `json:"servers"`
	Scaling Scaling        `json:"scaling"`
	Runs    []RunSummary   `json:"runs"`
	// IsolationProbe is the prompt-caching audit of the deployment (verify/judge_isolation.go);
	// null when it was not probed (a single-tenant deployment).
	IsolationProbe *IsolationProbe `json:"isolation_probe"`
}

// RunSummary is what one runtime run measured: the runtime's own counts,
// plus what verify derives from them.
type RunSummary struct {
	Name   string     `json:"name"`
	Faults []rt.Fault `json:"faults"`
	rt.Summary
	PeakRunning     int   `json:"peak_running"`
	SimulatedTokens int64 `json:"simulated_tokens"`
	VirtualMs       int64 `json:"virtual_ms"`
}

// job is one planned runtime run.
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
		dr := DeploymentReport{Name: d.dep.Name, Mode: d.dep.Mode, Tenancy: d.dep.Tenancy, Scaling: d.scaling, Runs: []RunSummary{}}
		for _, i := range d.servers {
			dr.Servers = append(dr.Servers, res.Servers[i].Name)
		}
		for _, j := range p.jobs {
			if j.dep == di {
				dr.Runs = append(dr.Runs, summarize(j.name, j.res))
			}
		}
		if len(dr.Runs) == 0 {
			continue // nothing of it needed the runtime
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

// addJobs plans the runs one need of a deployment asks for, once per deployment; it returns
// the number of probe cells added.
func (p *plan) addJobs(di int, d *deployment, n need, opt Options) int {
	add := func(name string, sc rt.Scenario) int {
		for k, j := range p.jobs {
			if j.dep == di && j.name == name {
				return k
			}
		}
		p.jobs = append(p.jobs, &job{dep: di, name: name, sc: sc})
		return len(p.jobs) - 1
	}
	has := func(name string) bool {
		return slices.ContainsFunc(p.jobs, func(j *job) bool { return j.dep == di && j.name == name })
	}
	seed := opt.Seed
	addProbe := func(name string, faults []rt.Fault) int {
		if has(name) {
			return 0
		}
		for k, pp := range d.probeScenarios(seed, opt.samples(), faults) {
			p.probe[add(probeRunName(name, k), pp.scenario)] = pp
		}
		return 1
	}
	c := d.scaling.Concurrency
	switch n {
	case needCapacity, needStall, needHandshake:
		requests := opt.Requests
		if requests <= 0 {
			requests = min(1000, max(200, 4*c))
		}
		// The runtime keeps every prompt: bound the tokens of one workload
		// (runtime maxWorkloadTokens, 2^27).
		requests = min(requests, (1<<26)/max(d.context, 1))
		load := d.loadWorkload(requests, c, false)
		add(runLoad, d.scenario(runLoad, seed, load))
		if d.dep.Tenancy != deploy.TenancySingle {
			add(runLoadFault, d.scenario(runLoadFault, seed, load, rt.FaultStalePages))
		}
		add(runBurst, d.scenario(runBurst, seed, d.loadWorkload(min(requests, max(2*c, 16)), c, true)))
		add(runLimits, d.scenario(runLimits, seed, d.limitsWorkload(newRand(seed, "limits"))))
		if d.dep.Tenancy != deploy.TenancySingle {
			// The fault paths of (c), exercised on purpose: a cancel storm, and forced
			// retraction, each with correct semantics and with the fault it concerns.
			storm := d.cancelStormWorkload(c, requests)
			add(runStorm, d.scenario(runStorm, seed, storm))
			add(runStormFault, d.scenario(runStormFault, seed, storm, rt.FaultCancelRace))
			retract := d.retractionWorkload(c, requests)
			add(runRetract, forcedRetraction(d.scenario(runRetract, seed, retract)))
			add(runRetractFault, forcedRetraction(d.scenario(runRetractFault, seed, retract, rt.FaultStalePages)))
		}
	case needIsolation:
		return addProbe(runProbe, nil)
	case needSaltDropped:
		return addProbe(runProbeSalt, []rt.Fault{rt.FaultSaltDropped})
	case needOracle:
		// The probe's cached-token counts are the oracle's direct evidence; the
		// extraction shows what an attacker makes of them.
		add(runOracle, d.scenario(runOracle, seed, d.oracleWorkload()))
		return addProbe(runProbe, nil)
	}
	return 0
}

// Names of the runs, as the report shows them.
const (
	runLoad         = "declared-load"
	runLoadFault    = "declared-load/stale-pages"
	runBurst        = "burst"
	runLimits       = "limits"
	runStorm        = "cancel-storm"
	runStormFault   = "cancel-storm/cancel-race"
	runRetract      = "forced-retraction"
	runRetractFault = "forced-retraction/stale-pages"
	runProbe        = "probe"
	runProbeSalt    = "probe/salt-dropped"
	runOracle       = "cache-report-oracle"
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

func summarize(name string, res *rt.Result) RunSummary {
	s := res.Summary
	rs := RunSummary{
		Name: name, Faults: slices.Clone(res.Faults), Summary: s,
		SimulatedTokens: s.PrefillTokens + s.DecodeTokens, VirtualMs: s.VirtualUs / 1000,
	}
	for _, w := range res.Workers {
		if w.Role == "decode" {
			rs.PeakRunning += w.PeakRunning
		}
	}
	if rs.Faults == nil {
		rs.Faults = []rt.Fault{}
	}
	return rs
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
