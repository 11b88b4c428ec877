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

// kaitoWorkspace notes a KAITO Workspace that serves a model. KAITO builds
// the engine's command line in its controller from the preset and the
// inference ConfigMap (kaito-project/kaito@056b8280b1a8
// pkg/workspace/inference/preset_inferences.go), so no file holds it. Its
// runtime is vLLM unless the kaito.sh/runtime annotation says
// "transformers" (api/v1beta1/labels.go GetWorkspaceRuntimeName; the vLLM
// feature gate is on by default, pkg/featuregates/featuregates.go). A
// Workspace whose inference section is absent (tuning) serves nothing.
func (p *parser) kaitoWorkspace(o *object, n *yaml.Node) {
	inf := yamlsrc.Get(n, "inference")
	if inf == nil || inf.Kind != yaml.MappingNode {
		return
	}
	at := yamlsrc.Path(inf, "preset", "name")
	what := "KAITO Workspace " + o.name
	if name, ok := yamlsrc.Str(at); ok && name != "" {
		what += " (preset " + name + ")"
	} else {
		at = yamlsrc.Get(n, "inference")
		for _, pr := range yamlsrc.Pairs(n) {
			if pr.Key.Value == "inference" {
				at = pr.Key
			}
		}
	}
	runtime, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "annotations", "kaito.sh/runtime"))
	p.controlled = append(p.controlled, ControllerLaunch{
		Span:      p.src.Value(at).Span,
		Text:      what,
		NoKVCache: strings.TrimSpace(runtime) == "transformers",
	})
}
