package k8s

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// A RayJob's entrypoint is a shell command run on the head: its words
// point into the folded scalar, $MODEL comes from the head container's
// env, the image is the head's, and the GPUs are a worker container's.
func TestRayJobEntrypoint(t *testing.T) {
	const file = "rayjob.yaml"
	data := []byte(`apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: llama-serve
  namespace: inference
spec:
  entrypoint: >-
    vllm serve $MODEL
    --tensor-parallel-size 2
    --max-model-len 8192
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        metadata:
          labels:
            app: llama
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.46.0-py311-gpu
              env:
                - name: MODEL
                  value: meta-llama/Llama-3.1-8B-Instruct
    workerGroupSpecs:
      - groupName: cpu
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.46.0-py311
      - groupName: gpu
        replicas: 2
        rayStartParams: {}
        template:
          spec:
            nodeSelector:
              nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
            containers:
              - name: ray-worker
                image: rayproject/ray:2.46.0-py311-gpu
                resources:
                  limits:
                    nvidia.com/gpu: "2"
`)
	m := ParseManifestWith(file, data, nil, engine.NewImageTable(nil))
	if len(m.Errors) != 0 {
		t.Fatalf("errors %v", m.Errors)
	}
	if len(m.Servers) != 1 {
		t.Fatalf("servers %d, want the entrypoint's one", len(m.Servers))
	}
	s := m.Servers[0]
	if s.Engine != deploy.EngineVLLM || s.Name != "llama-serve/entrypoint" || s.Namespace != "inference" || s.Labels["app"] != "llama" {
		t.Errorf("server %s %q in %q labels %v", s.Engine, s.Name, s.Namespace, s.Labels)
	}
	checkValue(t, "--tensor-parallel-size", s.Args["--tensor-parallel-size"], "2", true, file, pos{9, 28, 29})
	checkValue(t, "--max-model-len", s.Args["--max-model-len"], "8192", true, file, pos{10, 21, 25})
	// $MODEL is written in the entrypoint; its value in the head's env.
	if s.Model.Raw != "meta-llama/Llama-3.1-8B-Instruct" || !s.Model.Known {
		t.Errorf("model %+v", s.Model)
	}
	checkSpan(t, "model", s.Model.Span, file, pos{8, 16, 22})
	checkValue(t, "image", s.Image, "rayproject/ray:2.46.0-py311-gpu", true, file, pos{21, 22, 53})
	checkValue(t, "GPU count", s.GPUCount, "2", true, file, pos{45, 38, 39})
	checkValue(t, "GPU", s.GPU, "NVIDIA-H100-80GB-HBM3", true, file, pos{39, 39, 60})
}

// A RayJob that trains is no server; nor is one whose entrypoint is not a
// string. A RayJob outside ray.io is some other CRD.
func TestRayJobWithoutServer(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: train\nspec:\n  entrypoint: python train.py --epochs 3\n",
		"apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: empty\nspec:\n  entrypoint:\n",
		"apiVersion: example.com/v1\nkind: RayJob\nmetadata:\n  name: other\nspec:\n  entrypoint: vllm serve m --max-model-len 8192\n",
	} {
		m := ParseManifestWith("job.yaml", []byte(doc), nil, engine.NewImageTable(nil))
		if len(m.Servers) != 0 || len(m.Errors) != 0 {
			t.Errorf("%q: servers %d, errors %v: want none", doc, len(m.Servers), m.Errors)
		}
	}
}

// Worker groups that give different GPU counts leave the count unknown.
func TestRayJobWorkersDisagree(t *testing.T) {
	data := []byte(`apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: mixed
spec:
  entrypoint: vllm serve m --tensor-parallel-size 4
  rayClusterSpec:
    workerGroupSpecs:
      - template:
          spec:
            containers:
              - resources: {limits: {nvidia.com/gpu: 4}}
      - template:
          spec:
            containers:
              - resources: {limits: {nvidia.com/gpu: 8}}
`)
	m := ParseManifestWith("mixed.yaml", data, nil, engine.NewImageTable(nil))
	if len(m.Servers) != 1 {
		t.Fatalf("servers %d, errors %v", len(m.Servers), m.Errors)
	}
	checkValue(t, "--tensor-parallel-size", m.Servers[0].Args["--tensor-parallel-size"], "4", true, "mixed.yaml", pos{6, 51, 52})
	if c := m.Servers[0].GPUCount; c.Known || c.Raw != "4,8" {
		t.Errorf("GPU count %+v, want unknown 4,8", c)
	}
}

// A RayService's cluster (spec.rayClusterConfig) is read by the generic
// pod-template walk: a container beside the Ray container, which KubeRay
// runs as written (it rewrites only the first container's command:
// kuberay ray-operator/controllers/ray/common/pod.go, BuildPod), is found.
func TestRayServiceClusterPods(t *testing.T) {
	data := []byte(`apiVersion: ray.io/v1
kind: RayService
metadata:
  name: chat
spec:
  rayClusterConfig:
    workerGroupSpecs:
      - groupName: gpu
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.46.0-py311-gpu
              - name: engine
                image: vllm/vllm-openai:v0.10.1
                command: ["vllm", "serve", "m", "--max-model-len", "4096"]
`)
	m := ParseManifestWith("svc.yaml", data, nil, engine.NewImageTable(nil))
	if len(m.Servers) != 1 || len(m.Errors) != 0 {
		t.Fatalf("servers %d, errors %v", len(m.Servers), m.Errors)
	}
	if s := m.Servers[0]; s.Name != "chat/engine" {
		t.Errorf("server %q", s.Name)
	}
	checkValue(t, "--max-model-len", m.Servers[0].Args["--max-model-len"], "4096", true, "svc.yaml", pos{16, 69, 73})
}
