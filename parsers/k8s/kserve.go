package k8s

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// indexRuntimes finds the KServe ServingRuntimes and ClusterServingRuntimes
// of a stream, by name.
func indexRuntimes(docs []yamlsrc.Document) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, d := range docs {
		n := yamlsrc.Resolve(d.Root)
		kind, _ := yamlsrc.Str(yamlsrc.Get(n, "kind"))
		api, _ := yamlsrc.Str(yamlsrc.Get(n, "apiVersion"))
		if (kind != "ServingRuntime" && kind != "ClusterServingRuntime") || !strings.HasPrefix(api, "serving.kserve.io/") {
			continue
		}
		if name, ok := yamlsrc.Str(yamlsrc.Path(n, "metadata", "name")); ok && name != "" {
			if _, dup := out[name]; !dup {
				out[name] = n
			}
		}
	}
	return out
}

// inferenceService reads a KServe InferenceService's spec.predictor.model:
// a container (args, env, resources) laid over the serving runtime's first
// container. KServe merges the two with a strategic merge patch
// (kserve pkg/controller/v1beta1/inferenceservice/utils/utils.go,
// MergeRuntimeContainers): what the model sets replaces the runtime's
// (args and command as whole lists), env entries merge by name and
// resources key by key. The runtime is the one spec.predictor.model.runtime
// names, else one in the same stream whose supportedModelFormats lists the
// model's format with autoSelect. A model with args whose runtime is not in
// the checked files is reported: the server those args configure cannot be
// seen. (spec.predictor.containers, a custom container, is read like any pod
// spec by the generic walk.)
func (p *parser) inferenceService(o *object, n *yaml.Node) {
	spec := yamlsrc.Get(n, "spec")
	pred := yamlsrc.Get(spec, "predictor")
	model := yamlsrc.Get(pred, "model")
	if model == nil || model.Kind != yaml.MappingNode {
		return
	}
	rt, name := p.runtimeFor(model)
	if rt == nil {
		if args := yamlsrc.Get(model, "args"); args != nil && args.Kind == yaml.SequenceNode && len(args.Content) > 0 {
			what := "no ServingRuntime in the checked files serves its model format"
			if name != "" {
				what = "its runtime " + name + " is not in the checked files"
			}
			p.errorf(args, "the InferenceService %q passes args to its serving runtime, but %s: the server they configure was not checked", o.name, what)
		}
		return
	}
	cs := yamlsrc.Path(rt, "spec", "containers")
	if cs == nil || cs.Kind != yaml.SequenceNode || len(cs.Content) == 0 {
		return
	}
	base := yamlsrc.Resolve(cs.Content[0])
	if base == nil || base.Kind != yaml.MappingNode {
		return
	}
	merged := mergeContainer(base, model)
	path := []step{{node: n, key: "spec"}, {node: spec, key: "predictor"}}
	start := len(p.servers)
	p.pod(o, pred, path, []*yaml.Node{merged})
	// spec.predictor.model.storageUri: the storage initializer downloads
	// it to /mnt/models, which the runtime's args name
	// (kserve@aaac4e294dae pkg/apis/serving/v1beta1/predictor.go
	// PredictorExtensionSpec.StorageURI).
	if m, ok := hfModel(p.src, yamlsrc.Get(model, "storageUri")); ok {
		modelFromDir(p.servers[start:], isKServeDir, m)
	}
}

func (p *parser) runtimeFor(model *yaml.Node) (*yaml.Node, string) {
	if name, ok := yamlsrc.Str(yamlsrc.Get(model, "runtime")); ok && name != "" {
		return p.runtimes[name], name
	}
	format, _ := yamlsrc.Str(yamlsrc.Path(model, "modelFormat", "name"))
	if format == "" {
		return nil, ""
	}
	var names []string
	for name := range p.runtimes {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		rt := p.runtimes[name]
		for _, f := range seqItems(yamlsrc.Path(rt, "spec", "supportedModelFormats")) {
			fn, _ := yamlsrc.Str(yamlsrc.Get(f, "name"))
			auto, _ := yamlsrc.Str(yamlsrc.Get(f, "autoSelect"))
			if strings.EqualFold(fn, format) && auto == "true" {
				return rt, name
			}
		}
	}
	return nil, ""
}

