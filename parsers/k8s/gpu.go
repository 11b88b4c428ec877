package k8s

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// gpuResources are the extended resources that count GPUs.
var gpuResources = []string{"nvidia.com/gpu", "amd.com/gpu"}

// gpuCount is the container's GPUs: resources.limits wins over requests (for
// extended resources Kubernetes requires them equal when both are given, and
// a limit alone implies the request).
func (p *parser) gpuCount(c *yaml.Node) deploy.Value {
	res := yamlsrc.Get(c, "resources")
	for _, section := range []string{"limits", "requests"} {
		m := yamlsrc.Get(res, section)
		for _, name := range gpuResources {
			if n := yamlsrc.Get(m, name); n != nil && n.Kind == yaml.ScalarNode {
				return p.scalar(n)
			}
		}
	}
	return deploy.Value{}
}

// gpuLabels are node labels whose value names the GPU model (or, for the
// instance type, the machine that fixes it), best first. Sources in
// shared/reference/gpus.tsv: NVIDIA GPU feature discovery, GKE, Karpenter on
// AWS and Azure, EKS Auto Mode, the AMD node labeller, CoreWeave, SkyPilot,
// and the well-known instance-type label.
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
	"node.kubernetes.io/instance-type",
	"beta.kubernetes.io/instance-type",
}

// gpuLabel finds the GPU a pod is pinned to by its nodeSelector or its
// required node affinity, and returns the label value as written. An
// affinity that allows several values leaves the GPU unknown (Raw lists
// them): the pod may land on any of them.
func (p *parser) gpuLabel(spec *yaml.Node) deploy.Value {
	sel := yamlsrc.Get(spec, "nodeSelector")
	terms := yamlsrc.Path(spec, "affinity", "nodeAffinity",
		"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for _, label := range gpuLabels {
		if n := yamlsrc.Get(sel, label); n != nil && n.Kind == yaml.ScalarNode {
			return p.scalar(n)
		}
		var values []*yaml.Node
		if terms != nil && terms.Kind == yaml.SequenceNode {
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
		}
		if len(values) == 0 {
			continue
		}
		first := p.scalar(values[0])
		distinct := map[string]bool{}
		for _, v := range values {
			distinct[v.Value] = true
		}
		if len(distinct) == 1 {
			return first
		}
		raw := make([]string, 0, len(values))
		for _, v := range values {
			raw = append(raw, v.Value)
		}
		last := p.src.ContentSpan(values[len(values)-1])
		span := first.Span
		span.EndLine, span.EndCol = last.EndLine, last.EndCol
		return deploy.Unknown(strings.Join(raw, ","), span)
	}
	return deploy.Value{}
}
