package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCommitRealRun runs the kvlint hook with the real pre-commit
// (`pre-commit try-repo`, which installs the hook from this repository's
// working tree as it would from a tag: `go install ./...`) in a repository
// with a Helm chart, staging only a template, where pre-commit is installed
// (Debian's package); on a machine without it TestPreCommitHookEntry runs
// the hook's entry the way pre-commit does instead.
func TestPreCommitRealRun(t *testing.T) {
	bin, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Log("pre-commit is not installed here; TestPreCommitHookEntry ran the hook's entry as pre-commit does")
		return
	}
	if testing.Short() {
		t.Log("-short: the real pre-commit run builds kvlint; TestPreCommitHookEntry covers the entry")
		return
	}
	hookRepo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goEnv := func(key string) string {
		out, err := exec.Command("go", "env", key).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".kvlint.yaml", "tenancy: single\n")
	write("charts/llm/Chart.yaml", "apiVersion: v2\nname: llm\nversion: 0.1.0\n")
	write("charts/llm/values.yaml", "maxTotalTokens: 16384\n")
	write("charts/llm/templates/service.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: llm}\nspec:\n  ports: [{port: 30000}]\n")
	write("charts/llm/templates/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: llm}\nspec:\n"+
		"  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n  containers:\n    - name: s\n"+
		"      command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct,"+
		" --context-length, \"32768\", --max-total-tokens, {{ .Values.maxTotalTokens | quote }}]\n"+
		"      resources: {limits: {nvidia.com/gpu: 1}}\n")
	write("README.md", "# serving\n")
	// A custom policy's test quotes a launch module in a message: the
	// hook's exclude keeps it from the hook (kvlint-policies tests it).
	write("policies/metrics_test.rego", "package kvlint.rules.metrics_test\n\n"+
		"test_message if { \"sglang.launch_server does not export metrics\" != \"\" }\n")

	cmd := func(name string, args ...string) (string, error) {
		c := exec.Command(name, args...)
		c.Dir = dir
		c.Env = append(os.Environ(),
			"PRE_COMMIT_HOME="+filepath.Join(dir, ".pre-commit-home"),
			// pre-commit gives the hook its own GOPATH; the module and
			// build caches stay the machine's, so nothing is downloaded twice.
			"GOMODCACHE="+goEnv("GOMODCACHE"), "GOCACHE="+goEnv("GOCACHE"),
			"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "NO_COLOR=1")
		out, err := c.CombinedOutput()
		return string(out), err
	}
	if out, err := cmd("git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if out, err := cmd("git", "add", "."); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}

	// Only a template, the README and a policy test are handed to the hook: the chart is
	// rendered with its values and KV101 fails the commit.
	out, err := cmd(bin, "try-repo", hookRepo, "kvlint", "--files", "charts/llm/templates/service.yaml", "README.md", "policies/metrics_test.rego")
	if err == nil || !strings.Contains(out, "charts/llm/values.yaml:1:17: high KV101") {
		t.Errorf("pre-commit try-repo (template staged): err %v, want KV101 at the values line:\n%s", err, out)
	}
	if strings.Contains(out, "not a format kvlint reads") || strings.Contains(out, "not rendered") || strings.Contains(out, "metrics_test.rego") {
		t.Errorf("the hook reported a file it should have mapped to its chart:\n%s", out)
	}

	// The README alone passes.
	out, err = cmd(bin, "try-repo", hookRepo, "kvlint", "--files", "README.md")
	if err != nil || !strings.Contains(out, "Passed") {
		t.Errorf("pre-commit try-repo (README staged): err %v, want Passed:\n%s", err, out)
	}
}
