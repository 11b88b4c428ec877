package k8s

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// A server's role (prefill, decode, colocated, router) is decided in this
// order, the first that says something winning:
//
//  1. its own flags: the router program; SGLang's --disaggregation-mode with
//     a known value (server_args.py disaggregation_mode); vLLM's
//     --kv-transfer-config kv_role kv_producer (prefill) or kv_consumer
//     (decode) (vllm/config/kv_transfer.py is_kv_producer/is_kv_consumer);
//  2. where the serving CRD puts it: KServe LLMInferenceService spec.prefill
//     (its spec.template is then the decode side), OME decoderConfig
//     (engineConfig is then the prefill side) and routerConfig, Dynamo's
//     subComponentType / componentType (v1alpha1) and type (v1beta1), and a
//     RoleBasedGroup role or a key whose name says prefill, decode or router;
//  3. the pod's labels (pd_role, role, component, app.kubernetes.io/component,
//     llm-d.ai/role) when their value says prefill, decode or router;
//  4. what the flags say by default: colocated for an engine without a
//     disaggregation flag (flags.Server).
//
// A structural router hint never turns an engine into a router: a launch
// that is not the router program keeps its engine role.

// structuralRole is the role the object's structure and the pod's labels
// give the servers of one pod, "" when they say nothing.
func structuralRole(o *object, path []step, podLabels deploy.Labels) deploy.Role {
	for i := len(path) - 1; i >= 0; i-- {
		s := path[i]
		if r := keyRole(o, s.key); r != "" {
			return r
		}
		if s.node.Kind == yaml.MappingNode {
			if r := fieldRole(o, s.node); r != "" {
				return r
			}
		}
		if s.node.Kind == yaml.SequenceNode && i > 0 && path[i-1].key == "roles" && o.kind == "RoleBasedGroup" {
			if r := nameRole(s.role); r != "" {
				return r
			}
		}
	}
	if o.kind == "LLMInferenceService" && yamlsrc.Path(o.root, "spec", "prefill") != nil && len(path) > 1 && path[0].key == "spec" {
		switch path[1].key {
		case "template", "worker":
			return deploy.RoleDecode // the main template serves decode when a prefill pool exists
		}
	}
	for _, k := range []string{"pd_role", "role", "component", "app.kubernetes.io/component", "llm-d.ai/role"} {
		if r := nameRole(podLabels[k]); r != "" {
			return r
		}
	}
	return ""
}

// keyRole is the role a key of a serving CRD gives what is below it.
func keyRole(o *object, key string) deploy.Role {
	switch key {
	case "prefill":
		return deploy.RolePrefill
	case "decode", "decoderConfig", "decoder":
		return deploy.RoleDecode
	case "routerConfig", "router":
		return deploy.RoleRouter
	case "engineConfig", "engine":
		// OME: the engine is the prefill side when a decoder exists
		// (ClusterServingRuntime spec.engineConfig / spec.decoderConfig,
		// InferenceService spec.engine / spec.decoder).
		spec := yamlsrc.Get(o.root, "spec")
		if yamlsrc.Get(spec, "decoderConfig") != nil || yamlsrc.Get(spec, "decoder") != nil {
			return deploy.RolePrefill
		}
		return deploy.RoleColocated
	}
	return ""
}

// fieldRole reads the role fields of Dynamo's graph: v1alpha1
// spec.services.<name>.subComponentType (prefill|decode) and componentType
// (frontend is the router), v1beta1 spec.components[].type.
func fieldRole(o *object, m *yaml.Node) deploy.Role {
	if o.kind != "DynamoGraphDeployment" {
		return ""
	}
	for _, k := range []string{"subComponentType", "type", "componentType"} {
		v, ok := yamlsrc.Str(yamlsrc.Get(m, k))
		if !ok {
			continue
		}
		switch strings.ToLower(v) {
		case "prefill":
			return deploy.RolePrefill
		case "decode":
			return deploy.RoleDecode
		case "frontend":
			return deploy.RoleRouter
		}
	}
	return ""
}

// nameRole reads a role from a name a user chose (an RBG role, a label).
func nameRole(name string) deploy.Role {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "prefill"):
		return deploy.RolePrefill
	case strings.Contains(n, "decode"):
		return deploy.RoleDecode
	case strings.Contains(n, "router"), n == "lb", strings.HasSuffix(n, "-lb"), strings.Contains(n, "gateway"):
		return deploy.RoleRouter
	}
	return ""
}

// applyRole sets a server's role from the structure when its flags do not
// decide it (see the order above).
func applyRole(s *deploy.Server, hint deploy.Role) {
	if s.Engine == deploy.EngineSGLangRouter || s.Role == deploy.RoleRouter {
		return
	}
	if v, ok := s.Args["--disaggregation-mode"]; ok && v.Known {
		return
	}
	for _, legacy := range []string{"--is-prefill-worker", "--is-decode-worker"} {
		// A Dynamo vLLM worker's deprecated role flags (engine/dynamo.go).
		if on, _ := s.Args[legacy].Typed.Bool(); s.Dynamo && on {
			return
		}
	}
	if s.Engine == deploy.EngineVLLM {
		if r := kvRole(s.Args["--kv-transfer-config"]); r != "" {
			s.Role = r
			return
		}
	}
	if hint == "" || hint == deploy.RoleRouter {
		return
	}
	s.Role = hint
}

// kvRole reads kv_role from vLLM's --kv-transfer-config JSON.
func kvRole(v deploy.Value) deploy.Role {
	if !v.Known || v.Raw == "" {
		return ""
	}
	var cfg struct {
		Role string `json:"kv_role"`
	}
	if json.Unmarshal([]byte(v.Raw), &cfg) != nil {
		return ""
	}
	switch cfg.Role {
	case "kv_producer":
		return deploy.RolePrefill
	case "kv_consumer":
		return deploy.RoleDecode
	}
	return ""
}
