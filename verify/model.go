package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/verify/runtime"
)

// Bounds of a scaled scenario: a run must take seconds, and the runtime refuses more
// (runtime/scenario_check.go).
const (
	targetContext    = 8192    // the scaled context window is at most this many tokens
	minContext       = 256     // scaling never shrinks a context below this
	maxWorkersRole   = 16      // runtime maxWorkersPerRole
	maxPoolPerWorker = 1 << 20 // runtime maxPoolTokens
	maxPoolTotal     = 1 << 22 // runtime maxTotalPool
	maxPageSize      = 4096    // runtime maxPageSize
	defaultContext   = 8192    // assumed when the model (and so the context) is unknown
	minModelContext  = 128     // a smaller context cannot hold the workloads' prompts
)

// Scaling says how a deployment was scaled down into the runtime: every token count (pools,
// context, page size, chunk sizes, reserved decode tokens, prompt lengths) is divided by
// Factor; counts of workers and of concurrent requests are kept.
type Scaling struct {
	Factor        int            `json:"factor"`
	ContextTokens int64          `json:"context_tokens"`
	ScaledContext int            `json:"scaled_context_tokens"`
	Workers       []ScaledWorker `json:"workers"`
	// Concurrency is the number of requests the deployment declares it runs at once
	// (summed over its schedulers), and where that number comes from.
	Concurrency       int    `json:"concurrency"`
	ConcurrencySource string `json:"concurrency_source"`
	Router            string `json:"router"`
	PrefixCache       bool   `json:"prefix_cache"`
	// Isolation is the declared isolation and how the runtime models it: an enforced key
	// (a gateway-set cache_salt, per-tenant deployments) is a namespace per tenant;
	// anything else is clients that send no salt.
	Isolation string   `json:"isolation"`
	Notes     []string `json:"notes"`
}

// ScaledWorker is one server of the deployment as the runtime models it.
type ScaledWorker struct {
	Server     string `json:"server"`
	Role       string `json:"role"`
	Schedulers int    `json:"schedulers"` // replicas × data-parallel ranks, each with its own pool
	Count      int    `json:"count"`      // runtime workers modelling them
	PoolTokens int64  `json:"pool_tokens"`
	// PoolExact is false when only an upper bound of the pool is known (--max-total-tokens
	// without a model or GPU), or nothing at all.
	PoolExact          bool  `json:"pool_exact"`
	ScaledPoolTokens   int   `json:"scaled_pool_tokens"`
	PageSize           int   `json:"page_size"`
	ScaledPageSize     int   `json:"scaled_page_size"`
	ContextTokens      int64 `json:"context_tokens"`
	MaxRunningRequests int   `json:"max_running_requests"` // per scheduler; 0: SGLang's automatic value
}

// deployment is one deployment ready to run: its servers, what kvlint knows about them and
// the scaled runtime configuration.
type deployment struct {
	dep     deploy.Deployment
	servers []int // indices into analysis.Result.Servers
	scaling Scaling
	base    runtime.Scenario // workers, router and timing; the workloads fill in the rest
	// context is the scaled context window; maxInput the smallest max_req_input_len of any
	// worker, the longest prompt every worker accepts.
	context  int
	maxInput int
	// poolsExact: every pool is known, not only bounded from above.
	poolsExact bool
	declared   bool // the concurrency is declared, not assumed
	enforced   bool
	// timing is the probe's cost model (verify/timing.go), set by Run.
	timing probeTiming
	radix  bool
	tiers  []string
	// workers are the scaled runtime workers, in Scaling.Workers order.
	workers []runtime.Worker
	// release is the SGLang release modelled, workload the traffic run at.
	release  EngineRelease
	workload deploy.Workload
}

