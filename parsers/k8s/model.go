package k8s

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// Models named by a serving CRD rather than by the launch command. KServe
// and OME download the model before the engine starts and hand the engine a
// directory (/mnt/models, $(MODEL_PATH)); the command line then says nothing
// about which model it is, but the CRD does: a Hugging Face URI. The server's
// Model becomes that id, spanning the id where the CRD writes it (the line to
// change), with the word of the command line that reads the directory as a
// reference step of its origin.

// kserveModelDir is where KServe's storage initializer places the model of
// storageUri (InferenceService) or spec.model.uri (LLMInferenceService):
// kserve@aaac4e294dae pkg/constants/constants.go DefaultModelLocalMountPath.
const kserveModelDir = "/mnt/models"

// hfScheme is the URI scheme of a Hugging Face repository, which the storage
// initializer reads as hf://owner/model[:revision]
// (kserve@aaac4e294dae python/storage/kserve_storage/kserve_storage.py
// _download_hf; pkg/constants/constants.go HfURIPrefix). OME's BaseModel
// storage.storageUri takes the same form (sgl-project/ome@17b77edad23b
// config/models/*.yaml, e.g. hf://BAAI/bge-m3).
const hfScheme = "hf://"

// hfModel reads the model id of a scalar holding an hf:// URI: the value
// spans the id alone (owner/model, without the scheme or a :revision).
// ok is false for any other scheme (s3://, pvc://, oci://), whose model
// kvlint cannot name, and for a malformed URI the initializer rejects.
func hfModel(src *yamlsrc.Source, n *yaml.Node) (deploy.Value, bool) {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || isPlaceholder(n.Value) {
		return deploy.Value{}, false
	}
	t, _ := src.Scalar(n)
	if !strings.HasPrefix(t.S, hfScheme) {
		return deploy.Value{}, false
	}
	id := t.S[len(hfScheme):]
	if i := strings.IndexByte(id, ':'); i >= 0 {
		id = id[:i]
	}
	parts := strings.Split(id, "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return deploy.Value{}, false
	}
	a, b := t.Range(len(hfScheme), len(hfScheme)+len(id))
	return deploy.Known(id, src.Span(a, b)), true
}

// modelFromDir gives servers whose model is the directory dir (as the
// launch wrote it) the model the CRD names.
func modelFromDir(servers []*deploy.Server, isDir func(deploy.Value) bool, model deploy.Value, via ...deploy.Span) {
	for _, s := range servers {
		if !isDir(s.Model) {
			continue
		}
		m := model
		var o deploy.Origin
		for _, sp := range via {
			o = o.Add(deploy.At(deploy.StepReference, sp))
		}
		m.Origin = o.Add(deploy.At(deploy.StepReference, s.Model.Span))
		s.Model = m
	}
}

// isKServeDir reports a model argument that is KServe's model directory.
func isKServeDir(v deploy.Value) bool {
	return v.Known && path.Clean(strings.TrimSpace(v.Raw)) == kserveModelDir
}

// OMEModels are the OME model references of a set of manifests: which base
// models the InferenceServices bind to which serving runtimes, joined by
// name across the checked files. A nil *OMEModels holds none.
type OMEModels struct {
	// byRuntime lists, per runtime name, the models InferenceServices
	// serve with it (each an hf:// id spanning where its base model writes
	// it), with the path the base model is stored at.
	byRuntime map[string][]omeBinding
	// named are the runtimes an InferenceService names (or the selector
	// picks for one), bound to a base model of the files or not: such a
	// runtime is not paired with base models by the selector's rules.
	named map[string]bool
	// bases are the base models of the manifests, in file order: the
	// ones a runtime no InferenceService names is paired with the way
	// OME's runtime selector would (omeselect.go).
	bases []omeBase
	// facts is what kvlint's model catalog knows of an id; nil knows
	// nothing.
	facts ModelFacts
}

type omeBinding struct {
	model     deploy.Value
	storePath string      // BaseModel spec.storage.path, "" when not written
	ref       deploy.Span // the InferenceService's spec.model.name
	// note says how the runtime was chosen when the InferenceService
	// names none; "" when it names it.
	note string
}

// isOME reports an object of OME's API group.
func isOME(apiVersion string) bool { return strings.HasPrefix(apiVersion, "ome.io/") }

