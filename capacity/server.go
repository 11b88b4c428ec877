package capacity

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/confined"
)

// Options are the inputs of an estimate that do not come from the server.
type Options struct {
	// GPU is the GPU of servers whose files name none (kvlint's --gpu
	// flag, or .kvlint.yaml gpu:); GPUSource says which ("--gpu" if empty).
	GPU       string
	GPUSource string
	// ModelConfigs maps a model name as the server writes it to a local
	// config.json (file or directory) or to a catalog id (.kvlint.yaml models:).
	ModelConfigs map[string]string
	// BaseDir resolves relative paths in ModelConfigs (the directory of
	// .kvlint.yaml).
	BaseDir string
	// FS confines the model configs read for the run (models: paths, a
	// model directory beside a launching file) to the checked paths; nil
	// reads any path (a library caller that named them itself).
	FS *confined.FS
	// Catalog is the model and GPU catalog; nil means Default().
	Catalog *Catalog
	// HFCaches are the Hugging Face hub caches searched, in order, for a
	// model id before the catalog: a downloaded checkpoint's own
	// config.json and weights beat the catalog's row.
	HFCaches []HFCache
}

// EstimateServer computes the KV-cache pool SGLang will allocate for one
// server, the way the engine computes it at startup, from the server's
// canonical flags, its model and its GPU. Whatever it cannot read it leaves
// nil, lists in Missing (what the user can declare) and explains in
// Assumptions; Derivation shows every step with its numbers. It never panics:
// unknown models, GPUs and placeholder flag values only make fields nil.
func EstimateServer(s *deploy.Server, opt Options) Estimate {
	return estimateServer(s, opt, nil)
}

// estimateServer is EstimateServer with the model already resolved for s
// (With passes the resolution of the estimate it recomputes); nil
// resolves it. A server whose files allow several models and name none
// is sized when every one of them gives the same pool (byCandidates).
func estimateServer(s *deploy.Server, opt Options, model *modelResolution) Estimate {
	est := estimateOne(s, opt, model)
	if s != nil && len(s.ModelCandidates) > 1 && s.ModelCandidatesCertain && slices.Contains(est.Missing, "model") {
		est = byCandidates(s, opt, est, model == nil)
	}
	if est.PoolTokens != nil {
		est.NotSized = "" // a step that could not size it was not the last word
	}
	return est
}

// estimateOne estimates s with the model the server itself names.
func estimateOne(s *deploy.Server, opt Options, model *modelResolution) (est Estimate) {
	est = Estimate{Assumptions: []string{}, Missing: []string{}, Derivation: []string{}}
	if s != nil {
		est.inputs = &estimateInputs{server: s, opt: opt, model: model}
	}
	defer func() {
		if p := recover(); p != nil {
			est.assume("internal error while estimating this server (please report it): %v\n%s", p, debug.Stack())
		}
	}()
	if s == nil {
		est.assume("no server to estimate")
		return est
	}
	est.Engine = s.Engine
	if s.Engine == deploy.EngineVLLM {
		estimateVLLM(s, opt, &est)
		return est
	}
	if s.Engine != deploy.EngineSGLang {
		est.assume("kvlint sizes SGLang's KV pool; %s servers are not estimated", engineName(s.Engine))
		return est
	}
	cat := opt.Catalog
	if cat == nil {
		cat = Default()
	}
	e := &estimator{s: s, opt: opt, cat: cat, est: &est}
	e.r = &argReader{s: s, est: &est}
	e.run()
	return est
}

func engineName(e deploy.Engine) string {
	if e == "" {
		return "unknown-engine"
	}
	return string(e)
}

// estimator carries one estimate's resolved inputs between its steps.
type estimator struct {
	s   *deploy.Server
	opt Options
	cat *Catalog
	r   *argReader
	est *Estimate

	parallelKnown bool
	tp, dp, pp    int
	attnCP        int
	dpAttention   bool
	attnTP        int

	gpu   *GPU
	model *Model
	// ownsModel is set when this estimate resolved the model rather than
	// took it from the estimate With recomputes (resolveModel).
	ownsModel bool
	// instanceGPUs is the GPU count of the instance type the pod is
	// pinned to, 0 when none is.
	instanceGPUs int

	contextFlag bool // --context-length was given (known)
	pageKnown   bool
	page        int

	modelDtype string // torch dtype of weights and of auto KV; "" unknown
	kvDtype    string // resolved pool dtype; "" unknown
	hybridSWA  bool
	swaRatio   float64
	cells      []cell // per pipeline stage
	stageLayer []int

	// vllm is set when the estimator sizes a vLLM server (estimateVLLM):
	// the shared steps then word their messages for vLLM.
	vllm bool

	maxTotalTokens     int64
	maxTotalTokensSet  bool
	maxTotalTokensUnkn bool // given as a placeholder: it may lower the pool

	memFraction      float64
	memFractionKnown bool
	weights          []int64 // bytes per GPU, per pipeline stage
	weightsKnown     bool
	swaCapTokens     int64 // SWA pool size when SWAChunkCapPoolConfigurator applies
	// draftFrac is draft layers / target layers under speculative decoding:
	// the cell grows by that share. draftSelf is set when the draft is the
	// model's own MTP layers, whose weights grow by the same share;
	// draftModel is a separate draft, whose weights per GPU are draftWeights
	// (draftWeightsKnown false when they cannot be worked out).
	draftFrac         float64
	draftSelf         bool
	draftModel        *Model
	draftWeights      int64
	draftWeightsKnown bool
}