// modelDeployment maps a deployment onto the runtime, or says why it cannot.
func modelDeployment(dep deploy.Deployment, res *analysis.Result, opt Options) (*deployment, string) {
	index := map[*deploy.Server]int{}
	for i, s := range res.Servers {
		index[s] = i
	}
	d := &deployment{dep: dep, poolsExact: true, enforced: enforced(dep), release: releaseOf(dep), workload: dep.Workload}
	if d.workload.Source == "" {
		// A deployment check did not group carries no workload: the default, said so.
		d.workload = deploy.DefaultWorkload()
	}
	sc := &d.scaling
	note := func(format string, args ...any) { sc.Notes = append(sc.Notes, fmt.Sprintf(format, args...)) }

	type engine struct {
		srv *deploy.Server
		est capacity.Estimate
	}
	var engines []engine
	var router *deploy.Server
	for _, s := range dep.Servers {
		i, ok := index[s]
		if !ok {
			continue
		}
		d.servers = append(d.servers, i)
		if s.Role == deploy.RoleRouter || s.Engine == deploy.EngineSGLangRouter {
			router = s
			continue
		}
		engines = append(engines, engine{s, res.Estimates[i]})
	}

	// The context window: the largest any server advertises. The workloads need room for
	// a system prompt, a canary and an answer.
	for _, e := range engines {
		c := e.est.ContextLength
		if c != nil && *c < minModelContext {
			return nil, fmt.Sprintf("%s advertises a context window of %d tokens, too small for the workloads (at least %d)", e.srv.Name, *c, minModelContext)
		}
		if p := e.est.PoolTokens; p != nil && *p <= 0 {
			return nil, fmt.Sprintf("%s has no KV pool (%d tokens): SGLang stops at startup", e.srv.Name, *p)
		}
		if c != nil && *c > sc.ContextTokens {
			sc.ContextTokens = *c
		}
	}
	if sc.ContextTokens <= 0 {
		sc.ContextTokens = defaultContext
		note("context window unknown (no model kvlint can read): %d tokens assumed", defaultContext)
	}
	sc.Factor = 1
	for sc.ContextTokens/int64(sc.Factor) > targetContext && sc.ContextTokens/int64(sc.Factor*2) >= minContext {
		sc.Factor *= 2
	}
	f := int64(sc.Factor)
	scaleTokens := func(n int64) int { return int(max(1, n/f)) }

	// Concurrency: the workload's, the requests the clients keep in flight. The servers'
	// --max-running-requests bounds what runs, not what is offered.
	sc.Concurrency = d.workload.Concurrency
	sc.ConcurrencySource = "workload (" + string(d.workload.Source) + ")"
	if d.workload.Where != "" {
		sc.ConcurrencySource = "workload at " + d.workload.Where
	}
	d.declared = d.workload.Source == deploy.WorkloadDeclared

	// Workers: one runtime worker group per server, one worker per scheduler.
	var prefill, decode []runtime.Worker
	d.radix = true
	for _, e := range engines {
		s, est := e.srv, e.est
		sw := ScaledWorker{Server: s.Name, Role: string(s.Role), Schedulers: schedulers(s, est), PageSize: max(est.PageSize, 1)}
		if sw.Role == "" {
			sw.Role = string(deploy.RoleColocated)
		}
		sw.Count = sw.Schedulers
		switch {
		case est.PoolTokens != nil:
			sw.PoolTokens, sw.PoolExact = *est.PoolTokens, true
		case est.PoolUpperBound != nil && *est.PoolUpperBound > 0:
			sw.PoolTokens = *est.PoolUpperBound
			note("%s: only an upper bound of the pool is known (%s tokens, --max-total-tokens); verify runs at the bound, so pressure it finds is real and its absence proves nothing", s.Name, capacity.Thousands(sw.PoolTokens))
		default:
			sw.PoolTokens = 4 * sc.ContextTokens
			note("%s: pool unknown; assumed to hold 4 full contexts (%s tokens)", s.Name, capacity.Thousands(sw.PoolTokens))
		}
		if !sw.PoolExact {
			d.poolsExact = false
		}
		if c := est.ContextLength; c != nil {
			sw.ContextTokens = *c
		} else {
			sw.ContextTokens = sc.ContextTokens
		}
		sw.MaxRunningRequests = perSchedulerRunning(s, est)
		sw.ScaledPageSize = min(max(1, sw.PageSize/sc.Factor), maxPageSize)
		if sw.PageSize/sc.Factor > maxPageSize {
			note("%s: the page is capped at %d tokens, the runtime's largest", s.Name, maxPageSize)
		}
		if sw.PageSize > 1 && sw.PageSize < sc.Factor {
			note("%s: the %d-token page becomes 1 token at 1/%d; the page is relatively finer than in production", s.Name, sw.PageSize, sc.Factor)
		}
		sw.ScaledPoolTokens = scaleTokens(sw.PoolTokens) / sw.ScaledPageSize * sw.ScaledPageSize
		if sw.ScaledPoolTokens < 2*sw.ScaledPageSize {
			sw.ScaledPoolTokens = 2 * sw.ScaledPageSize
		}
		w := runtime.Worker{
			Name:                    workerName(s, len(prefill)+len(decode)),
			Count:                   sw.Count,
			PoolTokens:              sw.ScaledPoolTokens,
			PageSize:                sw.ScaledPageSize,
			KVDtype:                 argOr(s, "--kv-cache-dtype", "auto"),
			ContextLength:           scaleTokens(sw.ContextTokens),
			MaxRunningRequests:      sw.MaxRunningRequests,
			NumReservedDecodeTokens: scaleTokens(int64(intArg(s, "--num-reserved-decode-tokens", 512))),
			MaxPrefillTokens:        max(sw.ScaledPageSize, scaleTokens(int64(intArg(s, "--max-prefill-tokens", 16384)))),
			CacheReport:             boolArg(s, "--enable-cache-report"),
			Isolation:               "cache_salt",
		}
		if d.enforced {
			w.Isolation = "tenant"
		}
		if c := intArg(s, "--chunked-prefill-size", 0); c > 0 {
			w.ChunkedPrefillSize = max(sw.ScaledPageSize, scaleTokens(int64(c))/sw.ScaledPageSize*sw.ScaledPageSize)
		} else if c < 0 {
			w.ChunkedPrefillSize = -1
		}
		switch p := argOr(s, "--radix-eviction-policy", "lru"); p {
		case "lru", "lfu":
			w.EvictionPolicy = p
		default:
			note("%s: eviction policy %q is modelled as lru", s.Name, p)
		}
		if boolArg(s, "--enable-hierarchical-cache") || argOr(s, "--hicache-storage-backend", "") != "" {
			tier := "host memory (HiCache)"
			if b := argOr(s, "--hicache-storage-backend", ""); b != "" {
				tier = "storage backend " + b
			}
			if !slices.Contains(d.tiers, tier) {
				d.tiers = append(d.tiers, tier)
			}
		}
		if s.Role != deploy.RoleDecode {
			off := boolArg(s, "--disable-radix-cache")
			if off {
				d.radix = false
			}
			on := !off
			w.RadixCache = &on
		}
		switch s.Role {
		case deploy.RolePrefill:
			prefill = append(prefill, w)
		case deploy.RoleDecode:
			decode = append(decode, w)
		default:
			// A colocated server: the runtime models disaggregated serving only, so it runs
			// as a prefill worker and a decode worker with the server's pool each. Prefill
			// and decode then do not compete for one pool: pressure is understated.
			p, dc := w, w
			p.Name, dc.Name = w.Name+"-prefill", w.Name+"-decode"
			dc.RadixCache = nil
			prefill = append(prefill, p)
			decode = append(decode, dc)
			note("%s is colocated: modelled as one prefill and one decode worker, each with the server's pool, which understates the pressure of one shared pool", s.Name)
		}
		sc.Workers = append(sc.Workers, sw)
	}
	if len(prefill) == 0 || len(decode) == 0 {
		// A disaggregated deployment missing one side: borrow the other side's shape so
		// the requests have somewhere to go, and say so.
		switch {
		case len(prefill) == 0 && len(decode) > 0:
			for _, w := range decode {
				p := w
				p.Name += "-prefill"
				on := true
				p.RadixCache = &on
				prefill = append(prefill, p)
			}
			note("no prefill server found next to the decode servers: prefill modelled like them")
		case len(decode) == 0 && len(prefill) > 0:
			for _, w := range prefill {
				dc := w
				dc.Name += "-decode"
				dc.RadixCache = nil
				decode = append(decode, dc)
			}
			note("no decode server found next to the prefill servers: decode modelled like them")
		}
	}
	capWorkers(prefill, "prefill", note, &sc.Concurrency)
	capWorkers(decode, "decode", note, &sc.Concurrency)
	capPools(prefill, decode, note)

	sc.PrefixCache = d.radix
	sc.Isolation = "cache_salt " + string(dep.Isolation.CacheSalt)
	switch {
	case dep.Isolation.PerTenantDeployments:
		sc.Isolation = "per-tenant deployments"
	case dep.Isolation.CacheSalt == "":
		sc.Isolation = "cache_salt none"
	}
	if d.enforced {
		sc.Isolation += " (enforced: the namespace is the tenant)"
	} else {
		sc.Isolation += " (not enforced: clients send no salt)"
	}
	if len(d.tiers) > 0 {
		note("KV tiers beyond GPU memory (%s) are not modelled: only the GPU pool and its radix cache run", strings.Join(d.tiers, ", "))
	}
	sc.Router = routerPolicy(router, dep.Mode, note)
	d.base = runtime.Scenario{
		Name:    dep.Name,
		Engine:  d.release.Mechanisms(),
		Router:  runtime.RouterConfig{Policy: sc.Router},
		Prefill: prefill,
		Decode:  decode,
	}
	d.workers = append(append([]runtime.Worker(nil), prefill...), decode...)
	d.context = scaleTokens(sc.ContextTokens)
	sc.ScaledContext = d.context
	d.maxInput = d.context
	for _, w := range d.workers {
		// tp_worker.py: max_req_input_len = min(context-1, pool-1) - 5.
		d.maxInput = min(d.maxInput, min(w.ContextLength-1, w.PoolTokens-1)-5)
	}
	if sc.Notes == nil {
		sc.Notes = []string{}
	}
	return d, ""
}

