package k8s

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/source"
)

// The selector's rules, one base model against one runtime at a time:
// pairs that OME's matcher.go IsCompatible accepts name the model, the rest
// leave it unknown.
func TestOMESelectorPairs(t *testing.T) {
	facts := func(id string) (ModelFact, bool) {
		switch id {
		case "org/llama-8b":
			return ModelFact{Architecture: "LlamaForCausalLM", Params: 8_030_000_000}, true
		case "org/llama-8b-awq":
			return ModelFact{Architecture: "LlamaForCausalLM", Params: 8_030_000_000, Quantization: "awq"}, true
		case "org/llama-8b-fp8":
			return ModelFact{Architecture: "LlamaForCausalLM", Params: 8_030_000_000, Quantization: "fp8"}, true
		}
		return ModelFact{}, false
	}
	const runtime = `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: rt}
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.43.0"}
      modelArchitecture: LlamaForCausalLM
      autoSelect: true
  modelSizeRange: {min: 7B, max: 9B}
  engineConfig:
    runner:
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH)]
`
	base := func(spec string) string {
		return "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec:\n" + spec
	}
	for _, tt := range []struct {
		name, model string
		want        string // "" = unknown
		candidates  int
	}{
		{"catalog architecture and size", base("  storage: {storageUri: hf://org/llama-8b}\n"), "org/llama-8b", 0},
		{"spec architecture and size", base("  modelArchitecture: LlamaForCausalLM\n  modelParameterSize: 8B\n  storage: {storageUri: hf://org/unknown}\n"), "org/unknown", 0},
		{"spec size outside the range", base("  modelArchitecture: LlamaForCausalLM\n  modelParameterSize: 70B\n  storage: {storageUri: hf://org/unknown}\n"), "", 0},
		{"another architecture", base("  modelArchitecture: MistralForCausalLM\n  storage: {storageUri: hf://org/llama-8b}\n"), "", 0},
		{"quantized another way: undecided", base("  storage: {storageUri: hf://org/llama-8b-awq}\n"), "", 1},
		{"quantized, the runtime is not", base("  storage: {storageUri: hf://org/llama-8b-fp8}\n"), "", 0},
		{"framework version written and different", base("  modelFramework: {name: transformers, version: \"4.40.0\"}\n  storage: {storageUri: hf://org/llama-8b}\n"), "", 0},
		{"another format", base("  modelFormat: {name: gguf}\n  storage: {storageUri: hf://org/llama-8b}\n"), "", 0},
		{"architecture unknown", base("  storage: {storageUri: hf://org/unknown}\n"), "", 0},
		{"size unknown: a candidate", base("  modelArchitecture: LlamaForCausalLM\n  storage: {storageUri: hf://org/unknown}\n"), "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			models := source.NewFile("models.yaml", []byte(tt.model), source.SyntaxYAML)
			rts := source.NewFile("rt.yaml", []byte(runtime), source.SyntaxYAML)
			m := ParseManifestFileWith(rts, nil, Options{OME: CollectOMEModels(facts, models, rts)})
			if len(m.Servers) != 1 {
				t.Fatalf("servers = %d", len(m.Servers))
			}
			s := m.Servers[0]
			if tt.want == "" {
				if s.Model.Known {
					t.Errorf("model = %q, want unknown", s.Model.Raw)
				}
			} else if !s.Model.Known || s.Model.Raw != tt.want || s.Model.Span.File != "models.yaml" {
				t.Errorf("model = %+v, want %s in models.yaml", s.Model, tt.want)
			} else if !s.Model.Origin.Inferred() || !strings.Contains(s.ModelNote, "IsCompatible") {
				t.Errorf("a paired model is marked inferred and explained: origin %+v, note %q", s.Model.Origin, s.ModelNote)
			}
			if s.ModelCandidatesCertain {
				// Every candidate of the table is undecided: the
				// model that runs may be one outside the set.
				t.Errorf("candidates %v are marked certain", s.ModelCandidates)
			}
			if len(s.ModelCandidates) != tt.candidates {
				t.Errorf("candidates = %v, want %d", s.ModelCandidates, tt.candidates)
			}
		})
	}
}

// The runtime an InferenceService that names none gets: a namespaced
// runtime before a cluster one, then the higher score, then the nearer
// size range, then the name.
func TestOMESelectRuntime(t *testing.T) {
	facts := func(id string) (ModelFact, bool) {
		return ModelFact{Architecture: "LlamaForCausalLM", Params: 8_000_000_000}, id == "org/llama-8b"
	}
	rt := func(kind, name, extra string) string {
		return "apiVersion: ome.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: team}\nspec:\n" +
			"  supportedModelFormats:\n    - modelFormat: {name: safetensors, version: \"1.0.0\"}\n" +
			"      modelFramework: {name: transformers}\n      modelArchitecture: LlamaForCausalLM\n      autoSelect: true\n" + extra +
			"  engineConfig:\n    runner:\n      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH)]\n---\n"
	}
	const rest = `apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: m}
spec: {storage: {storageUri: hf://org/llama-8b}}
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: svc, namespace: team}
spec: {model: {name: m}}
`
	for _, tt := range []struct {
		name, runtimes, want string
	}{
		{"namespaced first", rt("ClusterServingRuntime", "a", "      priority: 5\n") + rt("ServingRuntime", "b", ""), "b"},
		{"higher priority", rt("ClusterServingRuntime", "a", "") + rt("ClusterServingRuntime", "b", "      priority: 2\n"), "b"},
		{"nearer size range", rt("ClusterServingRuntime", "a", "  modelSizeRange: {min: 1B, max: 70B}\n") + rt("ClusterServingRuntime", "b", "  modelSizeRange: {min: 7B, max: 9B}\n"), "b"},
		{"then the name", rt("ClusterServingRuntime", "b", "") + rt("ClusterServingRuntime", "a", ""), "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := source.NewFile("all.yaml", []byte(tt.runtimes+rest), source.SyntaxYAML)
			ome := CollectOMEModels(facts, f)
			var got []string
			for name, binds := range ome.byRuntime {
				for _, b := range binds {
					if b.note != "" {
						got = append(got, name)
					}
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("selected %v, want %s", got, tt.want)
			}
		})
	}
}

// A runtime listing several formats meets the same open question in each:
// the note says it once.
func TestOMEOpenQuestionSaidOnce(t *testing.T) {
	facts := func(id string) (ModelFact, bool) {
		return ModelFact{Architecture: "LlamaForCausalLM", Params: 8_030_000_000, Quantization: "awq"}, id == "org/llama-8b-awq"
	}
	format := "    - modelFormat: {name: safetensors, version: \"1.0.0\"}\n      modelFramework: {name: transformers, version: \"4.43.0\"}\n      modelArchitecture: LlamaForCausalLM\n      autoSelect: true\n"
	runtime := "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: rt}\nspec:\n  supportedModelFormats:\n" + format + format +
		"  engineConfig:\n    runner:\n      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH)]\n"
	models := source.NewFile("models.yaml", []byte("apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec:\n  storage: {storageUri: hf://org/llama-8b-awq}\n"), source.SyntaxYAML)
	rts := source.NewFile("rt.yaml", []byte(runtime), source.SyntaxYAML)
	m := ParseManifestFileWith(rts, nil, Options{OME: CollectOMEModels(facts, models, rts)})
	if len(m.Servers) != 1 {
		t.Fatalf("servers = %d", len(m.Servers))
	}
	note := m.Servers[0].ModelNote
	if n := strings.Count(note, "quantization is not known"); n != 1 {
		t.Errorf("the open question is said %d times: %q", n, note)
	}
}