func (e *estimator) run() {
	e.parallel()
	e.resolveGPU()
	e.resolveModel()
	e.context()
	e.maxTotal()
	e.pageSize()
	e.dtypes()
	e.cell()
	e.memFractionStatic()
	e.weightsPerGPU()
	e.pool()
	e.limits()
}

// parallel reads --tp-size, --dp-size, --pp-size, --attn-cp-size and
// --enable-dp-attention and derives the attention TP size.
func (e *estimator) parallel() {
	e.parallelKnown = true
	read := func(name string, def int, aliases ...string) int {
		v, st := e.r.int(append([]string{name}, aliases...)...)
		switch st {
		case argUnset:
			return def
		case argUnknown:
			e.parallelKnown = false
			return def
		}
		if v < 1 || v > 1<<16 {
			e.est.assume("%s %d is not a valid parallel size", name, v)
			e.parallelKnown = false
			return def
		}
		return int(v)
	}
	e.tp = read("--tp-size", 1)
	e.dp = read("--dp-size", 1)
	e.pp = read("--pp-size", 1)
	e.attnCP = read("--attn-cp-size", 1)
	flag, st := e.r.bool("--enable-dp-attention")
	if st == argUnknown {
		e.parallelKnown = false
	}
	// --enable-dp-attention is reset when dp_size == 1
	// (arg_groups/overrides.py _data_parallelism_defaults).
	e.dpAttention = flag && e.dp > 1
	if e.parallelKnown {
		e.est.TP, e.est.DP, e.est.PP = e.tp, e.dp, e.pp
	}
	if flag && e.dp > 1 && e.tp%e.dp != 0 {
		e.est.StartupError = fmt.Sprintf("--enable-dp-attention requires --tp-size (%d) to be a multiple of --dp-size (%d): SGLang asserts tp_size %% dp_size == 0 (server_args.py _handle_data_parallelism)", e.tp, e.dp)
		e.parallelKnown = false
	}
	attnDP := 1
	if e.dpAttention {
		attnDP = e.dp
	}
	// layers/dp_attention.py compute_dp_attention_world_info L293-307.
	e.attnTP = e.tp / attnDP / e.attnCP
	if e.attnTP < 1 {
		if e.parallelKnown {
			e.est.StartupError = fmt.Sprintf("attention TP size tp %d / dp %d / attn_cp %d is below 1", e.tp, attnDP, e.attnCP)
		}
		e.parallelKnown = false
		e.attnTP = 1
	}
	if !e.parallelKnown {
		return
	}
	switch {
	case e.dpAttention:
		e.est.derive("attn_tp = tp %d / dp %d (DP attention)%s = %d: each attention-DP rank has its own pool and scheduler", e.tp, e.dp, cpNote(e.attnCP), e.attnTP)
	case e.dp > 1:
		e.est.derive("dp %d without DP attention: %d independent replicas of tp %d × pp %d GPUs, each with its own pool", e.dp, e.dp, e.tp, e.pp)
	}
	if v, st := e.r.int("--dcp-size"); st == argSet && v > 1 {
		e.est.assume("--dcp-size %d (decode context parallelism) changes how KV is spread over ranks; kvlint does not model it", v)
	}
	if on, _ := e.r.bool("--enable-prefill-cp"); on {
		e.est.assume("--enable-prefill-cp reconfigures attention parallelism (it enables DP attention and context parallelism); kvlint does not model it")
	}
}

func cpNote(cp int) string {
	if cp > 1 {
		return fmt.Sprintf(" / attn_cp %d", cp)
	}
	return ""
}

