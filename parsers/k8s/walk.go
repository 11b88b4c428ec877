package k8s

import (
	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// step is one level on the way from an object down to a pod spec: the
// mapping or list passed through, the key taken out of it (empty for a list
// item), and the role name the step gives the servers below it.
type step struct {
	node *yaml.Node
	key  string
	role string
}

// roleKeys name the servers under a key: LeaderWorkerSet templates, RBG
// template patches, and the role keys of serving CRDs (KServe
// LLMInferenceService prefill/worker, OME engine/decoder/router configs).
var roleKeys = map[string]string{
	"leaderTemplate": "leader", "workerTemplate": "worker",
	"leaderTemplatePatch": "leader", "workerTemplatePatch": "worker",
	"leader": "leader", "worker": "worker",
	"prefill": "prefill", "decode": "decode", "router": "router",
	"engineConfig": "engine", "decoderConfig": "decoder", "routerConfig": "router",
}

// namedChildren are keys whose mapping values are keyed by a user-chosen
// name (Dynamo's spec.services.<Name>).
var namedChildren = map[string]bool{"services": true, "components": true, "roles": true}

// singleContainers are keys that hold one container rather than a list:
// Dynamo v1alpha1's extraPodSpec.mainContainer and OME's runner.
var singleContainers = []string{"mainContainer", "runner"}

// walk searches n for pod specs: mappings with a containers list.
func (p *parser) walk(o *object, n *yaml.Node, path []step, depth int) {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind == yaml.ScalarNode {
		return
	}
	p.budget -= 1 + len(n.Content) // a mapping costs what reading its keys costs
	if p.budget < 0 || depth > maxDepth {
		if !p.reported {
			p.reported = true
			what := "nests deeper than kvlint walks"
			if p.budget < 0 {
				what = "expands (through aliases) to more nodes than kvlint walks"
			}
			p.errorf(n, "this %s %q %s; the containers below this point were not checked", o.kind, o.name, what)
		}
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		if p.podSpec(o, n, path) {
			return
		}
		for _, pr := range yamlsrc.Pairs(n) {
			key := pr.Key.Value
			if key == "metadata" || key == "status" || pr.Value == nil || pr.Value.Kind == yaml.ScalarNode {
				continue
			}
			if key == "roleTemplates" && o.kind == "RoleBasedGroup" && len(path) == 1 {
				// spec.roleTemplates are reusable pod templates, not
				// workloads: a role runs one only through its templateRef,
				// with the role's patch merged in, and the role is walked
				// (sgl-project/rbg@993491fba9bfdf377d3cd18c8833da20ce0ec87b
				// api/workloads/v1alpha2/rolebasedgroup_types.go
				// RoleBasedGroupSpec.RoleTemplates, TemplateRef).
				continue
			}
			role := roleKeys[key]
			if len(path) > 0 && namedChildren[path[len(path)-1].key] && path[len(path)-1].node.Kind == yaml.MappingNode {
				role = key
			}
			p.walk(o, pr.Value, append(path[:len(path):len(path)], step{node: n, key: key, role: role}), depth+1)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			item = yamlsrc.Resolve(item)
			if item == nil || item.Kind == yaml.ScalarNode {
				continue
			}
			role, _ := yamlsrc.Str(yamlsrc.Get(item, "name"))
			p.walk(o, item, append(path[:len(path):len(path)], step{node: n, role: role}), depth+1)
		}
	}
}

// podSpec handles n if it is a pod spec (or holds a single container) and
// reports whether it was.
func (p *parser) podSpec(o *object, n *yaml.Node, path []step) bool {
	var containers []*yaml.Node
	if c := yamlsrc.Get(n, "containers"); c != nil {
		switch {
		case c.Kind == yaml.SequenceNode && (o.schema || looksLikeContainers(c) || o.kind == "LLMInferenceService"):
			for _, item := range c.Content {
				item = yamlsrc.Resolve(item)
				if item == nil || item.Kind != yaml.MappingNode {
					if o.schema && item != nil {
						p.errorf(item, "a container must be a mapping, not %s", yamlsrc.Describe(item))
					}
					continue
				}
				containers = append(containers, item)
			}
		case o.schema && !yamlsrc.IsNull(c) && c.Kind != yaml.SequenceNode:
			p.errorf(c, "containers must be a list of containers, not %s", yamlsrc.Describe(c))
			return true
		}
	}
	if containers == nil {
		for _, key := range singleContainers {
			if c := yamlsrc.Get(n, key); c != nil && c.Kind == yaml.MappingNode && isContainer(c) {
				p.pod(o, n, append(path[:len(path):len(path)], step{node: n, key: key}), []*yaml.Node{c})
				return true
			}
		}
		return false
	}
	p.pod(o, n, path, containers)
	return true
}

// looksLikeContainers tells a pod template's containers list from some other
// list a CRD calls containers: its items are mappings and one at least has
// an image, a command or args.
func looksLikeContainers(seq *yaml.Node) bool {
	for _, item := range seq.Content {
		if item = yamlsrc.Resolve(item); item != nil && item.Kind == yaml.MappingNode && isContainer(item) {
			return true
		}
	}
	return false
}

func isContainer(m *yaml.Node) bool {
	return yamlsrc.Get(m, "image") != nil || yamlsrc.Get(m, "command") != nil || yamlsrc.Get(m, "args") != nil
}