// CollectOMEModels joins, across files, OME InferenceServices to the
// BaseModel or ClusterBaseModel they name (spec.model.name) and the runtime
// they name (spec.runtime.name): sgl-project/ome@17b77edad23b
// pkg/apis/ome/v1beta1/inference_service.go ModelRef, ServingRuntimeRef.
// An InferenceService that names no runtime gets the one OME's runtime
// selector picks among the runtimes of the checked files (selectRuntime),
// when the files decide it.
func CollectOMEModels(facts ModelFacts, files ...*source.File) *OMEModels {
	type baseModel struct {
		model     deploy.Value
		storePath string
	}
	bases := map[string]baseModel{}
	var all []omeBase
	type isvc struct {
		name, model, runtime, namespace string
		ref                             deploy.Span
	}
	var isvcs []isvc
	var runtimes []omeRuntime
	seenRuntime := map[string]bool{}
	for _, f := range files {
		src := yamlsrc.FromFile(f)
		docs, _ := src.Documents()
		for _, d := range docs {
			n := yamlsrc.Resolve(d.Root)
			api, _ := yamlsrc.Str(yamlsrc.Get(n, "apiVersion"))
			kind, _ := yamlsrc.Str(yamlsrc.Get(n, "kind"))
			if !isOME(api) {
				continue
			}
			name, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "name"))
			switch kind {
			case "BaseModel", "ClusterBaseModel":
				// BaseModelSpec.Storage (model.go StorageSpec): storageUri
				// names the source, path where it is stored on the node.
				st := yamlsrc.Path(n, "spec", "storage")
				m, ok := hfModel(src, yamlsrc.Get(st, "storageUri"))
				if !ok || name == "" {
					continue
				}
				p, _ := yamlsrc.Str(yamlsrc.Get(st, "path"))
				if _, dup := bases[name]; !dup {
					bases[name] = baseModel{model: m, storePath: p}
					all = append(all, readOMEBase(src, n, kind, name, m, p))
				}
			case "ServingRuntime", "ClusterServingRuntime":
				if name != "" && !seenRuntime[kind+"/"+name] {
					seenRuntime[kind+"/"+name] = true
					ns, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "namespace"))
					runtimes = append(runtimes, omeRuntime{name: name, cluster: kind == "ClusterServingRuntime", namespace: ns, spec: readOMERuntime(n)})
				}
			case "InferenceService":
				ref := yamlsrc.Path(n, "spec", "model", "name")
				model, _ := yamlsrc.Str(ref)
				rt, _ := yamlsrc.Str(yamlsrc.Path(n, "spec", "runtime", "name"))
				ns, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "namespace"))
				if model == "" || isPlaceholder(model) || isPlaceholder(rt) {
					continue
				}
				isvcs = append(isvcs, isvc{name: name, model: model, runtime: rt, namespace: ns, ref: src.ContentSpan(ref)})
			}
		}
	}
	out := &OMEModels{byRuntime: map[string][]omeBinding{}, named: map[string]bool{}, bases: all, facts: facts}
	for _, is := range isvcs {
		if is.runtime != "" {
			out.named[is.runtime] = true
		}
	}
	for _, is := range isvcs {
		b, ok := bases[is.model]
		if !ok {
			continue
		}
		rt, note := is.runtime, ""
		if rt == "" {
			var base *omeBase
			for i := range out.bases {
				if out.bases[i].name == is.model {
					base = &out.bases[i]
				}
			}
			if base == nil {
				continue
			}
			rt, note = out.selectRuntime(runtimes, base, is.namespace)
			if rt == "" {
				continue
			}
			note = fmt.Sprintf("InferenceService %s names no runtime: %s", is.name, note)
			out.named[rt] = true
		}
		out.byRuntime[rt] = append(out.byRuntime[rt], omeBinding{model: b.model, storePath: b.storePath, ref: is.ref, note: note})
	}
	return out
}

// omeModelPathEnv is the variable the OME controller sets to the base
// model's storage path in the serving container, unless the container sets
// it (sgl-project/ome@17b77edad23b pkg/controller/v1beta1/inferenceservice/
// components/base.go UpdateEnvVariables, constants.ModelPathEnvVarKey):
// OME's runtimes pass it as --model-path $(MODEL_PATH).
const omeModelPathEnv = "MODEL_PATH"

// applyOME gives the servers of an OME runtime (rt, its manifest) the
// model the InferenceServices that use it serve, when they all serve one
// model. Several models on one runtime leave it unknown: the runtime is
// then a template of several servers, each sized by its own model. A
// runtime no InferenceService names is paired with the base models of the
// manifests the way OME's runtime selector would (pairSelected).
func (m *OMEModels) applyOME(src *yamlsrc.Source, rt *yaml.Node, runtime string, servers []*deploy.Server) {
	if m == nil || runtime == "" {
		return
	}
	binds := m.byRuntime[runtime]
	if len(binds) == 0 {
		if !m.named[runtime] {
			m.pairSelected(src, rt, runtime, servers)
		}
		return
	}
	for _, b := range binds[1:] {
		if b.model.Raw != binds[0].model.Raw {
			return
		}
	}
	b := binds[0]
	isDir := omeModelDir(b.storePath)
	if b.note != "" {
		for _, s := range servers {
			if isDir(s.Model) {
				s.ModelNote = b.note
			}
		}
	}
	modelFromDir(servers, isDir, b.model, b.ref)
}

// omeModelDir reports a model argument that is the directory OME hands
// the runtime: $(MODEL_PATH), or the base model's storage path written out.
func omeModelDir(storePath string) func(deploy.Value) bool {
	return func(v deploy.Value) bool {
		raw := strings.TrimSpace(v.Raw)
		switch raw {
		case "$(" + omeModelPathEnv + ")", "$" + omeModelPathEnv, "${" + omeModelPathEnv + "}":
			return !v.Known
		}
		return v.Known && storePath != "" && path.Clean(raw) == path.Clean(storePath)
	}
}
