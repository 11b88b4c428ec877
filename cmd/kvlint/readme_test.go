package main

import (
	"bytes"
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// fence is one fenced block of README.md.
type fence struct {
	lang, text string
	line       int
}

// ciFences are the fenced blocks of README.md's "Use it in CI" section.
func ciFences(t *testing.T) []fence {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	in, section := false, false
	var cur *fence
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "## "):
			section = strings.HasPrefix(line, "## Use it in CI")
			in = in || section
		case section && strings.HasPrefix(line, "```"):
			cur = &fence{lang: strings.TrimPrefix(line, "```"), line: i + 1}
		}
	}
	if !in {
		t.Fatal(`README.md has no "## Use it in CI" section`)
	}
	return out
}

// readmeRepo writes a repository a user would run the snippets in: a Helm
// chart whose values cap the pool below the context window (KV101 at
// values.yaml:1), a Service beside it, custom policies with their tests,
// and a README. It returns the staged files, as pre-commit would list them.
func readmeRepo(t *testing.T, dir string) []string {
	t.Helper()
	files := map[string]string{
		".kvlint.yaml":                      "tenancy: single\ngpu: H100-80GB\n",
		"charts/llm/Chart.yaml":             "apiVersion: v2\nname: llm\nversion: 0.1.0\n",
		"charts/llm/values.yaml":            "maxTotalTokens: 16384\n",
		"charts/llm/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: llm}\nspec:\n  ports: [{port: 30000}]\n",
		"charts/llm/templates/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: llm}\nspec:\n  containers:\n    - name: s\n" +
			"      command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct," +
			" --context-length, \"32768\", --max-total-tokens, {{ .Values.maxTotalTokens | quote }}]\n",
		"README.md": "# serving\n",
	}
	for _, name := range []string{"require_metrics.rego", "require_metrics_test.rego"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", name))
		if err != nil {
			t.Fatal(err)
		}
		files["policies/"+name] = string(data)
	}
	var staged []string
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != ".kvlint.yaml" {
			staged = append(staged, name)
		}
	}
	slices.Sort(staged)
	return staged
}

// testDir is the package directory the tests start in (before t.Chdir).
var testDir, _ = os.Getwd()

// TestREADMESnippets runs what "Use it in CI" tells a user to run.
func TestREADMESnippets(t *testing.T) {
	fences := ciFences(t)
	dir := t.TempDir()
	staged := readmeRepo(t, dir)
	defs := hooks(t)
	t.Chdir(dir)
	var ran struct{ goInstall, check, codequality, docker, workflow, precommit bool }
	versions := map[string]bool{}
	for _, f := range fences {
		switch {
		case f.lang == "sh":
			runShellSnippet(t, f, &ran.goInstall, &ran.check, &ran.codequality, &ran.docker, versions)
		case f.lang == "yaml" && strings.HasPrefix(f.text, "name: "):
			checkWorkflowSnippet(t, f, versions)
			ran.workflow = true
		case f.lang == "yaml" && strings.HasPrefix(f.text, "repos:"):
			runPreCommitSnippet(t, f, defs, staged, versions)
			ran.precommit = true
		default:
			t.Errorf("README.md:%d: a ```%s block this test does not know how to run", f.line, f.lang)
		}
	}
	if !ran.goInstall || !ran.check || !ran.codequality || !ran.docker || !ran.workflow || !ran.precommit {
		t.Errorf("snippets run: %+v; README's CI section lost one", ran)
	}
	// One release is named everywhere: go install, the image, the Action
	// and pre-commit's rev.
	if len(versions) != 1 {
		t.Errorf("the snippets name versions %v; want one release tag", versions)
	}
	for v := range versions {
		if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(v) {
			t.Errorf("version %q is not a semantic-version tag", v)
		}
	}
}

