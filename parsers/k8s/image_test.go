package k8s

import (
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// testImages are rows of the user's, so the tests do not depend on the
// built-in table.
var testImages = engine.NewImageTable([]engine.Image{
	{Repository: "vllm/vllm-openai", Tags: "v0.8.*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}, Release: "0.8.5", Source: "row-vllm"},
	{Repository: "registry.corp/llm/sglang-server*", Tags: "*", Engine: deploy.EngineSGLang,
		Entrypoint: []string{"python3", "-m", "sglang.launch_server"}, Source: ".kvlint.yaml:3"},
	{Repository: "redis", Tags: "*", Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"redis-server"}, Source: "row-redis"},
})

func deploymentWith(container string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    spec:
      containers:
        - name: c
` + container
}

func TestImageEntrypointWithArgs(t *testing.T) {
	in := deploymentWith(`          image: vllm/vllm-openai:v0.8.5
          args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768"]
`)
	m := ParseManifestWith("in.yaml", []byte(in), noFiles, testImages)
	noErrors(t, m.Errors)
	if len(m.Servers) != 1 {
		t.Fatalf("servers %d, want 1", len(m.Servers))
	}
	s := m.Servers[0]
	if s.Engine != deploy.EngineVLLM {
		t.Errorf("engine %q", s.Engine)
	}
	// The program is the image's: the server points at the image.
	checkSpan(t, "server", s.Span, "in.yaml", pos{10, 18, 41})
	checkValue(t, "image", s.Image, "vllm/vllm-openai:v0.8.5", true, "in.yaml", pos{10, 18, 41})
	checkValue(t, "model", s.Model, "Qwen/Qwen2.5-7B-Instruct", true, "in.yaml", pos{11, 30, 54})
	checkValue(t, "--max-model-len", s.Args["--max-model-len"], "32768", true, "in.yaml", pos{11, 77, 82})
	want := &deploy.ImageEntrypoint{Image: "vllm/vllm-openai:v0.8.5", Words: []string{"vllm", "serve"}, Source: "row-vllm", Release: "0.8.5"}
	if !reflect.DeepEqual(s.Entrypoint, want) {
		t.Errorf("entrypoint %+v, want %+v", s.Entrypoint, want)
	}
}

func TestImageEntrypointShapes(t *testing.T) {
	cases := []struct {
		name      string
		container string
		engine    deploy.Engine // "" for no server
		words     []string      // the image's words; nil when none
	}{
		{"user row, args only", `          image: registry.corp/llm/sglang-server:2025.06
          args: [--model-path, meta-llama/Llama-3.1-8B-Instruct, --tp-size, "2"]
`, deploy.EngineSGLang, []string{"python3", "-m", "sglang.launch_server"}},
		{"known image, nothing written: its default launch", `          image: vllm/vllm-openai:v0.8.5
`, deploy.EngineVLLM, []string{"vllm", "serve"}},
		{"command replaces the image's entrypoint", `          image: vllm/vllm-openai:v0.8.5
          command: [python3, -m, sglang.launch_server]
          args: [--model-path, m]
`, deploy.EngineSGLang, nil},
		{"unknown image, args that start with a program", `          image: corp/base:1
          args: [python3, -m, sglang.launch_server, --model-path, m]
`, deploy.EngineSGLang, nil},
		{"redis with args", `          image: redis:7
          args: [--maxmemory, 2gb]
`, "", nil},
		{"unknown image, options only", `          image: corp/unknown:1
          args: [--model, x]
`, "", nil},
		{"unknown image, command bash", `          image: corp/unknown:1
          command: [bash]
`, "", nil},
		{"placeholder image", `          image: "{{ .Values.image }}"
          args: [--model, x]
`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ParseManifestWith("in.yaml", []byte(deploymentWith(c.container)), noFiles, testImages)
			noErrors(t, m.Errors)
			if c.engine == "" {
				if len(m.Servers) != 0 {
					t.Fatalf("servers %+v, want none", m.Servers[0])
				}
				return
			}
			if len(m.Servers) != 1 || m.Servers[0].Engine != c.engine {
				t.Fatalf("servers %d, want one %s", len(m.Servers), c.engine)
			}
			ep := m.Servers[0].Entrypoint
			if c.words == nil {
				if ep != nil {
					t.Errorf("entrypoint %+v, want none", ep)
				}
				return
			}
			if ep == nil || !reflect.DeepEqual(ep.Words, c.words) {
				t.Errorf("entrypoint %+v, want words %q", ep, c.words)
			}
		})
	}
}
