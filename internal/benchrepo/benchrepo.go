// Package benchrepo writes a synthetic repository of deployment files for
// kvlint's benchmarks: Kubernetes manifests, shell scripts, Dockerfiles,
// compose files, a few Helm charts and Terraform modules, and files kvlint
// passes over, in the proportions and sizes of a platform team's monorepo.
// The same seed and size always give the same files.
package benchrepo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// KubernetesDir is the directory, under the repository root, that holds the
// plain Kubernetes manifests (what the conftest comparison reads).
const KubernetesDir = "k8s"

// Stats counts what Generate wrote.
type Stats struct {
	Files, Kubernetes, Scripts, Dockerfiles, Compose, Charts, Modules, Other int
	Bytes                                                                    int64
}

// Generate writes about n files under dir.
func Generate(dir string, n int, seed uint64) (Stats, error) {
	g := &gen{dir: dir, r: rand.New(rand.NewPCG(seed, uint64(n)))}
	charts := max(1, n/2000)
	modules := max(1, n/2500)
	for i := range charts {
		g.chart(i)
	}
	for i := range modules {
		g.module(i)
	}
	for g.st.Files < n && g.err == nil {
		i := g.st.Files
		team := fmt.Sprintf("team-%02d/svc-%03d", i%40, (i/40)%200)
		switch x := g.r.IntN(100); {
		case x < 70:
			g.manifest(filepath.Join(KubernetesDir, team, fmt.Sprintf("deploy-%d.yaml", i)))
		case x < 83:
			g.script(filepath.Join("scripts", team, fmt.Sprintf("serve-%d.sh", i)))
		case x < 88:
			g.write(filepath.Join("images", team, fmt.Sprintf("%d", i), "Dockerfile"), g.dockerfile())
			g.st.Dockerfiles++
		case x < 91:
			g.write(filepath.Join("compose", team, fmt.Sprintf("%d", i), "compose.yaml"), g.compose())
			g.st.Compose++
		default:
			g.write(filepath.Join("src", team, fmt.Sprintf("mod_%d.py", i)), g.python())
			g.st.Other++
		}
	}
	return g.st, g.err
}

type gen struct {
	dir string
	r   *rand.Rand
	st  Stats
	err error
}

func (g *gen) write(rel, text string) {
	if g.err != nil {
		return
	}
	p := filepath.Join(g.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.err = err
		return
	}
	g.err = os.WriteFile(p, []byte(text), 0o644)
	g.st.Files++
	g.st.Bytes += int64(len(text))
}