// runShellSnippet runs each command of a sh block: kvlint itself, go
// install (checked, not run: it would fetch a release), docker (built and
// run where a daemon answers).
func runShellSnippet(t *testing.T, f fence, goInstall, check, codequality, docker *bool, versions map[string]bool) {
	file, err := syntax.NewParser().Parse(strings.NewReader(f.text), "README.md")
	if err != nil {
		t.Fatalf("README.md:%d: %v", f.line, err)
	}
	wd, _ := os.Getwd()
	cfg := &expand.Config{Env: expand.ListEnviron("PWD=" + wd)}
	for _, stmt := range file.Stmts {
		call, ok := stmt.Cmd.(*syntax.CallExpr)
		if !ok {
			t.Errorf("README.md:%d: not a simple command", f.line+int(stmt.Pos().Line())-1)
			continue
		}
		args, err := expand.Fields(cfg, call.Args...)
		if err != nil {
			t.Fatal(err)
		}
		at := f.line + int(stmt.Pos().Line())
		switch args[0] {
		case "go":
			*goInstall = true
			checkGoInstall(t, at, args, versions)
		case "kvlint":
			var out, errOut stringWriter
			code := run(args[1:], &out, &errOut)
			// The chart's values cap the pool below the context: exit 1.
			if code != exitFindings {
				t.Errorf("README.md:%d: %s: exit %d, want 1\n%s%s", at, strings.Join(args, " "), code, out, errOut)
			}
			if !strings.Contains(out.String(), "charts/llm/values.yaml:1:17: high KV101") {
				t.Errorf("README.md:%d: %s: want KV101 at the values line:\n%s", at, strings.Join(args, " "), out)
			}
			// Each FORMAT=FILE output is written, with the finding in it.
			for i, a := range args {
				if i == 0 || args[i-1] != "--format" {
					continue
				}
				for item := range strings.SplitSeq(a, ",") {
					if format, file, ok := strings.Cut(item, "="); ok {
						data, err := os.ReadFile(file)
						if err != nil || !bytes.Contains(data, []byte("KV101")) {
							t.Errorf("README.md:%d: the %s output %s lacks KV101: %v", at, format, file, err)
						}
					}
				}
			}
			*check = *check || slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "sarif=") })
			*codequality = *codequality || slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "codequality=") })
		case "docker":
			*docker = true
			runDockerSnippet(t, at, args, versions)
		default:
			t.Errorf("README.md:%d: %q: a command this test does not know how to run", at, args[0])
		}
	}
}

// checkGoInstall checks that `go install PATH@VERSION` names this module's
// main package: go.mod's module path plus a directory holding package main.
func checkGoInstall(t *testing.T, at int, args []string, versions map[string]bool) {
	if len(args) != 3 || args[1] != "install" {
		t.Errorf("README.md:%d: %v: want go install PATH@VERSION", at, args)
		return
	}
	pkg, version, ok := strings.Cut(args[2], "@")
	if !ok {
		t.Errorf("README.md:%d: go install %s names no version", at, args[2])
	}
	versions[version] = true
	gomod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	rel, ok := strings.CutPrefix(pkg, string(m[1])+"/")
	if !ok {
		t.Errorf("README.md:%d: go install %s is not in module %s", at, pkg, m[1])
		return
	}
	dir := filepath.Join(repoRoot(t), filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	names := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, perr := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if perr != nil {
			t.Fatal(perr)
		}
		names[f.Name.Name] = true
	}
	if err != nil || len(names) != 1 || !names["main"] {
		t.Errorf("README.md:%d: go install %s: %s is not a main package (packages %v, %v)", at, pkg, rel, names, err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join(testDir, "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runDockerSnippet builds the Dockerfile under the image name the snippet
// runs and runs the snippet, where a Docker daemon answers.
func runDockerSnippet(t *testing.T, at int, args []string, versions map[string]bool) {
	image := ""
	for i, a := range args {
		if strings.HasPrefix(a, "ghcr.io/kvlint/kvlint") || strings.HasPrefix(a, "kvlint:") {
			image = a
			if _, v, ok := strings.Cut(a, ":"); ok {
				versions[v] = true
			}
			if i+1 >= len(args) || args[i+1] != "check" {
				t.Errorf("README.md:%d: the image is not given kvlint's check command: %v", at, args)
			}
		}
	}
	if len(args) < 2 || args[1] != "run" || image == "" {
		t.Errorf("README.md:%d: %v: want docker run … IMAGE check …", at, args)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := exec.CommandContext(ctx, "docker", "info").Run(); err != nil || testing.Short() {
		t.Logf("README.md:%d: no Docker daemon answers here (%v) or -short: the image is not built; the snippet's shape was checked", at, err)
		return
	}
	build := exec.Command("docker", "build", "-t", image, repoRoot(t))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFindings || !strings.Contains(string(out), "KV101") {
		t.Errorf("README.md:%d: %s: %v, want exit 1 with KV101\n%s", at, strings.Join(args, " "), err, out)
	}
}

// checkWorkflowSnippet checks the workflow's kvlint step against action.yml:
// every with: key is an input of the action.
func checkWorkflowSnippet(t *testing.T, f fence, versions map[string]bool) {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(f.text), &wf); err != nil {
		t.Fatalf("README.md:%d: %v", f.line, err)
	}
	var action struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	readYAML(t, filepath.Join(repoRoot(t), "action.yml"), &action)
	found := false
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			ref, version, ok := strings.Cut(s.Uses, "@")
			if ref != "kvlint/kvlint" || !ok {
				continue
			}
			found = true
			versions[version] = true
			for k := range s.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("README.md:%d: the workflow gives the action %s, which action.yml does not take", f.line, k)
				}
			}
		}
	}
	if !found {
		t.Errorf("README.md:%d: the workflow does not use kvlint/kvlint@VERSION", f.line)
	}
}

