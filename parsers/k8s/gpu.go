package k8s

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// gpuResources are the extended resources that count GPUs: NVIDIA's device
// plugin and AMD's (ROCm/k8s-device-plugin@ed7646843003e8f0b6a0630346f01bb4d1ecff2e
// README.md: containers request "amd.com/gpu").
var gpuResources = []string{"nvidia.com/gpu", "amd.com/gpu"}

// migPrefix starts the extended resources of MIG slices under the device
// plugin's "mixed" strategy (NVIDIA/k8s-device-plugin README, "MIG
// strategies": nvidia.com/mig-<profile>, e.g. nvidia.com/mig-1g.10gb).
const migPrefix = "nvidia.com/mig-"

// gpuCount is the container's GPUs: resources.limits wins over requests (for
// extended resources Kubernetes requires them equal when both are given, and
// a limit alone implies the request). A MIG slice counts as one device, as
// the engine sees it.
func (p *parser) gpuCount(c *yaml.Node) deploy.Value {
	res := yamlsrc.Get(c, "resources")
	for _, section := range []string{"limits", "requests"} {
		m := yamlsrc.Get(res, section)
		for _, name := range gpuResources {
			if n := yamlsrc.Get(m, name); n != nil && n.Kind == yaml.ScalarNode {
				return p.scalar(n)
			}
		}
		if _, n := migResource(m); n != nil && n.Kind == yaml.ScalarNode {
			return p.scalar(n)
		}
	}
	return deploy.Value{}
}

// gpuSlice is the MIG profile a container requests ("1g.10gb"), spanning
// the profile in the resource name; unset when it requests none.
func (p *parser) gpuSlice(c *yaml.Node) deploy.Value {
	res := yamlsrc.Get(c, "resources")
	for _, section := range []string{"limits", "requests"} {
		if key, _ := migResource(yamlsrc.Get(res, section)); key != nil {
			span := p.src.ContentSpan(key)
			span.Col += len(migPrefix)
			return deploy.Known(strings.TrimPrefix(key.Value, migPrefix), span)
		}
	}
	return deploy.Value{}
}

// migResource finds the first nvidia.com/mig-* key of a resources map.
func migResource(m *yaml.Node) (key, val *yaml.Node) {
	for _, pr := range yamlsrc.Pairs(m) {
		if pr.Key != nil && strings.HasPrefix(pr.Key.Value, migPrefix) && len(pr.Key.Value) > len(migPrefix) {
			return pr.Key, pr.Value
		}
	}
	return nil, nil
}

// gpuLabels are node labels whose value names the GPU model (or, for the
// instance type, the machine that fixes it), best first. Sources in
// shared/reference/gpus.tsv: NVIDIA GPU feature discovery, GKE, Karpenter on
// AWS and Azure, EKS Auto Mode, the AMD node labeller, CoreWeave, SkyPilot,
// Volcengine's VKE (capacity/gpu.go vkeGPUNameLabel), and the well-known
// instance-type label. nvidia.com/gpu.memory (GFD: the
// NVML memory total in MiB) comes last: it gives the memory but no model.
var gpuLabels = []string{
	"nvidia.com/gpu.product",
	"cloud.google.com/gke-accelerator",
	"karpenter.k8s.aws/instance-gpu-name",
	"eks.amazonaws.com/instance-gpu-name",
	"amd.com/gpu.product-name",
	"beta.amd.com/gpu.product-name",
	"karpenter.azure.com/sku-gpu-name",
	"gpu.nvidia.com/class",
	"skypilot.co/accelerator",
	"machine.cluster.vke.volcengine.com/gpu-name",
	"node.kubernetes.io/instance-type",
	"beta.kubernetes.io/instance-type",
	"nvidia.com/gpu.memory",
}

// gpuDecl is the GPU a pod spec pins: the label value (unknown, spanning
// them all, when an affinity allows several), the label key, and the
// values allowed.
type gpuDecl struct {
	value      deploy.Value
	key        string
	candidates []string
}

// apply gives s the pod's GPU unless its command line named one.
func (d gpuDecl) apply(s *deploy.Server) {
	if s.GPU.IsSet() || !d.value.IsSet() {
		return
	}
	s.GPU, s.GPUKey, s.GPUCandidates = d.value, d.key, d.candidates
}

// gpuLabel finds the GPU a pod is pinned to by its nodeSelector or its
// required node affinity. An affinity that allows several values leaves the
// GPU unknown and lists them: the pod may land on any of them, and only
// the capacity estimate knows whether they share a memory size.
func (p *parser) gpuLabel(spec *yaml.Node) gpuDecl {
	sel := yamlsrc.Get(spec, "nodeSelector")
	terms := yamlsrc.Path(spec, "affinity", "nodeAffinity",
		"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for _, label := range gpuLabels {
		if n := yamlsrc.Get(sel, label); n != nil && n.Kind == yaml.ScalarNode {
			return gpuDecl{value: p.scalar(n), key: label}
		}
		values := affinityValues(terms, label)
		if len(values) == 0 {
			continue
		}
		first := p.scalar(values[0])
		var distinct []string
		for _, v := range values {
			if !slices.Contains(distinct, v.Value) {
				distinct = append(distinct, v.Value)
			}
		}
		if len(distinct) == 1 {
			return gpuDecl{value: first, key: label}
		}
		last := p.src.ContentSpan(values[len(values)-1])
		span := first.Span
		span.EndLine, span.EndCol = last.EndLine, last.EndCol
		return gpuDecl{value: deploy.Unknown(strings.Join(distinct, ","), span), key: label, candidates: distinct}
	}
	return gpuDecl{}
}

// affinityValues are the values of every "key In [...]" expression of the
// required node selector terms. Kubernetes ORs the terms, so each value is
// a node the pod may run on.
func affinityValues(terms *yaml.Node, label string) []*yaml.Node {
	var values []*yaml.Node
	if terms == nil || terms.Kind != yaml.SequenceNode {
		return nil
	}
	for _, term := range terms.Content {
		exprs := yamlsrc.Get(term, "matchExpressions")
		if exprs == nil || exprs.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range exprs.Content {
			key, _ := yamlsrc.Str(yamlsrc.Get(e, "key"))
			op, _ := yamlsrc.Str(yamlsrc.Get(e, "operator"))
			vals := yamlsrc.Get(e, "values")
			if key != label || op != "In" || vals == nil || vals.Kind != yaml.SequenceNode {
				continue
			}
			for _, v := range vals.Content {
				if v = yamlsrc.Resolve(v); v != nil && v.Kind == yaml.ScalarNode {
					values = append(values, v)
				}
			}
		}
	}
	return values
}
