package k8s

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// rayJob reads a KubeRay RayJob's spec.entrypoint, the shell command the
// job runs (ray-project/kuberay@feeaf72f ray-operator/apis/ray/v1/
// rayjob_types.go, RayJobSpec.Entrypoint, a string; RayClusterSpec, the
// cluster it runs on). KubeRay hands it to `ray job submit ... --
// <entrypoint>` (ray-operator/controllers/ray/common/job.go,
// BuildJobSubmitCommand), and Ray's job supervisor runs it on the head
// node with subprocess.Popen(entrypoint, shell=True), that is /bin/sh -c
// (ray-project/ray@06a58f81 python/ray/dashboard/modules/job/
// job_supervisor.py, JobSupervisor._exec_entrypoint). So it is read as a
// shell script in the head container's environment, its words mapped to
// where they are written in the YAML scalar; the kubelet's $(VAR)
// expansion does not apply to it (it is no container command). The pods
// of spec.rayClusterSpec (and of a RayService's spec.rayClusterConfig) are
// read by the generic walk like any pod template.
func (p *parser) rayJob(o *object, n *yaml.Node) {
	spec := yamlsrc.Get(n, "spec")
	ep := yamlsrc.Resolve(yamlsrc.Get(spec, "entrypoint"))
	if ep == nil || ep.Kind != yaml.ScalarNode || ep.Tag == "!!null" || strings.TrimSpace(ep.Value) == "" {
		return
	}
	cluster := yamlsrc.Get(spec, "rayClusterSpec")
	headSpec := yamlsrc.Path(cluster, "headGroupSpec", "template", "spec")
	// The Ray container is the pod's first (kuberay ray-operator/controllers/
	// ray/utils/constant.go, RayContainerIndex = 0): the head's `ray start`
	// runs there, and with it the job supervisor and the entrypoint.
	head := firstContainer(headSpec)
	e := p.containerEnv(nil, head, o.namespace)
	image := deploy.Value{}
	if im := yamlsrc.Get(head, "image"); im != nil && im.Kind == yaml.ScalarNode {
		image = p.scalar(im)
	}
	script, _ := p.src.Scalar(ep)
	found, errs := shell.Servers(shell.Source{
		File:   p.src.File,
		Text:   []byte(script.S),
		Map:    shell.Mapper(p.src.Mapper(script)),
		Env:    e.shellEnv(),
		Images: p.images,
	}, p.read)
	p.errs = append(p.errs, errs...)
	if len(found) == 0 {
		return
	}
	count, gpu := p.rayWorkerGPUs(cluster)
	if !count.IsSet() {
		// A cluster without GPU workers: what the head's container has.
		count = p.gpuCount(head)
	}
	if !gpu.value.IsSet() {
		gpu = p.gpuLabel(headSpec)
	}
	lbls := labels(yamlsrc.Path(cluster, "headGroupSpec", "template", "metadata", "labels"))
	for i, s := range found {
		p.src.WidenServer(s, script.Substitutions())
		s.Name = o.name + "/entrypoint"
		if len(found) > 1 {
			s.Name += "#" + strconv.Itoa(i+1)
		}
		s.Source = Source
		s.GPUCount = count
		gpu.apply(s)
		s.Image = image
		s.Labels = lbls
		s.Namespace = o.namespace
		applyRole(s, "")
		p.servers = append(p.servers, s)
	}
}

// rayWorkerGPUs is the GPU count and GPU type of the Ray cluster's worker
// groups (RayClusterSpec.WorkerGroupSpecs[].Template), read from each
// group's Ray container and pod spec as for any pod.
//
// The entrypoint runs on the head, but an engine run on a Ray cluster
// (vLLM with --distributed-executor-backend ray) places its parallel
// workers as Ray actors on the cluster's GPUs, which are the worker pods'.
// kvlint's GPU count is GPUs per node, which the capacity estimate sizes
// the per-GPU pool with and compares with tp × pp per node: here that is
// what one worker container has, not the head's (often none). Worker
// groups that disagree leave the count (or the type) unknown, listing what
// each says; groups without GPUs (CPU workers) are not counted.
func (p *parser) rayWorkerGPUs(cluster *yaml.Node) (count deploy.Value, gpu gpuDecl) {
	groups := yamlsrc.Get(cluster, "workerGroupSpecs")
	if groups == nil || groups.Kind != yaml.SequenceNode {
		return deploy.Value{}, gpuDecl{}
	}
	var counts []deploy.Value
	var gpus []gpuDecl
	for _, g := range groups.Content {
		spec := yamlsrc.Path(yamlsrc.Resolve(g), "template", "spec")
		c := p.gpuCount(firstContainer(spec))
		if !c.IsSet() || (c.Known && strings.TrimSpace(c.Raw) == "0") {
			continue
		}
		counts = append(counts, c)
		if t := p.gpuLabel(spec); t.value.IsSet() {
			gpus = append(gpus, t)
		}
	}
	return agreed(counts), agreedGPU(gpus)
}

// agreedGPU is the GPU every worker group pins. Groups that pin other
// values of one label make them candidates, as an affinity In [a, b]
// would (the server's ranks run on all of them); groups that pin
// different labels leave the key unknown.
func agreedGPU(ds []gpuDecl) gpuDecl {
	if len(ds) == 0 {
		return gpuDecl{}
	}
	values := make([]deploy.Value, len(ds))
	key := ds[0].key
	var cands []string
	for i, d := range ds {
		values[i] = d.value
		if d.key != key {
			key = ""
		}
		if len(d.candidates) > 0 {
			cands = appendNew(cands, d.candidates...)
		} else {
			cands = appendNew(cands, d.value.Raw)
		}
	}
	out := gpuDecl{value: agreed(values), key: key}
	if key != "" && len(cands) > 1 {
		out.candidates = cands
	}
	return out
}

func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// agreed is the value every one of vs says, the first written; values that
// differ (or one that is unknown) give an unknown value listing them.
func agreed(vs []deploy.Value) deploy.Value {
	if len(vs) == 0 {
		return deploy.Value{}
	}
	same := true
	raw := make([]string, len(vs))
	for i, v := range vs {
		raw[i] = v.Raw
		same = same && v.Known && v.Raw == vs[0].Raw
	}
	if same {
		return vs[0]
	}
	return deploy.Unknown(strings.Join(raw, ","), vs[0].Span)
}

// firstContainer is the first container of a pod spec, nil when it has
// none.
func firstContainer(spec *yaml.Node) *yaml.Node {
	cs := yamlsrc.Get(spec, "containers")
	if cs == nil || cs.Kind != yaml.SequenceNode || len(cs.Content) == 0 {
		return nil
	}
	c := yamlsrc.Resolve(cs.Content[0])
	if c == nil || c.Kind != yaml.MappingNode {
		return nil
	}
	return c
}
