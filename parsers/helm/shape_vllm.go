package helm

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// productionStackShape is vLLM's production-stack chart,
// vllm-project/production-stack helm/ (read at
// 010004eea56fa9ee522a4cf66d363a213fdc67ab): servingEngineSpec.modelSpec[]
// entries each become a Deployment whose command
// templates/deployment-vllm-multi.yaml writes as a list: vllm serve
// MODELURL --host 0.0.0.0 --port PORT, then --enable-lora,
// --enable-auto-tool-choice, --tool-call-parser, then from vllmConfig
// --enable-chunked-prefill/--no-enable-chunked-prefill (when the key is
// set), --enable-prefix-caching/--no-enable-prefix-caching (always),
// --max-model-len, --dtype, --tensor-parallel-size, --max-num-seqs,
// --gpu_memory_utilization, --max_loras (each when its key is set), the
// extraArgs, and --kv-transfer-config when lmcacheConfig.enabled. A
// modelSpec list in a values file replaces the chart's whole list, so a key
// an entry does not set is really unset.
var productionStackShape = shape{
	name: "vllm-production-stack",
	matches: func(root *yaml.Node) bool {
		ms := yamlsrc.Resolve(node(root, "servingEngineSpec", "modelSpec"))
		return ms != nil && ms.Kind == yaml.SequenceNode
	},
	servers: productionStackServers,
}

// vllmConfigFlags are vllmConfig keys written as --flag VALUE when set.
var vllmConfigFlags = []struct{ key, flag string }{
	{"maxModelLen", "--max-model-len"},
	{"dtype", "--dtype"},
	{"tensorParallelSize", "--tensor-parallel-size"},
	{"maxNumSeqs", "--max-num-seqs"},
	{"gpuMemoryUtilization", "--gpu_memory_utilization"},
	{"maxLoras", "--max_loras"},
}

func productionStackServers(v *valuesDoc) []*deploy.Server {
	var out []*deploy.Server
	ms := yamlsrc.Resolve(node(v.root, "servingEngineSpec", "modelSpec"))
	for i, item := range ms.Content {
		spec := yamlsrc.Resolve(item)
		if !isMap(spec) || node(spec, "raySpec") != nil {
			continue // raySpec entries run through ray-cluster.yaml, not read here
		}
		expr := ".Values.servingEngineSpec.modelSpec[" + strconv.Itoa(i) + "]"
		a := &argv{v: v}
		a.lit(deploy.Span{}, "vllm", "serve")
		a.words = append(a.words, v.value(spec, expr+".modelURL", "modelURL"))
		a.lit(deploy.Span{}, "--host", "0.0.0.0", "--port")
		a.words = append(a.words, deploy.Unknown(`{{ include "chart.container-port" . }}`, deploy.Span{}))
		if on, _ := truth(spec, "enableLoRA"); on {
			a.lit(v.keySpan(spec, "enableLoRA"), "--enable-lora")
		}
		if on, _ := truth(spec, "enableTool"); on {
			a.lit(v.keySpan(spec, "enableTool"), "--enable-auto-tool-choice")
		}
		if on, _ := truth(spec, "toolCallParser"); on {
			a.flag("--tool-call-parser", spec, expr+".toolCallParser", "toolCallParser")
		}
		if cfg := node(spec, "vllmConfig"); isMap(cfg) {
			if node(cfg, "enableChunkedPrefill") != nil {
				if on, _ := truth(cfg, "enableChunkedPrefill"); on {
					a.lit(v.keySpan(cfg, "enableChunkedPrefill"), "--enable-chunked-prefill")
				} else {
					a.lit(v.keySpan(cfg, "enableChunkedPrefill"), "--no-enable-chunked-prefill")
				}
			}
			at := v.keySpan(cfg, "enablePrefixCaching")
			if at.IsZero() {
				at = v.keySpan(spec, "vllmConfig")
			}
			if on, _ := truth(cfg, "enablePrefixCaching"); on {
				a.lit(at, "--enable-prefix-caching")
			} else {
				a.lit(at, "--no-enable-prefix-caching")
			}
			for _, f := range vllmConfigFlags {
				if node(cfg, f.key) != nil {
					a.flag(f.flag, cfg, expr+".vllmConfig."+f.key, f.key)
				}
			}
			if extra := yamlsrc.Resolve(node(cfg, "extraArgs")); extra != nil && extra.Kind == yaml.SequenceNode {
				for _, w := range extra.Content {
					if w = yamlsrc.Resolve(w); w != nil && w.Kind == yaml.ScalarNode {
						a.words = append(a.words, v.src.Value(w))
					}
				}
			}
		}
		if lm := node(spec, "lmcacheConfig"); isMap(lm) {
			if on, _ := truth(lm, "enabled"); on {
				a.lit(v.keySpan(lm, "enabled"), "--kv-transfer-config")
				a.words = append(a.words, lmcacheTransfer(v, spec, lm))
			}
		}
		name := "modelSpec[" + strconv.Itoa(i) + "]"
		if n := v.value(spec, "", "name"); n.Known {
			name = n.Raw
		}
		s := a.server(name, v.src.NodeSpan(spec))
		if s == nil {
			continue
		}
		if r := v.value(spec, "", "replicaCount"); r.Known {
			s.Replicas = r
		}
		if g := v.value(spec, "", "requestGPU"); g.Known {
			s.GPUCount = g
		}
		repo, tag := v.value(spec, "", "repository"), v.value(spec, "", "tag")
		if repo.Known && tag.Known {
			s.Image = deploy.Known(repo.Raw+":"+tag.Raw, repo.Span)
		}
		out = append(out, s)
	}
	return out
}