// resolveGPU finds the server's GPU. What the files say comes first (a node
// label or selector, an instance type, a MIG resource, Slurm --gres,
// SkyPilot accelerators); --gpu and .kvlint.yaml gpu: are the default for
// servers whose files name none, or name one kvlint cannot read. Where the
// GPU came from is said in the derivation and in Estimate.GPUSource.
func (e *estimator) resolveGPU() {
	e.gpuCount()
	g, from, ok := e.gpuFromFiles()
	fallback := strings.TrimSpace(e.opt.GPU)
	src := e.opt.GPUSource
	if src == "" {
		src = "--gpu"
	}
	switch {
	case ok && fallback != "":
		e.est.derive("%s %q is not used: the files name the GPU", src, fallback)
	case !ok && fallback != "":
		name := fallback
		cg, how := e.cat.lookupGPU(name)
		switch {
		case cg == nil && len(how.candidates) > 0:
			e.est.need("gpu")
			e.est.assume("GPU %q (from %s) could be any of %s, which differ in memory: declare which", name, src, strings.Join(how.candidates, ", "))
			return
		case cg == nil:
			e.est.need("gpu")
			e.est.assume("GPU %q (from %s) is not in kvlint's GPU catalog: declare a known GPU with --gpu or gpu: in .kvlint.yaml", name, src)
			return
		}
		if how.assumed {
			e.est.assume("GPU %q is read as %s (%s MiB)", name, cg.Name, Thousands(cg.MemoryMiB))
		}
		g, ok = cg, true
		from = src + " (the files name none)"
		if e.s.GPU.IsSet() {
			from = src + " (the files name none kvlint can read)"
		}
	}
	g = e.migSlice(g)
	if g == nil {
		e.est.need("gpu")
		if !e.s.GPU.IsSet() {
			e.est.assume("no GPU is known for this server: declare it with --gpu or gpu: in .kvlint.yaml")
		}
		return
	}
	e.gpu = g
	e.est.GPU = g.Name
	if e.est.GPUSource == "" {
		e.est.GPUSource = from
	}
	e.est.derive("GPU %s from %s", g.Name, from)
	if n := e.instanceGPUs; n > 0 && e.est.GPUCount > n {
		e.est.assume("the container asks for %d GPUs but its instance type has %d: the pod cannot be scheduled", e.est.GPUCount, n)
	}
	if g.MemoryMiB <= 0 {
		e.est.need("gpu")
		e.est.assume("kvlint knows no memory total for %s: declare a GPU whose memory it knows", g.Name)
		return
	}
	e.est.GPUMemoryBytes = ptr(g.MemoryBytes())
	e.est.derive("GPU %s: nvidia-smi memory.total %s MiB", g.Name, Thousands(g.MemoryMiB))
	for _, alt := range g.MemoryMiBAlternatives {
		e.est.assume("%s reports %s MiB with some drivers; kvlint uses %s MiB", g.Name, Thousands(alt), Thousands(g.MemoryMiB))
	}
}

// gpuFromFiles resolves the GPU the server's files declare. ok is false
// when they declare none, or one kvlint cannot resolve (said in an
// assumption): --gpu may then stand in. A MIG slice with no parent GPU
// named is handled by migSlice.
func (e *estimator) gpuFromFiles() (g *GPU, from string, ok bool) {
	v := e.s.GPU
	if !v.IsSet() {
		return nil, "", false
	}
	key := e.s.GPUKey
	written := key
	if written == "" {
		written = "the deployment"
	}
	if len(e.s.GPUCandidates) > 0 {
		return e.gpuCandidates(written, v.Span)
	}
	raw := strings.TrimSpace(v.Raw)
	if !v.Known || raw == "" {
		e.est.assume("the GPU is given as %q, which kvlint cannot resolve statically%s", v.Raw, at(v.Span))
		return nil, "", false
	}
	from = fmt.Sprintf("%s %s at %s", written, raw, v.Span)
	g, how, note := e.gpuByKey(key, raw)
	switch {
	case g == nil && len(how.candidates) > 0:
		e.est.assume("GPU %q (from %s) could be any of %s, which differ in memory: declare which", raw, from, strings.Join(how.candidates, ", "))
		e.est.GPUCandidates = distinct(how.candidates)
		return nil, "", false
	case g == nil:
		e.est.assume("GPU %q (from %s) is not in kvlint's GPU catalog: declare a known GPU with --gpu or gpu: in .kvlint.yaml", raw, from)
		return nil, "", false
	}
	if how.assumed {
		e.est.assume("GPU %q is read as %s (%s MiB)", raw, g.Name, Thousands(g.MemoryMiB))
	}
	if note != "" {
		from += " " + note
	}
	return g, from, true
}

