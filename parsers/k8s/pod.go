package k8s

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// pod is what a pod template tells about every container in it.
type pod struct {
	name      string // object name plus role path
	namespace string
	replicas  deploy.Value
	labels    deploy.Labels
	gpu       gpuDecl
	// injected are variables the controller sets in every container before
	// the container's own env (LeaderWorkerSet's LWS_*).
	injected []envVar
	// role is what the object's structure and the pod's labels say the
	// servers are (roles.go); their flags may decide otherwise.
	role deploy.Role
	// implied builds the launch of a container that does not write its
	// command (KServe LLMInferenceService, whose command comes from its
	// configuration); nil when the image's entrypoint is unknown.
	implied func(c *yaml.Node, e *env) []word
	// gpus is the GPU count the object gives every container of the pod
	// when the container's resources do not (Dynamo's services.<name>
	// .resources.limits.gpu).
	gpus deploy.Value
	// volumes are the pod's ConfigMap volumes by name, for the scripts
	// its containers run from them.
	volumes map[string]volume
}

func (p *parser) pod(o *object, spec *yaml.Node, path []step, containers []*yaml.Node) {
	pd := &pod{name: o.name, namespace: o.namespace}
	for _, s := range path {
		if s.role != "" {
			pd.name += "/" + s.role
		}
	}
	pd.replicas = p.nearestCount(path, "replicas")
	// The pod template is the mapping whose "spec" is this pod spec; for a
	// Pod it is the object itself.
	if n := len(path); n > 0 && path[n-1].key == "spec" {
		pd.labels = labels(yamlsrc.Path(path[n-1].node, "metadata", "labels"))
	}
	pd.gpu = p.gpuLabel(spec)
	pd.volumes = configMapVolumes(spec)
	if o.kind == "LeaderWorkerSet" {
		pd.injected = p.lwsEnv(o, path)
	}
	pd.role = structuralRole(o, path, pd.labels)
	if o.kind == "LLMInferenceService" {
		pd.implied = p.llmisvcLaunch(o)
	}
	if o.kind == "DynamoGraphDeployment" {
		pd.gpus = p.dynamoGPUs(path)
	}
	ome, isOMERuntime := omeComponentOf(o, path)
	many := len(containers) > 1
	for i, c := range containers {
		name := pd.name
		if many {
			cname, ok := yamlsrc.Str(yamlsrc.Get(c, "name"))
			if !ok || cname == "" {
				cname = strconv.Itoa(i)
			}
			name += "/" + cname
		}
		if isOMERuntime {
			// OME's env depends on the container's own GPU count.
			cp := *pd
			cp.injected = append(slices.Clone(pd.injected), p.omeEnv(ome, c)...)
			p.container(&cp, name, c)
			continue
		}
		p.container(pd, name, c)
	}
}

// nearestCount finds key (replicas, size) in the closest mapping above the
// pod spec that has it: spec.replicas of a Deployment, roles[].replicas of a
// RoleBasedGroup, spec.leaderWorkerTemplate.size of a LeaderWorkerSet.
func (p *parser) nearestCount(path []step, key string) deploy.Value {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].node.Kind != yaml.MappingNode {
			continue
		}
		if n := yamlsrc.Get(path[i].node, key); n != nil && n.Kind == yaml.ScalarNode {
			return p.scalar(n)
		}
	}
	return deploy.Value{}
}

// scalar is a scalar's value with its content span; Known only when the text
// is not a placeholder.
func (p *parser) scalar(n *yaml.Node) deploy.Value {
	v := p.src.Value(n)
	if isPlaceholder(v.Raw) {
		v.Known = false
	}
	return v
}

// isPlaceholder reports text that a template engine or a shell would still
// replace: Helm {{ }}, ${...}, $(VAR).
func isPlaceholder(s string) bool {
	return isTemplatePlaceholder(s) || strings.Contains(s, "$(")
}

// isTemplatePlaceholder reports the placeholders of tools that render a
// manifest before it is applied: Helm/Go templates and ${...} (Terraform's
// templatefile, envsubst).
func isTemplatePlaceholder(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "${")
}

func labels(m *yaml.Node) deploy.Labels {
	var out deploy.Labels
	for _, pr := range yamlsrc.Pairs(m) {
		if v, ok := yamlsrc.Str(pr.Value); ok {
			if out == nil {
				out = deploy.Labels{}
			}
			out[pr.Key.Value] = v
		}
	}
	return out
}

// lwsEnv is what the LeaderWorkerSet controller puts first in every
// container's env (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go,
// AddLWSVariables/addEnvVarsIfNotExists: LWS_LEADER_ADDRESS,
// LWS_GROUP_SIZE from the size annotation, LWS_WORKER_INDEX; the controller's
// values replace the user's). The size is the template's
// spec.leaderWorkerTemplate.size (default 1 in the LWS API); the worker index
// is 0 on the leader and differs between workers.
func (p *parser) lwsEnv(o *object, path []step) []envVar {
	size := p.nearestCount(path, "size")
	if !size.IsSet() {
		size = deploy.Known("1", deploy.Span{})
	}
	index := deploy.Unknown("$(LWS_WORKER_INDEX)", deploy.Span{})
	for _, s := range path {
		if s.key == "leaderTemplate" {
			index = deploy.Known("0", deploy.Span{})
		}
	}
	return []envVar{
		{name: "LWS_LEADER_ADDRESS", v: deploy.Unknown("$(LWS_LEADER_ADDRESS)", deploy.Span{})},
		{name: "LWS_GROUP_SIZE", v: size},
		{name: "LWS_WORKER_INDEX", v: index},
	}
}