// capWorkers keeps a role within the runtime's worker limit, scaling the concurrency with
// the workers so that each keeps its share.
func capWorkers(ws []runtime.Worker, role string, note func(string, ...any), concurrency *int) {
	total := 0
	for _, w := range ws {
		total += w.Count
	}
	if total <= maxWorkersRole {
		return
	}
	k := (total + maxWorkersRole - 1) / maxWorkersRole
	kept := 0
	for i := range ws {
		ws[i].Count = max(1, ws[i].Count/k)
		kept += ws[i].Count
	}
	*concurrency = max(1, *concurrency*kept/total)
	note("%d %s schedulers modelled by %d workers; concurrency scaled with them", total, role, kept)
}

// capPools keeps every pool within the runtime's limits. Only pools larger than the
// runtime allows are shrunk; a note says by how much.
func capPools(prefill, decode []runtime.Worker, note func(string, ...any)) {
	workers := 0
	for _, g := range [][]runtime.Worker{prefill, decode} {
		for _, w := range g {
			workers += w.Count
		}
	}
	limit := min(maxPoolPerWorker, maxPoolTotal/max(workers, 1))
	for _, g := range [][]runtime.Worker{prefill, decode} {
		for i := range g {
			if g[i].PoolTokens > limit {
				capped := limit / g[i].PageSize * g[i].PageSize
				note("%s: scaled pool of %s tokens capped at %s (the runtime's limit); it still holds %d full contexts",
					g[i].Name, capacity.Thousands(int64(g[i].PoolTokens)), capacity.Thousands(int64(capped)), capped/max(g[i].ContextLength, 1))
				g[i].PoolTokens = capped
			}
		}
	}
}

