package k8s

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// ControllerLaunch is a server a controller launches from a resource whose
// command it builds itself, at run time, in a form kvlint does not read:
// the resource is noted (KV501) rather than passed as clean.
type ControllerLaunch struct {
	// Span is the word that asks for the server (the preset's name).
	Span deploy.Span
	// Text names what was seen, as a user would search for it.
	Text string
	// NoKVCache is set when the controller runs a backend that keeps no
	// paged KV cache (Hugging Face transformers).
	NoKVCache bool
}

// kaitoWorkspace notes a KAITO Workspace that serves a model from a
// preset. KAITO builds the engine's command line in its controller from
// the preset and the inference ConfigMap (kaito-project/kaito@056b8280b1a8
// pkg/workspace/inference/preset_inferences.go), so no file holds it. Its
// runtime is vLLM unless the kaito.sh/runtime annotation says
// "transformers" (api/v1beta1/labels.go GetWorkspaceRuntimeName; the vLLM
// feature gate is on by default, pkg/featuregates/featuregates.go). An
// inference.template is a pod spec the user writes, walked like any other;
// a Workspace without an inference section (tuning) serves nothing.
func (p *parser) kaitoWorkspace(o *object, n *yaml.Node) {
	name := yamlsrc.Path(n, "inference", "preset", "name")
	preset, ok := yamlsrc.Str(name)
	if !ok || strings.TrimSpace(preset) == "" {
		return
	}
	runtime, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "annotations", "kaito.sh/runtime"))
	p.controlled = append(p.controlled, ControllerLaunch{
		Span:      p.src.Value(name).Span,
		Text:      "KAITO Workspace " + o.name + " (preset " + preset + ")",
		NoKVCache: strings.TrimSpace(runtime) == "transformers",
	})
}
