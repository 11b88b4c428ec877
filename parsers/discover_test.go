package parsers

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/kvlint/kvlint/source"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscoverClassifiesAndIgnores(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"deploy/server.yaml":                 "kind: Pod\n",
		"deploy/docker-compose.prod.yml":     "services: {}\n",
		"compose.yaml":                       "services: {}\n",
		"Dockerfile":                         "FROM x\n",
		"images/gpu.Dockerfile":              "FROM x\n",
		"images/Dockerfile.gpu":              "FROM x\n",
		"images/Dockerfile.gpu.dockerignore": "**\n!python/\n",
		"Dockerfile.dockerignore":            "*.md\n",
		"scripts/run.sh":                     "echo\n",
		"scripts/launch":                     "#!/usr/bin/env bash\necho\n",
		"slurm/serve.slurm":                  "#!/bin/bash\n#SBATCH --gres=gpu:8\n",
		"slurm/serve.sbatch":                 "#SBATCH -N 1\nsrun hostname\n",
		"scripts/notes":                      "plain text\n",
		"scripts/tool.py":                    "print()\n",
		"build/out.yaml":                     "kind: Pod\n",
		"vendor/x/pod.yaml":                  "kind: Pod\n",
		"keep/.gitignore":                    "*.yaml\n!wanted.yaml\n",
		"keep/unwanted.yaml":                 "kind: Pod\n",
		"keep/wanted.yaml":                   "kind: Pod\n",
		".gitignore":                         "/build/\n",
		"chart/Chart.yaml":                   "name: c\n",
		"chart/templates/lws.yaml":           "args: [python3, -m, sglang.launch_server]\n",
		"chart/templates/other.yaml":         "kind: ConfigMap\n",
		"infra/main.tf":                      "resource \"x\" \"y\" { cmd = \"vllm serve\" }\n",
		"infra/net.tf":                       "resource \"x\" \"y\" {}\n",
	})
	ig := &Ignore{}
	ig.Add("", []string{"vendor/"})
	files, errs := Discover([]string{root}, ig)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	got := map[string]Kind{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got[filepath.ToSlash(rel)] = f.Kind
	}
	want := map[string]Kind{
		"deploy/server.yaml":             KindKubernetes,
		"deploy/docker-compose.prod.yml": KindCompose,
		"compose.yaml":                   KindCompose,
		"Dockerfile":                     KindDockerfile,
		"images/gpu.Dockerfile":          KindDockerfile,
		"images/Dockerfile.gpu":          KindDockerfile,
		"scripts/run.sh":                 KindShell,
		"scripts/launch":                 KindShell,
		"slurm/serve.slurm":              KindShell,
		"slurm/serve.sbatch":             KindShell,
		"keep/wanted.yaml":               KindKubernetes,
		"chart":                          KindHelm,      // rendered whole; its files are not listed
		"infra":                          KindTerraform, // one module per directory of *.tf files
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discovered\n got %v\nwant %v", got, want)
	}
	// Order is stable: sorted by path.
	for i := 1; i < len(files); i++ {
		if files[i-1].Path > files[i].Path {
			t.Errorf("not sorted: %s before %s", files[i-1].Path, files[i].Path)
		}
	}
}

func TestDiscoverReportsMissingAndUnknownExplicitFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"notes.txt": "hello\n"})
	missing := filepath.Join(root, "nope.yaml")
	_, errs := Discover([]string{missing, filepath.Join(root, "notes.txt")}, nil)
	if len(errs) != 2 {
		t.Fatalf("want 2 errors, got %v", errs)
	}
	if errs[0].Span.File != missing || errs[0].Message != "no such file or directory" {
		t.Errorf("missing path: %+v", errs[0])
	}
}