// mergeContainer lays a container's fields over another's as KServe's
// strategic merge does.
func mergeContainer(base, over *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: base.Line, Column: base.Column}
	set := func(k *yaml.Node, v *yaml.Node) {
		for i := 0; i+1 < len(out.Content); i += 2 {
			if out.Content[i].Value == k.Value {
				out.Content[i+1] = v
				return
			}
		}
		out.Content = append(out.Content, k, v)
	}
	for _, pr := range yamlsrc.Pairs(base) {
		set(pr.Key, pr.Value)
	}
	for _, pr := range yamlsrc.Pairs(over) {
		switch pr.Key.Value {
		case "modelFormat", "runtime", "storageUri", "protocolVersion", "storage":
			continue // ModelSpec's own fields, not the container's
		case "env":
			set(pr.Key, mergeByName(yamlsrc.Get(base, "env"), pr.Value))
		case "resources":
			set(pr.Key, mergeMaps(yamlsrc.Get(base, "resources"), pr.Value, 2))
		default:
			set(pr.Key, pr.Value)
		}
	}
	return out
}

// mergeByName merges two lists of named entries (env): an entry of over
// replaces the base entry of the same name, new ones are appended.
func mergeByName(base, over *yaml.Node) *yaml.Node {
	if base == nil || base.Kind != yaml.SequenceNode || over == nil || over.Kind != yaml.SequenceNode {
		if over != nil {
			return over
		}
		return base
	}
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: base.Line, Column: base.Column}
	overNames := map[string]bool{}
	for _, it := range over.Content {
		if n, ok := yamlsrc.Str(yamlsrc.Get(it, "name")); ok {
			overNames[n] = true
		}
	}
	for _, it := range base.Content {
		if n, ok := yamlsrc.Str(yamlsrc.Get(it, "name")); ok && overNames[n] {
			continue
		}
		out.Content = append(out.Content, it)
	}
	out.Content = append(out.Content, over.Content...)
	return out
}

// mergeMaps merges mappings key by key, depth levels deep.
func mergeMaps(base, over *yaml.Node, depth int) *yaml.Node {
	base, over = yamlsrc.Resolve(base), yamlsrc.Resolve(over)
	if depth == 0 || base == nil || base.Kind != yaml.MappingNode || over == nil || over.Kind != yaml.MappingNode {
		if over != nil {
			return over
		}
		return base
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: base.Line, Column: base.Column}
	idx := map[string]int{}
	for _, pr := range yamlsrc.Pairs(base) {
		idx[pr.Key.Value] = len(out.Content)
		out.Content = append(out.Content, pr.Key, pr.Value)
	}
	for _, pr := range yamlsrc.Pairs(over) {
		if i, ok := idx[pr.Key.Value]; ok {
			out.Content[i+1] = mergeMaps(out.Content[i+1], pr.Value, depth-1)
			continue
		}
		out.Content = append(out.Content, pr.Key, pr.Value)
	}
	return out
}

func seqItems(n *yaml.Node) []*yaml.Node {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// additionalArgsEnv is the variable KServe's LLMInferenceService
// configuration appends to the vLLM command line.
const additionalArgsEnv = "VLLM_ADDITIONAL_ARGS"

// llmisvcLaunch is the command of an LLMInferenceService container that
// does not write one: the well-known configuration it is merged with runs
// `vllm serve /mnt/models ... $VLLM_ADDITIONAL_ARGS` through eval (kserve
// config/llmisvcconfig/config-llm-template.yaml), so the variable's value
// is split into words as a shell splits a command line, quotes and all.
// The model is spec.model.uri (without its hf:// scheme), the model the
// storage initializer places at /mnt/models. The program words point at
// the variable's name, the line that brings these flags in.
func (p *parser) llmisvcLaunch(o *object) func(c *yaml.Node, e *env) []word {
	return func(c *yaml.Node, e *env) []word {
		var nameNode, valNode *yaml.Node
		for _, it := range seqItems(yamlsrc.Get(c, "env")) {
			if n, ok := yamlsrc.Str(yamlsrc.Get(it, "name")); ok && n == additionalArgsEnv {
				nameNode, valNode = yamlsrc.Get(it, "name"), yamlsrc.Get(it, "value")
			}
		}
		if nameNode == nil || valNode == nil || valNode.Kind != yaml.ScalarNode {
			return nil
		}
		at := p.src.ContentSpan(nameNode)
		words := []word{{v: deploy.Known("vllm", at)}, {v: deploy.Known("serve", at)}}
		// The model word is the template's own; object() then names the
		// model spec.model.uri holds.
		words = append(words, word{v: deploy.Known(kserveModelDir, at)})
		text, _ := p.src.Scalar(valNode)
		cmds, errs := shell.Commands(shell.Source{
			File: p.src.File,
			Text: []byte(text.S),
			Map:  shell.Mapper(p.src.Mapper(text)),
			Env:  e.shellEnv(),
		})
		p.errs = append(p.errs, errs...)
		for _, cmd := range cmds {
			for _, w := range cmd.Words {
				words = append(words, word{v: w})
			}
		}
		return words
	}
}
