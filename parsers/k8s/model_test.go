package k8s

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// The model a CRD names spans the id inside the hf:// URI, without the
// scheme or a revision, and names the command-line word that reads the
// directory as a reference step.
func TestModelFromCRD(t *testing.T) {
	const manifest = `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: rt}
spec:
  containers:
    - name: kserve-container
      command: [python3, -m, sglang.launch_server, --model-path, /mnt/models]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: chat}
spec:
  predictor:
    model:
      runtime: rt
      storageUri: "hf://Qwen/Qwen2.5-7B-Instruct:main"
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: bad}
spec:
  predictor:
    model:
      runtime: rt
      storageUri: hf://Qwen
`
	m := ParseManifest("m.yaml", []byte(manifest), nil)
	got := map[string]deploy.Value{}
	for _, s := range m.Servers {
		got[s.Name] = s.Model
	}
	chat := got["chat"]
	if !chat.Known || chat.Raw != "Qwen/Qwen2.5-7B-Instruct" {
		t.Fatalf("chat model = %+v", chat)
	}
	if sp := chat.Span; sp.Line != 16 || sp.Col != 25 || sp.EndCol != 49 {
		t.Errorf("chat model span = %+v, want 16:25-49 (the id inside the URI)", sp)
	}
	if len(chat.Origin) != 1 || chat.Origin[0].Kind != deploy.StepReference || chat.Origin[0].Span.Line != 7 {
		t.Errorf("chat model origin = %+v, want the --model-path word at line 7", chat.Origin)
	}
	// A URI the storage initializer rejects names no model: the server
	// keeps the directory it reads.
	if bad := got["bad"]; bad.Raw != "/mnt/models" {
		t.Errorf("bad model = %+v, want /mnt/models", bad)
	}
	// The runtime alone serves whatever model it is given.
	if rt := got["rt"]; rt.Raw != "/mnt/models" {
		t.Errorf("runtime model = %+v", rt)
	}
}

// OME: an InferenceService joins its base model and its runtime across
// files; two services with different models on one runtime leave it unknown.
func TestOMEModels(t *testing.T) {
	models := source.NewFile("models.yaml", []byte(`apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: a}
spec:
  storage: {storageUri: hf://org/model-a, path: /raid/a}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: b}
spec:
  storage: {storageUri: hf://org/model-b}
`), source.SyntaxYAML)
	isvcs := source.NewFile("isvc.yaml", []byte(`apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: one}
spec: {model: {name: a}, runtime: {name: rt-one}}
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: two-a}
spec: {model: {name: a}, runtime: {name: rt-two}}
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: two-b}
spec: {model: {name: b}, runtime: {name: rt-two}}
`), source.SyntaxYAML)
	rts := source.NewFile("rt.yaml", []byte(`apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: rt-one}
spec:
  engineConfig:
    runner:
      command: [python3, -m, sglang.launch_server, --model-path, /raid/a]
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: rt-two}
spec:
  engineConfig:
    runner:
      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH)]
`), source.SyntaxYAML)
	ome := CollectOMEModels(nil, models, isvcs, rts)
	m := ParseManifestFileWith(rts, nil, Options{OME: ome})
	if len(m.Servers) != 2 {
		t.Fatalf("servers = %d", len(m.Servers))
	}
	one, two := m.Servers[0].Model, m.Servers[1].Model
	if !one.Known || one.Raw != "org/model-a" || one.Span.File != "models.yaml" || one.Span.Line != 5 {
		t.Errorf("rt-one model = %+v, want org/model-a at models.yaml:5", one)
	}
	if two.Known || two.Raw != "$(MODEL_PATH)" {
		t.Errorf("rt-two model = %+v, want unknown: two models use it", two)
	}
}
