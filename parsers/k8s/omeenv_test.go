package k8s

import (
	"strings"
	"testing"
)

// OME's controller sets PARALLELISM_SIZE to the container's GPUs times the
// component's pods, and only then: with an accelerator class possible, no
// GPUs, or a worker size kvlint cannot read, the container's own value (or
// the unresolved reference) stands.
func TestOMEParallelismEnv(t *testing.T) {
	runtime := func(spec, container string) string {
		return `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
` + spec + `
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.3
      command: ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp-size", "$(PARALLELISM_SIZE)"]
` + container
	}
	const gpus4 = `      resources:
        limits:
          nvidia.com/gpu: 4
`
	for _, tt := range []struct {
		name, spec, container string
		tp                    string // "" unknown
	}{
		{"single pod", `  disabled: false`, gpus4, "4"},
		{"accelerator classes", `  acceleratorRequirements:
    acceleratorClasses: [a, b]`, gpus4, ""},
		{"no GPUs", `  disabled: false`, "", ""},
		{"own value, no GPUs", `  disabled: false`, `      env:
      - name: PARALLELISM_SIZE
        value: "2"
`, "2"},
		{"own value overwritten", `  disabled: false`, gpus4 + `      env:
      - name: PARALLELISM_SIZE
        value: "2"
`, "4"},
		{"templated GPUs", `  disabled: false`, `      resources:
        limits:
          nvidia.com/gpu: "{{ .gpus }}"
`, ""},
	} {
		m := ParseManifest("rt.yaml", []byte(runtime(tt.spec, tt.container)), nil)
		if len(m.Servers) != 1 {
			t.Fatalf("%s: %d servers (%v)", tt.name, len(m.Servers), m.Errors)
		}
		v := m.Servers[0].Args["--tp-size"]
		got := ""
		if v.Known {
			got = v.Raw
		}
		if got != tt.tp || !v.Known && !strings.Contains(v.Raw, "PARALLELISM_SIZE") {
			t.Errorf("%s: --tp-size %+v, want %q", tt.name, v, tt.tp)
		}
	}
}
