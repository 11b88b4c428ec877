package k8s

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// A container that runs a script from a ConfigMap volume: the script is the
// ConfigMap's key, its words point into the block scalar, and the
// container's env is the script's environment.
const cmManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: launch
data:
  start.sh: |
    #!/bin/bash
    exec python3 -m sglang.launch_server --model-path $MODEL \
      --tp-size 8 --context-length 32768
  idle.sh: |
    echo waiting
    sleep infinity
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: server
          image: lmsysorg/sglang:v0.5.4
          command: ["bash", "/scripts/start.sh"]
          env:
            - name: MODEL
              value: meta-llama/Llama-3.1-8B-Instruct
          volumeMounts:
            - name: scripts
              mountPath: /scripts
        - name: sidecar
          image: busybox
          command: ["/bin/sh", "-c", "sh /scripts/idle.sh && bash /scripts/gone.sh"]
          volumeMounts:
            - name: scripts
              mountPath: /scripts
      volumes:
        - name: scripts
          configMap:
            name: launch
`

func TestConfigMapScript(t *testing.T) {
	m := ParseManifestFileWith(source.NewFile("m.yaml", []byte(cmManifest), source.SyntaxYAML), nil, Options{})
	if len(m.Servers) != 1 {
		t.Fatalf("servers %d, want 1; errors %v", len(m.Servers), m.Errors)
	}
	s := m.Servers[0]
	if s.Name != "llama/server" || s.Engine != deploy.EngineSGLang || s.Source != deploy.SourceKubernetes {
		t.Errorf("server %q %s %s", s.Name, s.Engine, s.Source)
	}
	atPos(t, "program", s.Span, 8, 21)
	tp := s.Args["--tp-size"]
	atPos(t, "--tp-size", tp.Span, 9, 17)
	if tp.Raw != "8" || !tp.Known {
		t.Errorf("--tp-size %+v", tp)
	}
	model := s.Args["--model-path"]
	if model.Raw != "meta-llama/Llama-3.1-8B-Instruct" || !model.Known {
		t.Errorf("--model-path from the container env: %+v", model)
	}
	// gone.sh is run from the mounted ConfigMap, which has no such key.
	if len(m.Errors) != 1 || !strings.Contains(m.Errors[0].Message, `ConfigMap "launch", mounted at /scripts, has no data key "gone.sh"`) {
		t.Fatalf("errors %v", m.Errors)
	}
	atPos(t, "missing key", m.Errors[0].Span, 33, 67)
}

func atPos(t *testing.T, what string, sp deploy.Span, line, col int) {
	t.Helper()
	if sp.File == "" || sp.Line != line || sp.Col != col {
		t.Errorf("%s at %s, want %d:%d", what, sp, line, col)
	}
}

// items and subPath decide which key a path is; a ConfigMap in another
// file of the set is found by name and its positions are in its own file;
// one that no file defines leaves the script unread without an error.
func TestConfigMapMounts(t *testing.T) {
	cm := `apiVersion: v1
kind: ConfigMap
metadata:
  name: launch
  namespace: serving
data:
  run: |
    vllm serve Qwen/Qwen3-8B --max-model-len 8192
`
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: qwen
  namespace: serving
spec:
  containers:
    - name: a
      image: vllm/vllm-openai
      command: ["/opt/entry/go.sh"]
      volumeMounts:
        - {name: entry, mountPath: /opt/entry}
    - name: b
      image: vllm/vllm-openai
      command: ["sh", "/start.sh"]
      volumeMounts:
        - {name: one, mountPath: /start.sh, subPath: run}
    - name: c
      image: vllm/vllm-openai
      command: ["bash", "/elsewhere/start.sh"]
      volumeMounts:
        - {name: other, mountPath: /elsewhere}
  volumes:
    - name: entry
      configMap:
        name: launch
        items:
          - {key: run, path: go.sh}
    - name: one
      configMap: {name: launch}
    - name: other
      configMap: {name: not-in-these-files}
`
	maps := CollectConfigMaps(source.NewFile("cm.yaml", []byte(cm), source.SyntaxYAML))
	m := ParseManifestFileWith(source.NewFile("pod.yaml", []byte(pod), source.SyntaxYAML), nil, Options{ConfigMaps: maps})
	if len(m.Errors) != 0 {
		t.Fatalf("errors %v", m.Errors)
	}
	if len(m.Servers) != 2 {
		t.Fatalf("servers %d, want 2", len(m.Servers))
	}
	for i, name := range []string{"qwen/a", "qwen/b"} {
		s := m.Servers[i]
		if s.Name != name || s.Engine != deploy.EngineVLLM || s.Namespace != "serving" {
			t.Errorf("server %d: %q %s %q", i, s.Name, s.Engine, s.Namespace)
		}
		v := s.Args["--max-model-len"]
		if v.Span.File != "cm.yaml" {
			t.Errorf("%s: --max-model-len in %s, want cm.yaml", name, v.Span.File)
		}
		atPos(t, name+" --max-model-len", v.Span, 8, 46)
	}
	// Without the other file, the ConfigMap is unseen: nothing found,
	// nothing reported.
	m = ParseManifestFileWith(source.NewFile("pod.yaml", []byte(pod), source.SyntaxYAML), nil, Options{})
	if len(m.Servers) != 0 || len(m.Errors) != 0 {
		t.Errorf("without the ConfigMap: %d servers, errors %v", len(m.Servers), m.Errors)
	}
}