var models = []string{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen3-32B", "Qwen/Qwen2.5-7B-Instruct"}

// sglangArgs is a launch's flags; one in five caps the pool below the
// context window, so the rules have findings to report.
func (g *gen) sglangArgs() []string {
	ctx := []int{8192, 32768, 131072}[g.r.IntN(3)]
	pool := ctx * (1 + g.r.IntN(4))
	if g.r.IntN(5) == 0 {
		pool = ctx / 2
	}
	return []string{"--model-path", models[g.r.IntN(len(models))], "--tp-size", fmt.Sprint([]int{1, 2, 4, 8}[g.r.IntN(4)]),
		"--context-length", fmt.Sprint(ctx), "--max-total-tokens", fmt.Sprint(pool),
		"--mem-fraction-static", "0.85", "--host", "0.0.0.0", "--port", "30000"}
}

// manifest writes a Deployment (a third of them serve SGLang, the rest are
// ordinary services), with a Service, as teams write them: 2–4 KB.
func (g *gen) manifest(rel string) {
	name := fmt.Sprintf("svc-%d", g.st.Files)
	var container string
	if g.r.IntN(3) == 0 {
		var args strings.Builder
		for _, a := range g.sglangArgs() {
			fmt.Fprintf(&args, "            - %q\n", a)
		}
		container = fmt.Sprintf(`        - name: sglang
          image: lmsysorg/sglang:v0.5.3
          command: ["python3", "-m", "sglang.launch_server"]
          args:
%s          resources:
            limits:
              nvidia.com/gpu: "8"
`, args.String())
	} else {
		container = `        - name: app
          image: registry.example.com/platform/app:1.42.0
          args: ["--listen", ":8080", "--log-level", "info"]
          resources:
            requests: {cpu: 250m, memory: 256Mi}
            limits: {cpu: "1", memory: 512Mi}
`
	}
	var env strings.Builder
	for i := range 5 + g.r.IntN(15) {
		fmt.Fprintf(&env, "            - name: FEATURE_FLAG_%d\n              value: %q\n", i, fmt.Sprint(g.r.IntN(2) == 0))
	}
	g.write(rel, fmt.Sprintf(`# %s: owned by the platform team; deployed by CI.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  namespace: serving
  labels: {app: %s, tier: backend}
spec:
  replicas: %d
  selector:
    matchLabels: {app: %s}
  template:
    metadata:
      labels: {app: %s}
      annotations:
        prometheus.io/scrape: "true"
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
      containers:
%s          env:
%s          readinessProbe:
            httpGet: {path: /health, port: 30000}
            periodSeconds: 10
---
apiVersion: v1
kind: Service
metadata:
  name: %s
  namespace: serving
spec:
  selector: {app: %s}
  ports:
    - port: 80
      targetPort: 30000
`, name, name, name, 1+g.r.IntN(4), name, name, container, env.String(), name, name))
	g.st.Kubernetes++
}

func (g *gen) script(rel string) {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n# Launch script used by the on-call runbook.\nset -euo pipefail\n\n")
	b.WriteString("MODEL=${MODEL:-" + models[g.r.IntN(len(models))] + "}\nPORT=${PORT:-30000}\n\n")
	for i := range 3 + g.r.IntN(10) {
		fmt.Fprintf(&b, "log() { echo \"[$(date +%%T)] step %d: $*\" >&2; }\n", i)
	}
	if g.r.IntN(2) == 0 {
		b.WriteString("\nexec python3 -m sglang.launch_server \\\n")
		args := g.sglangArgs()
		for i := 0; i < len(args); i += 2 {
			fmt.Fprintf(&b, "  %s %s \\\n", args[i], args[i+1])
		}
		b.WriteString("  --enable-metrics\n")
	} else {
		b.WriteString("\nrsync -a ./build/ \"$HOME/deploy/\"\necho done\n")
	}
	g.write(rel, b.String())
	g.st.Scripts++
}

func (g *gen) dockerfile() string {
	args := g.sglangArgs()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf(`FROM lmsysorg/sglang:v0.5.3
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
ENV PYTHONUNBUFFERED=1
EXPOSE 30000
CMD ["python3", "-m", "sglang.launch_server", %s]
`, strings.Join(quoted, ", "))
}

func (g *gen) compose() string {
	return fmt.Sprintf(`services:
  sglang:
    image: lmsysorg/sglang:v0.5.3
    command: python3 -m sglang.launch_server %s
    ports: ["30000:30000"]
    deploy:
      resources:
        reservations:
          devices: [{driver: nvidia, count: 2, capabilities: [gpu]}]
  cache:
    image: redis:7
`, strings.Join(g.sglangArgs(), " "))
}

func (g *gen) python() string {
	var b strings.Builder
	b.WriteString("\"\"\"Request routing helpers.\"\"\"\n\n")
	for i := range 20 + g.r.IntN(60) {
		fmt.Fprintf(&b, "def handler_%d(request):\n    return {\"status\": %d}\n\n", i, 200+i%3)
	}
	return b.String()
}

// chart writes a Helm chart whose deployment template takes the launch's
// sizes from values.yaml.
func (g *gen) chart(i int) {
	dir := filepath.Join("charts", fmt.Sprintf("serving-%d", i))
	g.write(filepath.Join(dir, "Chart.yaml"), fmt.Sprintf("apiVersion: v2\nname: serving-%d\nversion: 1.%d.0\n", i, i))
	g.write(filepath.Join(dir, "values.yaml"), fmt.Sprintf(`model: %s
tp: 8
contextLength: 131072
maxTotalTokens: %d
replicas: 2
`, models[g.r.IntN(len(models))], []int{65536, 262144}[g.r.IntN(2)]))
	g.write(filepath.Join(dir, "templates", "_helpers.tpl"), `{{- define "serving.labels" -}}
app: {{ .Chart.Name }}
release: {{ .Release.Name }}
{{- end }}
`)
	g.write(filepath.Join(dir, "templates", "deployment.yaml"), `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-sglang
  labels:
    {{- include "serving.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.3
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path
            - {{ .Values.model | quote }}
            - --tp-size
            - {{ .Values.tp | quote }}
            - --context-length
            - {{ .Values.contextLength | quote }}
            - --max-total-tokens
            - {{ .Values.maxTotalTokens | quote }}
`)
	g.st.Charts++
}

// module writes a Terraform module that deploys SGLang through the
// kubernetes provider, sized by variables.
func (g *gen) module(i int) {
	dir := filepath.Join("infra", fmt.Sprintf("serving-%d", i))
	g.write(filepath.Join(dir, "variables.tf"), `variable "context_length" {
  type    = number
  default = 32768
}

variable "max_total_tokens" {
  type    = number
  default = 65536
}
`)
	g.write(filepath.Join(dir, "main.tf"), fmt.Sprintf(`resource "kubernetes_deployment" "sglang" {
  metadata {
    name = "sglang-%d"
  }
  spec {
    replicas = 2
    template {
      spec {
        container {
          name    = "sglang"
          image   = "lmsysorg/sglang:v0.5.3"
          command = ["python3", "-m", "sglang.launch_server"]
          args = [
            "--model-path", "%s",
            "--context-length", tostring(var.context_length),
            "--max-total-tokens", tostring(var.max_total_tokens),
          ]
        }
      }
    }
  }
}
`, i, models[g.r.IntN(len(models))]))
	g.st.Modules++
}