// lmcacheTransfer is the --kv-transfer-config JSON the template writes,
// with kv_role from lmcacheConfig.kvRole (default kv_both), spanned at the
// kvRole key when it is set.
func lmcacheTransfer(v *valuesDoc, spec, lm *yaml.Node) deploy.Value {
	role := "kv_both"
	span := v.keySpan(lm, "enabled")
	if r := v.value(lm, "", "kvRole"); r.Known && r.Raw != "" {
		role, span = r.Raw, r.Span
	}
	connector := "LMCacheConnectorV1"
	if node(lm, "enablePD") != nil {
		// The PD form also carries the RPC port; its text is not needed
		// to read the connector and the role.
		return deploy.Unknown(`{"kv_connector":"LMCacheConnectorV1","kv_role":"`+role+`",...}`, span)
	}
	if x := v.value(spec, "", "vllmConfig", "v0"); x.Known && strings.TrimSpace(x.Raw) == "1" {
		connector = "LMCacheConnector"
	}
	return deploy.Known(`{"kv_connector":"`+connector+`","kv_role":"`+role+`"}`, span)
}

// modelServiceShape is llm-d's model service chart,
// llm-d-incubation/llm-d-modelservice charts/llm-d-modelservice (read at
// 024c0f2d02373736f1f3a6940a4f5a264455cfd1): prefill|decode.{create,
// replicas, parallelism.{tensor,data,dataLocal,workers}, containers[]} and
// modelArtifacts.{uri,name}. templates/_helpers.tpl "llm-d-modelservice.
// command" picks by containers[].modelCommand (default custom): vllmServe
// writes command [vllm, serve] and args MODEL --port PORT, then
// --tensor-parallel-size / --data-parallel-size / --data-parallel-size-local
// when above 1, --served-model-name, then the container's args; custom uses
// the container's command and args as written; imageDefault writes the same
// args with --model and leaves the command to the image.
var modelServiceShape = shape{
	name: "llm-d-modelservice",
	matches: func(root *yaml.Node) bool {
		if !isMap(node(root, "modelArtifacts")) {
			return false
		}
		for _, role := range []string{"prefill", "decode"} {
			if c := yamlsrc.Resolve(node(root, role, "containers")); c != nil && c.Kind == yaml.SequenceNode {
				return true
			}
		}
		return false
	},
	servers: modelServiceServers,
}