func TestIgnorePatterns(t *testing.T) {
	ig := &Ignore{}
	ig.Add("", []string{"*.tmp", "/root-only.yaml", "docs/**/draft.yaml", "out/", "!keep.tmp"})
	ig.Add("sub", []string{"local.yaml"})
	cases := []struct {
		path string
		dir  bool
		want bool
	}{
		{"a.tmp", false, true},
		{"x/y/a.tmp", false, true},
		{"keep.tmp", false, false},
		{"root-only.yaml", false, true},
		{"x/root-only.yaml", false, false},
		{"docs/draft.yaml", false, true},
		{"docs/a/b/draft.yaml", false, true},
		{"out", true, true},
		{"out", false, false},
		{"sub/local.yaml", false, true},
		{"other/local.yaml", false, false},
	}
	for _, c := range cases {
		if got := ig.Match(c.path, c.dir); got != c.want {
			t.Errorf("Match(%q, dir=%v) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

func TestUnsupportedPointsAtTheEngine(t *testing.T) {
	// The comment's mention is documentation; the span is the module word.
	e := unsupported(source.NewFile("chart/templates/lws.yaml", []byte("# runs sglang.launch_server\nargs: [python3, -m, sglang.launch_server]\n"), source.SyntaxYAML))
	if e.Span.Line != 2 || e.Span.Col != 21 || e.Span.EndCol != 41 {
		t.Errorf("span %+v, want 2:21-41", e.Span)
	}
}

// TestParseFilesKeepsFileOrder parses many files concurrently and checks the
// servers come back in file order (run under -race by make test).
func TestParseFilesKeepsFileOrder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("s%02d.sh", i)] = fmt.Sprintf("python3 -m sglang.launch_server --model-path m%02d\n", i)
	}
	write(t, root, files)
	found, errs := Discover([]string{root}, nil)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	servers, errs := ParseFiles(found)
	if len(errs) != 0 || len(servers) != 40 {
		t.Fatalf("%d servers, errors %v", len(servers), errs)
	}
	for i, s := range servers {
		if want := fmt.Sprintf("m%02d", i); s.Model.Raw != want {
			t.Errorf("server %d has model %q, want %q", i, s.Model.Raw, want)
		}
	}
}

// A chart's directory holds more than Helm renders: a manifest under ci/ or
// examples/ is applied with kubectl, so it is read on its own, while the
// chart's own files (templates, subcharts, CRDs, files/ for .Files.Get,
// Chart.yaml and its values files) are read only with the chart.
func TestDiscoverReadsWhatAChartDoesNotRender(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"chart/Chart.yaml":             "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/values.yaml":            "tp: 1\n",
		"chart/values-prod.yaml":       "tp: 2\n",
		"chart/templates/server.yaml":  "kind: Pod\n",
		"chart/charts/sub/Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"chart/crds/crd.yaml":          "kind: CustomResourceDefinition\n",
		"chart/files/start.sh":         "python3 -m sglang.launch_server\n",
		"chart/examples/pod.yaml":      "kind: Pod\n",
		"chart/multi-engine/sglang.sh": "#!/bin/sh\npython3 -m sglang.launch_server\n",
	})
	files, errs := Discover([]string{root}, &Ignore{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, string(f.Kind)+" "+filepath.ToSlash(rel))
	}
	want := []string{"helm chart", "kubernetes chart/examples/pod.yaml", "shell chart/multi-engine/sglang.sh"}
	if !slices.Equal(got, want) {
		t.Errorf("discovered %q, want %q", got, want)
	}
}

// A link to a directory inside the tree is neither an error nor a second
// visit: its target is walked on its own. A link to a directory outside
// the tree is refused, and said.
func TestDiscoverSkipsLinkedDirectories(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, root, map[string]string{"real/serve.sh": "python -m sglang.launch_server --model-path m\n"})
	if err := os.Symlink("real", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "away")); err != nil {
		t.Fatal(err)
	}
	files, errs := Discover([]string{root}, nil)
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	if !slices.Equal(got, []string{"real/serve.sh"}) {
		t.Errorf("files %q, want only real/serve.sh", got)
	}
	if len(errs) != 1 || filepath.Base(errs[0].Span.File) != "away" {
		t.Errorf("errors %v, want one, for the link that leaves the tree", errs)
	}
}