// routerPolicy maps the SGLang router's policy onto the runtime's two. RouterArgs.policy
// defaults to cache_aware (sgl-model-gateway bindings/python/src/sglang_router/router_args.py),
// and --prefill-policy overrides it for the prefill pool in PD mode.
func routerPolicy(router *deploy.Server, mode deploy.Mode, note func(string, ...any)) string {
	if mode == deploy.ModeColocated {
		return "round_robin"
	}
	if router == nil {
		note("no router found: SGLang's default cache_aware routing assumed")
		return "prefix_aware"
	}
	p := argOr(router, "--prefill-policy", argOr(router, "--policy", "cache_aware"))
	switch p {
	case "cache_aware", "prefix_hash", "consistent_hashing":
		return "prefix_aware"
	case "round_robin":
		return "round_robin"
	default:
		note("router policy %q modelled as round robin", p)
		return "round_robin"
	}
}

// schedulers is how many schedulers (each with its own pool) a server runs: replicas ×
// data-parallel ranks (managers/data_parallel_controller.py).
func schedulers(s *deploy.Server, est capacity.Estimate) int {
	n := 1
	if v := s.Replicas; v.Known {
		if r, err := strconv.Atoi(v.Raw); err == nil && r > 0 {
			n = r
		}
	}
	return n * max(est.DP, 1)
}

// perSchedulerRunning is --max-running-requests as one scheduler sees it: divided over the
// attention-DP ranks with DP attention (mem_cache/kv_cache_configurator.py
// resolve_max_num_reqs), else whole. 0 when the flag is not given.
func perSchedulerRunning(s *deploy.Server, est capacity.Estimate) int {
	if est.MaxRunningRequests == nil || *est.MaxRunningRequests <= 0 {
		return 0
	}
	n := int(min(*est.MaxRunningRequests, 1<<16))
	if boolArg(s, "--enable-dp-attention") && est.DP > 1 {
		n = max(1, n/est.DP)
	}
	return n
}

func workerName(s *deploy.Server, i int) string {
	name := strings.NewReplacer("/", "-", " ", "-", ":", "-").Replace(s.Name)
	if name == "" {
		name = "server"
	}
	return fmt.Sprintf("%s-%d", name, i)
}

func argOr(s *deploy.Server, flag, def string) string {
	if v, ok := s.Arg(flag); ok && v.Known && v.Raw != "" {
		return v.Raw
	}
	return def
}

func intArg(s *deploy.Server, flag string, def int) int {
	if v, ok := s.Arg(flag); ok && v.Known {
		if n, err := strconv.Atoi(v.Raw); err == nil {
			return n
		}
	}
	return def
}

func boolArg(s *deploy.Server, flag string) bool {
	v, ok := s.Arg(flag)
	return ok && v.Known && !strings.EqualFold(v.Raw, "false")
}
