package k8s

import (
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

const servicesManifest = `apiVersion: v1
kind: Service
metadata:
  name: llama-prefill
  namespace: inference
spec:
  selector:
    app: llama
    pd_role: prefill
  ports: [{port: 30000}]
---
apiVersion: v1
kind: Service
metadata:
  name: headless
spec:
  clusterIP: None
---
apiVersion: v1
kind: Service
metadata:
  name: templated
spec:
  selector:
    app: "{{ .Values.app }}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama-prefill
  namespace: inference
spec:
  template:
    metadata:
      labels: {app: llama, pd_role: prefill}
    spec:
      containers:
        - name: sglang
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--disaggregation-mode", "prefill"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: elsewhere
spec:
  template:
    spec:
      containers:
        - command: ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
`

func TestParseManifestServicesAndNamespaces(t *testing.T) {
	m := ParseManifest("pd.yaml", []byte(servicesManifest), noFiles)
	noErrors(t, m.Errors)
	want := []deploy.Service{{
		Name: "llama-prefill", Namespace: "inference",
		Selector: map[string]string{"app": "llama", "pd_role": "prefill"},
		Span:     deploy.Span{File: "pd.yaml", Line: 4, Col: 9, EndLine: 4, EndCol: 22},
	}}
	if !reflect.DeepEqual(m.Services, want) {
		t.Errorf("services %+v, want %+v (no selector or a templated one: not a route kvlint can follow)", m.Services, want)
	}
	if len(m.Servers) != 2 {
		t.Fatalf("want 2 servers, got %d", len(m.Servers))
	}
	if got := byName(t, m.Servers, "llama-prefill").Namespace; got != "inference" {
		t.Errorf("namespace %q, want inference", got)
	}
	if got := byName(t, m.Servers, "elsewhere").Namespace; got != "" {
		t.Errorf("namespace %q, want none", got)
	}
	servers, errs := Parse("pd.yaml", []byte(servicesManifest), noFiles)
	if len(servers) != len(m.Servers) || len(errs) != len(m.Errors) {
		t.Errorf("Parse and ParseManifest disagree: %d/%d servers", len(servers), len(m.Servers))
	}
}