// gpuByKey resolves one declared value by the label it was written under;
// note describes what an instance type carries.
func (e *estimator) gpuByKey(key, raw string) (*GPU, gpuMatch, string) {
	switch key {
	case "":
		g, how := e.cat.lookupGPU(raw)
		return g, how, ""
	case deploy.GPUKeySkyPilot, "skypilot.co/accelerator":
		return e.cat.SkyPilotGPU(raw)
	case "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type":
		it, g, ok := e.cat.InstanceType(raw)
		if !ok {
			return nil, gpuMatch{}, ""
		}
		e.instanceGPUs = it.GPUs
		return g, gpuMatch{}, fmt.Sprintf("(%d × %s per node, %s)", it.GPUs, g.Name, it.Source)
	case "nvidia.com/gpu.memory":
		// GPU feature discovery's memory label is NVML's total in MiB
		// (NVIDIA/k8s-device-plugin internal/lm/resource.go): the memory
		// without the model.
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 || n > 1<<24 {
			return nil, gpuMatch{}, ""
		}
		return &GPU{Name: "NVIDIA GPU with " + Thousands(n) + " MiB", Vendor: "NVIDIA", MemoryMiB: n, Source: "nvidia.com/gpu.memory"}, gpuMatch{}, ""
	}
	if key == vkeGPUNameLabel {
		g, how := e.cat.lookupGPU(vkeGPUName(raw))
		return g, how, ""
	}
	g, ok := e.cat.GPUByNodeLabel(key, raw)
	if !ok {
		// A value that fits several GPUs with other memory: say which.
		_, how := e.cat.lookupGPU(raw)
		return nil, gpuMatch{candidates: how.candidates}, ""
	}
	return g, gpuMatch{}, ""
}

// gpuCandidates resolves a GPU the files allow several values of (a node
// affinity In [a, b], a SkyPilot task's accelerator candidates): the GPU
// is known only when every candidate is a catalog GPU and all have the
// same memory total.
func (e *estimator) gpuCandidates(key string, span deploy.Span) (*GPU, string, bool) {
	var gpus []*GPU
	var names, catalog []string
	for _, c := range e.s.GPUCandidates {
		g, how, _ := e.gpuByKey(e.s.GPUKey, c)
		switch {
		case g != nil:
			names = append(names, fmt.Sprintf("%s (%s, %s MiB)", c, g.Name, Thousands(g.MemoryMiB)))
			catalog = append(catalog, g.Name)
		case len(how.candidates) > 0:
			names = append(names, fmt.Sprintf("%s (any of %s)", c, strings.Join(how.candidates, ", ")))
			catalog = append(catalog, how.candidates...)
		default:
			names = append(names, c+" (not in kvlint's catalog)")
			catalog = append(catalog, c)
		}
		gpus = append(gpus, g)
	}
	list := strings.Join(names, ", ")
	same := true
	for _, g := range gpus {
		if g == nil || gpus[0] == nil || g.MemoryMiB <= 0 || g.MemoryMiB != gpus[0].MemoryMiB {
			same = false
		}
	}
	what := "the node affinity"
	if e.s.GPUKey == deploy.GPUKeySkyPilot {
		what = "the task's accelerators"
	}
	if !same {
		e.est.assume("%s (%s at %s) allows several GPUs: %s; their memory differs or is unknown, so the GPU is unknown: pin one", what, key, span, list)
		e.est.GPUCandidates = distinct(catalog)
		return nil, "", false
	}
	return gpus[0], fmt.Sprintf("%s at %s, any of %s: the same memory", key, span, list), true
}