// runPreCommitSnippet runs each hook of the configuration as pre-commit
// runs it: the hook's entry, then the configuration's args, then the
// staged files its files/types select (unless pass_filenames is false).
func runPreCommitSnippet(t *testing.T, f fence, defs map[string]preCommitHook, staged []string, versions map[string]bool) {
	var cfg struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Rev   string `yaml:"rev"`
			Hooks []struct {
				ID   string   `yaml:"id"`
				Args []string `yaml:"args"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if err := yaml.Unmarshal([]byte(f.text), &cfg); err != nil {
		t.Fatalf("README.md:%d: %v", f.line, err)
	}
	ranKVLint := false
	for _, r := range cfg.Repos {
		if r.Repo != "https://github.com/kvlint/kvlint" {
			t.Errorf("README.md:%d: pre-commit repo %q, want https://github.com/kvlint/kvlint", f.line, r.Repo)
		}
		versions[r.Rev] = true
		for _, h := range r.Hooks {
			def, ok := defs[h.ID]
			if !ok {
				t.Errorf("README.md:%d: hook %q is not in .pre-commit-hooks.yaml", f.line, h.ID)
				continue
			}
			args := append(strings.Fields(def.Entry)[1:], h.Args...)
			var files []string
			if def.PassFilenames == nil || *def.PassFilenames {
				re := regexp.MustCompile(def.Files)
				exclude := regexp.MustCompile("^$")
				if def.Exclude != "" {
					exclude = regexp.MustCompile(def.Exclude)
				}
				for _, s := range staged {
					if re.MatchString(s) && !exclude.MatchString(s) {
						files = append(files, s)
					}
				}
				args = append(args, files...)
			}
			var out, errOut stringWriter
			code := run(args, &out, &errOut)
			switch h.ID {
			case "kvlint":
				// Every staged file reaches the hook; the template stands
				// for its chart, rendered with its values: KV101 blocks the
				// commit, and nothing is "not a format kvlint reads".
				ranKVLint = true
				if code != exitFindings || !strings.Contains(out.String(), "charts/llm/values.yaml:1:17: high KV101") {
					t.Errorf("hook kvlint (kvlint %s): exit %d, want 1 with KV101 at the values line\n%s%s", strings.Join(args, " "), code, out, errOut)
				}
				if strings.Contains(errOut.String(), "error") {
					t.Errorf("hook kvlint reported a staged file as an error:\n%s", errOut)
				}
			case "kvlint-policies":
				if code != exitClean {
					t.Errorf("hook kvlint-policies (kvlint %s): exit %d, want 0\n%s%s", strings.Join(args, " "), code, out, errOut)
				}
			default:
				if code != exitClean && code != exitFindings {
					t.Errorf("hook %s (kvlint %s): exit %d\n%s%s", h.ID, strings.Join(args, " "), code, out, errOut)
				}
			}
		}
	}
	if !ranKVLint {
		t.Errorf("README.md:%d: the pre-commit configuration does not use the kvlint hook", f.line)
	}
}