func modelServiceServers(v *valuesDoc) []*deploy.Server {
	var out []*deploy.Server
	for _, role := range []string{"prefill", "decode"} {
		sec := node(v.root, role)
		cs := yamlsrc.Resolve(node(sec, "containers"))
		if cs == nil || cs.Kind != yaml.SequenceNode {
			continue
		}
		if on, known := truth(sec, "create"); known && !on {
			continue
		}
		par := node(sec, "parallelism")
		for _, item := range cs.Content {
			c := yamlsrc.Resolve(item)
			if !isMap(c) {
				continue
			}
			a := &argv{v: v}
			mode := "custom"
			if m := v.value(c, "", "modelCommand"); m.Known {
				mode = m.Raw
			}
			switch mode {
			case "vllmServe", "imageDefault":
				if mode == "imageDefault" {
					img := v.value(c, "", "image")
					if !img.Known || !strings.Contains(img.Raw, "vllm") {
						continue // the image's own entrypoint, which the file does not show
					}
					a.lit(deploy.Span{}, "vllm", "serve", "--model")
				} else {
					a.lit(deploy.Span{}, "vllm", "serve")
				}
				a.words = append(a.words, modelArg(v))
				a.lit(deploy.Span{}, "--port")
				a.words = append(a.words, deploy.Unknown(`{{ include "llm-d-modelservice.vllmPort" . }}`, deploy.Span{}))
				parallelFlag(a, par, "tensor", "--tensor-parallel-size", ".Values."+role+".parallelism.tensor")
				parallelFlag(a, par, "data", "--data-parallel-size", ".Values."+role+".parallelism.data")
				parallelFlag(a, par, "dataLocal", "--data-parallel-size-local", ".Values."+role+".parallelism.dataLocal")
				a.flag("--served-model-name", v.root, ".Values.modelArtifacts.name", "modelArtifacts", "name")
				a.words = append(a.words, scalarList(v, node(c, "args"))...)
			case "custom":
				a.words = append(a.words, scalarList(v, node(c, "command"))...)
				a.words = append(a.words, scalarList(v, node(c, "args"))...)
			default:
				continue // the chart fails on any other modelCommand
			}
			name := role
			if n := v.value(c, "", "name"); n.Known {
				name += "/" + n.Raw
			}
			s := a.server(name, v.src.NodeSpan(c))
			if s == nil {
				continue
			}
			if s.Role == "" || s.Role == deploy.RoleColocated {
				s.Role = deploy.Role(role)
			}
			if r := v.value(sec, "", "replicas"); r.Known {
				s.Replicas = r
			}
			if t := v.value(par, "", "tensor"); t.Known {
				s.GPUCount = t
			}
			if img := v.value(c, "", "image"); img.Known {
				s.Image = img
			}
			out = append(out, s)
		}
	}
	return out
}

// parallelFlag writes --flag N when the parallelism key is above 1, as the
// chart does (gt (int ...) 1); an unset key leaves the chart's default to
// decide, an opaque word.
func parallelFlag(a *argv, par *yaml.Node, key, flag, expr string) {
	x := a.v.value(par, expr, key)
	if !x.Known {
		a.opaque = append(a.opaque, deploy.Unknown("{{ if gt "+expr+" 1 }}"+flag+"{{ end }}", deploy.Span{}))
		return
	}
	if n, err := strconv.Atoi(strings.TrimSpace(x.Raw)); err == nil && n > 1 {
		a.words = append(a.words, deploy.Known(flag, a.v.keySpan(par, key)), x)
	}
}

// modelArg is the model argument argsByProtocol derives from
// modelArtifacts.uri: hf://ORG/MODEL is ORG/MODEL, pvc+hf://CLAIM/.../NS/MODEL
// is NS/MODEL; a pvc:// path depends on mountPath and stays unknown unless set.
func modelArg(v *valuesDoc) deploy.Value {
	uri := v.value(v.root, ".Values.modelArtifacts.uri", "modelArtifacts", "uri")
	if !uri.Known {
		return uri
	}
	proto, rest, ok := strings.Cut(uri.Raw, "://")
	if !ok {
		return deploy.Unknown(uri.Raw, uri.Span)
	}
	switch proto {
	case "hf":
		return deploy.Known(rest, uri.Span)
	case "pvc+hf":
		parts := strings.Split(rest, "/")
		if len(parts) >= 2 {
			return deploy.Known(parts[len(parts)-2]+"/"+parts[len(parts)-1], uri.Span)
		}
	case "pvc":
		mount := v.value(v.root, "", "modelArtifacts", "mountPath")
		if _, path, ok := strings.Cut(rest, "/"); ok && mount.Known {
			return deploy.Known(mount.Raw+"/"+path, uri.Span)
		}
	}
	return deploy.Unknown(uri.Raw, uri.Span)
}

// scalarList reads a list of strings as words.
func scalarList(v *valuesDoc, n *yaml.Node) []deploy.Value {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []deploy.Value
	for _, it := range n.Content {
		if it = yamlsrc.Resolve(it); it != nil && it.Kind == yaml.ScalarNode {
			out = append(out, v.src.Value(it))
		}
	}
	return out
}