// distinct lists names once each, in order.
func distinct(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// migSlice narrows the GPU to the MIG slice the container requests: the
// engine sees the slice's memory, not the card's. A profile name states
// the slice's share of the card's memory in GB ("1g.10gb" on an 80 GB
// card is an eighth: NVIDIA MIG user guide, "Supported MIG Profiles":
// profile names change with the memory proportion), so with the card
// known the slice gets that share of its total; without it, the nominal
// GB in the name.
func (e *estimator) migSlice(card *GPU) *GPU {
	sl := e.s.GPUSlice
	if !sl.IsSet() || !sl.Known {
		return card
	}
	gb, ok := migGB(sl.Raw)
	if !ok {
		e.est.assume("the MIG profile %q has no memory size kvlint can read%s", sl.Raw, at(sl.Span))
		return card
	}
	g := &GPU{Vendor: "NVIDIA", Source: "MIG profile " + sl.Raw}
	switch {
	case card != nil && card.MarketingGB > 0 && card.MemoryMiB > 0:
		g.Name = card.Name + " MIG " + sl.Raw
		g.ComputeCapability = card.ComputeCapability
		g.MemoryMiB = card.MemoryMiB * gb / int64(card.MarketingGB)
		e.est.assume("MIG slice %s%s: %d of %s's %d GB, %s MiB of its %s MiB", sl.Raw, at(sl.Span), gb, card.Name, card.MarketingGB, Thousands(g.MemoryMiB), Thousands(card.MemoryMiB))
	default:
		g.Name = "MIG " + sl.Raw
		g.MemoryMiB = gb * 1000 * 1000 * 1000 >> 20
		e.est.assume("MIG slice %s%s on a GPU the files do not name: its nominal %d GB (%s MiB)", sl.Raw, at(sl.Span), gb, Thousands(g.MemoryMiB))
	}
	e.est.GPUSource = "nvidia.com/mig-" + sl.Raw + " at " + sl.Span.String()
	return g
}

// migGB reads the memory of a MIG profile name: "1g.10gb" → 10,
// "1g.10gb+me" → 10.
func migGB(profile string) (int64, bool) {
	_, mem, ok := strings.Cut(strings.ToLower(profile), ".")
	if !ok {
		return 0, false
	}
	mem, _, _ = strings.Cut(mem, "+")
	n, err := strconv.ParseInt(strings.TrimSuffix(mem, "gb"), 10, 64)
	if err != nil || !strings.HasSuffix(mem, "gb") || n <= 0 || n > 1<<12 {
		return 0, false
	}
	return n, true
}

func (e *estimator) gpuCount() {
	c := e.s.GPUCount
	if !c.IsSet() {
		return
	}
	if !c.Known {
		if counts := e.s.GPUCountCandidates; len(counts) > 0 {
			e.est.assume("the GPU count depends on which of the allowed accelerators the server gets: any of %s%s", strings.Join(counts, ", "), at(c.Span))
			return
		}
		e.est.assume("the GPU count %q cannot be resolved statically%s", c.Raw, at(c.Span))
		return
	}
	// A Kubernetes or compose count, not a flag: a plain decimal integer.
	n, err := strconv.ParseInt(strings.TrimSpace(c.Raw), 10, 64)
	if err != nil || n < 0 || n > 1<<16 {
		e.est.assume("the GPU count %q is not a number%s", c.Raw, at(c.Span))
		return
	}
	e.est.GPUCount = int(n)
	if !e.parallelKnown || n == 0 {
		return
	}
	// One server process drives tp × pp GPUs (× dp replicas without DP
	// attention), spread over its nodes.
	world := e.tp * e.pp
	if !e.dpAttention {
		world *= e.dp
	}
	if int64(world) <= n {
		return // every rank has a GPU of this node, whatever the node count
	}
	nodes, certain, how := e.nodes()
	perNode := (int64(world) + nodes - 1) / nodes
	if n >= perNode {
		if how != "" && nodes > 1 {
			e.est.derive("tp %d × pp %d%s over %d nodes: %d GPUs per node, and the server is given %d (%s)", e.tp, e.pp, dpNote(e.dp, e.dpAttention), nodes, perNode, n, how)
			if b, ok := e.s.Args["--distributed-executor-backend"]; !ok || !b.Known || strings.TrimSpace(b.Raw) != "ray" {
				// vllm-project/vllm@00193b82b0e2 vllm/config/parallel.py
				// ParallelConfig.__post_init__ raises when the node has
				// fewer GPUs than the world and no backend is chosen, unless
				// the process runs inside a Ray placement group.
				e.est.assume("vLLM reaches the GPUs of the other %d node(s) only through Ray: recent releases need --distributed-executor-backend ray for it, and raise \"World size (%d) is larger than the number of available GPUs (%d) in this node\" without it (vllm/config/parallel.py)", nodes-1, world, n)
			}
		}
		return
	}
	if !certain {
		e.est.assume("the server is given %d GPUs but its parallelism needs %d per node (tp %d × pp %d%s over %d node(s)): %s cannot start all its ranks", n, perNode, e.tp, e.pp, dpNote(e.dp, e.dpAttention), nodes, e.engineLabel())
		return
	}
	e.est.StartupError = e.tooFewGPUs(n, perNode, nodes, world, c.Span)
	e.est.StartupArg = e.parallelArg()
	// The server never reaches its KV pool: no pool is sized.
	e.parallelKnown = false
}

// nodes is how many nodes the server's ranks are spread over, whether that
// is certain, and where it was read when the deployment (not a flag)
// says it. --nnodes is how both engines span nodes on their own: SGLang
// launches tp_size / nnodes ranks per node (modal-projects/sglang@01ce1ad1e969
// python/sglang/srt/entrypoints/engine.py _calculate_rank_ranges) and has
// no other way, so without --nnodes it runs on one node. vLLM also spans
// a Ray cluster; one the deployment sizes (a SkyPilot task's num_nodes,
// every node of which runs the task) bounds it. Elsewhere a Ray cluster
// may hold nodes no file of the tree shows (a LeaderWorkerSet group, an
// external cluster), so a vLLM server's nodes are certain only when
// --nnodes or the deployment states them, and it has one engine (dp 1).
// Words kvlint could not resolve may hold --nnodes: then nothing is
// certain.
func (e *estimator) nodes() (int64, bool, string) {
	n, st := e.r.int("--nnodes")
	switch {
	case st == argSet && n >= 1:
		return n, true, ""
	case st != argUnset:
		return 1, false, ""
	}
	opaque := len(e.s.Opaque) > 0
	if !e.vllm {
		return 1, !opaque, ""
	}
	v := e.s.Nodes
	if !v.IsSet() || !v.Known {
		return 1, false, ""
	}
	nodes, err := strconv.ParseInt(strings.TrimSpace(v.Raw), 10, 64)
	if err != nil || nodes < 1 || nodes > 1<<16 {
		return 1, false, ""
	}
	how := "the deployment's node count"
	if !v.Span.IsZero() {
		how = "num_nodes at " + v.Span.String()
	}
	if nodes > 1 {
		how += ", as a Ray cluster over them lets vLLM spread its ranks"
	}
	return nodes, !opaque && e.dp == 1, how
}

// tooFewGPUs words the startup failure of a server whose ranks need more
// GPUs per node than it is given.
func (e *estimator) tooFewGPUs(n, perNode, nodes int64, world int, count deploy.Span) string {
	need := fmt.Sprintf("its parallelism needs tp %d × pp %d%s = %d GPUs", e.tp, e.pp, dpNote(e.dp, e.dpAttention), world)
	if nodes > 1 {
		need += fmt.Sprintf(" over %d nodes, %d per node", nodes, perNode)
	}
	given := fmt.Sprintf("the deployment gives it %d per node%s", n, at(count))
	if !e.vllm {
		// engine.py gives rank r of a node the GPU base_gpu_id + r, and
		// each rank's ModelRunner.init_torch_distributed
		// (model_executor/model_runner.py) sets that device and re-raises
		// when it fails: a rank past the node's visible GPUs stops there.
		return fmt.Sprintf("%s but %s: the scheduler of each rank past GPU %d selects a CUDA device the node does not have, and the server exits (python/sglang/srt/entrypoints/engine.py _calculate_rank_ranges gives each node tp × pp / nnodes ranks)", need, given, n-1)
	}
	if nodes > 1 {
		// vllm-project/vllm@e845151d5d38 vllm/v1/executor/ray_utils.py
		// _wait_until_pg_ready: the placement group of one GPU per rank
		// is never placed, and vLLM raises after PG_WAIT_TIMEOUT.
		return fmt.Sprintf("%s but %s: the Ray placement group of %d GPUs cannot be placed, and vLLM raises ValueError \"Cannot provide a placement group of …\" (vllm/v1/executor/ray_utils.py _wait_until_pg_ready)", need, given, world)
	}
	// vllm-project/vllm@00193b82b0e2 vllm/config/parallel.py
	// ParallelConfig.__post_init__ raises when the node has fewer CUDA
	// devices than the world size and no backend was chosen; with Ray
	// (chosen, or the fallback of older releases) the placement group
	// waits for GPUs the node does not have and raises instead.
	return fmt.Sprintf("%s but %s: vLLM raises ValueError \"World size (%d) is larger than the number of available GPUs (%d) in this node\" (vllm/config/parallel.py ParallelConfig.__post_init__), or, under Ray, \"Cannot provide a placement group of …\" (vllm/v1/executor/ray_utils.py)", need, given, world, n)
}

// parallelArg is the canonical parallelism flag a too-large world is
// changed at: the first of tp, pp and dp that is given above 1.
func (e *estimator) parallelArg() string {
	flags := []string{"--tp-size", "--pp-size", "--dp-size"}
	if e.vllm {
		flags = []string{"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"}
	}
	for _, f := range flags {
		if v, st := e.r.int(f); st == argSet && v > 1 {
			return f
		}
	}
	return ""
}

func dpNote(dp int, dpAttention bool) string {
	if dp > 1 && !dpAttention {
		return fmt.Sprintf(" × dp %d", dp)
	}
	return ""
}

// resolveModel finds the model (findModel) once per server. The model
// depends on the server's model value and file and on the options, never on
// its flags, and With changes only flags: an estimate With recomputes takes
// the model and the notes that resolving it wrote from the estimate it
// recomputes, in the same place, instead of reading config.json and
// safetensors headers again. The notes go through assume and need, which
// drop a repeat as they did when the notes were first written.
func (e *estimator) resolveModel() {
	in := e.est.inputs
	if in != nil && in.model != nil {
		r := in.model
		for _, a := range r.assumptions {
			e.est.assume("%s", a)
		}
		for _, m := range r.missing {
			e.est.need(m)
		}
		e.est.Derivation = append(e.est.Derivation, r.derivation...)
		e.model, e.est.Model = r.model, r.resolved
		if r.model != nil {
			in.heads, in.kvHeads = r.model.Heads, r.model.KVHeads
			// The replayed notes are assumptions: the reason the
			// pool is not sized is set again.
			e.unsupported(r.model)
		}
		return
	}
	a, d, n := len(e.est.Assumptions), len(e.est.Derivation), len(e.est.Missing)
	e.findModel()
	if in != nil {
		e.ownsModel = true
		in.model = &modelResolution{
			model:       e.model,
			resolved:    e.est.Model,
			assumptions: slices.Clone(e.est.Assumptions[a:]),
			derivation:  slices.Clone(e.est.Derivation[d:]),
			missing:     slices.Clone(e.est.Missing[n:]),
		}
	}
}

// findModel finds the model: a .kvlint.yaml mapping (a local config.json
// or a catalog id), else the catalog by id or by a path's last component.
func (e *estimator) findModel() {
	v := e.s.Model
	if e.s.ModelNote != "" {
		// How the parser paired a model no launch names with the
		// server, or the models it could be: the user's first question
		// when the model is not the one they expect.
		e.est.assume("%s", e.s.ModelNote)
	}
	if !v.IsSet() || (v.Known && strings.TrimSpace(v.Raw) == "") {
		e.est.need("model")
		e.est.assume("the server names no model (%s)", e.modelFlags())
		return
	}
	if !v.Known {
		// .kvlint.yaml models: maps names as written, and a placeholder
		// ("$(MODEL_ID)", "{{ .Values.model }}") is written too: mapped,
		// it names the model the deployment fills in.
		if mapped, ok := e.opt.ModelConfigs[strings.TrimSpace(v.Raw)]; ok && strings.TrimSpace(v.Raw) != "" {
			e.modelFromMapping(strings.TrimSpace(v.Raw), mapped)
			return
		}
		e.est.need("model")
		e.est.assume("the model is given as %q, which kvlint cannot resolve statically%s: declare it under models: in .kvlint.yaml", v.Raw, at(v.Span))
		return
	}
	name := strings.TrimSpace(v.Raw)
	if mapped, ok := e.opt.ModelConfigs[name]; ok {
		e.modelFromMapping(name, mapped)
		return
	}
	if e.modelFromLocalDir(name) {
		return
	}
	if e.modelFromHFCache(name) {
		return
	}
	if id := idFromCachePath(name); id != "" && id != name {
		// A path into a hub cache inside the container names the
		// repository it was downloaded from.
		if m, inferred, ok := e.cat.Identify(id); ok {
			if inferred {
				e.est.assume("%q is a Hugging Face cache folder of %s, which is not in kvlint's catalog; it is resolved by the variant rules below (inferred, not read from its own config.json)", name, id)
			} else {
				e.est.assume("%q is a Hugging Face cache folder of %s, read as catalog model %s", name, id, m.ID)
			}
			e.useModel(m, m.ID)
			return
		}
	}
	// Not Identify: a name whose last path component is a catalog model's
	// is read as that model before the variant rules are tried, and
	// Identify never matches by path.
	m, how := e.cat.lookupModel(name)
	if how == matchNone {
		if v, ok := e.cat.lookupVariant(name); ok {
			e.est.assume("%q is not in kvlint's catalog; it is resolved by the variant rules below (inferred, not read from its own config.json)", name)
			e.useModel(v, v.ID)
			return
		}
	}
	switch how {
	case matchNone:
		e.est.need("model")
		e.est.assume("model %q is not in kvlint's catalog: declare its config.json under models: in .kvlint.yaml", name)
		return
	case matchAlias:
		e.est.assume("%q is read as catalog model %s (the same configuration under another name)", name, m.ID)
	case matchPath:
		e.est.assume("%q is read as catalog model %s because its last path component matches; declare its config.json under models: in .kvlint.yaml if the directory holds something else", name, m.ID)
	}
	e.useModel(m, m.ID)
}

// modelFromLocalDir uses the config.json of a model given as a relative
// path beside the launching file (localModelDir); false when there is none.
func (e *estimator) modelFromLocalDir(name string) bool {
	m, dir, found, err := e.localModelDir(name)
	if !found {
		return false
	}
	if err != nil {
		e.est.need("model")
		e.est.assume("the model's config.json at %s cannot be used: %v", dir, err)
		return true
	}
	e.est.assume("model %q is read from %s/config.json, resolving the path against the launching file's directory", name, dir)
	e.useModel(m, dir)
	return true
}

// modelFromMapping uses the model a .kvlint.yaml models: entry declares for
// name (mappedModel).
func (e *estimator) modelFromMapping(name, mapped string) {
	m, resolved, via, err := e.mappedModel(mapped)
	if err != nil {
		e.est.need("model")
		e.est.assume("the config declared for %q in .kvlint.yaml cannot be used: %v", name, err)
		return
	}
	switch via {
	case viaCatalog:
		e.est.assume("%q is read as catalog model %s, as .kvlint.yaml declares", name, m.ID)
	case viaVariant:
		e.est.assume("%q is read as %s, as .kvlint.yaml declares; %q is not in kvlint's catalog and is resolved by the variant rules below (inferred, not read from its own config.json)", name, mapped, mapped)
	case viaConfig:
		e.est.derive("model %q: config read from %s", name, resolved)
	}
	e.useModel(m, resolved)
}

// foundVia says how mappedModel resolved a declared model.
type foundVia int

const (
	viaCatalog foundVia = iota // a catalog id or alias
	viaVariant                 // an id the variant rules resolve
	viaConfig                  // a config.json read from a path
)

// mappedModel resolves what a .kvlint.yaml models: entry maps a name to,
// for the served model and a speculative draft alike: a catalog id or
// alias; else a config.json (a file or its directory, relative to
// BaseDir); else, when no such path exists, an id the variant rules
// resolve (an -Instruct of a catalogued base), as a launch naming it is.
// resolved is the catalog id or the path read; err says why a path cannot
// be used.
func (e *estimator) mappedModel(mapped string) (m *Model, resolved string, via foundVia, err error) {
	known, inferred, ok := e.cat.Identify(mapped)
	if ok && !inferred {
		return known, known.ID, viaCatalog, nil
	}
	path := mapped
	if !filepath.IsAbs(path) && e.opt.BaseDir != "" {
		path = filepath.Join(e.opt.BaseDir, path)
	}
	if _, statErr := e.fs().Stat(path); statErr != nil && ok {
		return known, known.ID, viaVariant, nil
	}
	m, err = ReadModelConfigIn(e.fs(), path)
	return m, path, viaConfig, err
}

// localModelDir reads the config.json of a model given as a relative path
// that exists beside the file that launches the server (a checkout that
// vendors its model configuration), for the served model and a
// speculative draft alike. Absolute paths name the container's filesystem,
// not this machine's, so they are never read. found is false when there is
// no such config.json; err says why the one there cannot be used.
func (e *estimator) localModelDir(name string) (m *Model, dir string, found bool, err error) {
	if filepath.IsAbs(name) || e.s.Span.File == "" {
		return nil, "", false, nil
	}
	dir = filepath.Join(filepath.Dir(e.s.Span.File), name)
	if _, err := e.fs().Stat(filepath.Join(dir, "config.json")); err != nil {
		return nil, dir, false, nil
	}
	m, err = ReadModelConfigIn(e.fs(), dir)
	return m, dir, true, err
}

func (e *estimator) fs() *confined.FS {
	if e.opt.FS == nil {
		return confined.Unconfined
	}
	return e.opt.FS
}

func (e *estimator) useModel(m *Model, resolved string) {
	e.model = m
	e.est.Model = resolved
	if e.est.inputs != nil {
		e.est.inputs.heads, e.est.inputs.kvHeads = m.Heads, m.KVHeads
	}
	for _, rule := range m.Inferred {
		e.est.assume("inferred: %s", rule)
	}
	if strings.HasPrefix(m.Source, "local config") && m.Params > 0 {
		// A local config.json without safetensors: its weights come from
		// the shapes, not from the checkpoint, and the derivation says so.
		e.est.derive("parameters of %s: %s, %s", m.ID, humanCount(m.Params), m.ParamsSource)
	}
	if m.Confidence == "inferred" {
		e.est.assume("kvlint's facts for %s are inferred from a training framework's model arguments, not read from its config.json", m.ID)
	}
	e.unsupported(m)
}

// unsupported says, for a model whose cache kvlint does not model, why the
// pool is not sized.
func (e *estimator) unsupported(m *Model) {
	if m.Unsupported != "" {
		e.est.notSized("%s: %s, so the pool is not computed", m.ID, m.Unsupported)
	}
}

// context sets the context length: --context-length, else the model's.
func (e *estimator) context() {
	flagCtx, st := e.r.humanInt("--context-length")
	var derived int64
	var how string
	derivedOK := false
	if e.model != nil {
		derived, how, derivedOK = derivedContextLength(e.model)
	}
	switch st {
	case argSet:
		e.contextFlag = true
		e.est.ContextLength = ptr(flagCtx)
		e.est.ContextSource = "flag"
		e.est.derive("context length %s (--context-length)", Thousands(flagCtx))
		if derivedOK && flagCtx > derived {
			e.est.assume("--context-length %s is above the model's %s: SGLang refuses to start unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set (configs/model_config.py _derive_context_length)", Thousands(flagCtx), Thousands(derived))
		}
		return
	case argUnknown:
		return
	}
	if e.model == nil {
		return
	}
	if !derivedOK {
		e.est.assume("kvlint does not know the context length of %s: pass --context-length or declare its config.json", e.model.ID)
		return
	}
	e.est.ContextLength = ptr(derived)
	e.est.ContextSource = "model"
	e.est.derive("context length %s from the model config: %s", Thousands(derived), how)
}

func (e *estimator) maxTotal() {
	v, st := e.r.humanInt("--max-total-tokens")
	switch st {
	case argSet:
		e.maxTotalTokens, e.maxTotalTokensSet = v, true
	case argUnknown:
		e.maxTotalTokensUnkn = true
	}
}
