package parsers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/source"
)

func TestParseFileSetKeepsServicesAndOrder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: pool}\nspec: {selector: {app: pool}}\n",
		"b.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: pool}}\nspec:\n  containers:\n    - command: [python3, -m, sglang.launch_server, --model-path, m]\n",
		"c.sh":   "#!/bin/sh\npython3 -m sglang.launch_server --model-path m\n",
		"d.yaml": "apiVersion: v1\nkind: Pod\nmetadata: [\ncommand: [vllm, serve, m]\n",
	})
	files, errs := Discover([]string{root}, &Ignore{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	p := ParseFileSet(files)
	if len(p.Services) != 1 || p.Services[0].Name != "pool" || p.Services[0].Span.File != filepath.Join(root, "a.yaml") {
		t.Errorf("services %+v", p.Services)
	}
	if len(p.Servers) != 2 || p.Servers[0].Name != "p" || p.Servers[1].Source != "shell" {
		t.Errorf("servers out of file order: %+v", p.Servers)
	}
	if len(p.Errors) != 1 || p.Errors[0].Span.File != filepath.Join(root, "d.yaml") {
		t.Errorf("errors %v", p.Errors)
	}
	servers, errors := ParseFiles(files)
	if len(servers) != len(p.Servers) || len(errors) != len(p.Errors) {
		t.Error("ParseFiles and ParseFileSet disagree")
	}
	missing := ParseAll(File{Path: filepath.Join(root, "gone.yaml"), Kind: KindKubernetes})
	if len(missing.Errors) != 1 {
		t.Errorf("an unreadable manifest: errors %v", missing.Errors)
	}
}

// The parse keeps the text of every file it read, with the syntax of the
// format that read it, so nothing downstream reads a file again: the
// discovered files, a file a command line names, a chart's files and a
// module's files, and not a file that could not be read.
func TestParseFileSetKeepsWhatItRead(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"run":                           "#!/bin/sh\npython3 -m sglang.launch_server --config cfg.yaml\n",
		"cfg.yaml":                      "model-path: m\n",
		"pod.yaml":                      "apiVersion: v1\nkind: Pod\nmetadata: [\ncommand: [vllm, serve, m]\n",
		"mod/main.tf":                   "locals {\n  a = 1\n}\n",
		"chart/Chart.yaml":              "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/values.yaml":             "replicas: 1\n",
		"chart/templates/pod.yaml":      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n",
		"chart/templates/_helpers.tpl":  "{{/* kvlint:ignore KV101 */}}\n",
		"elsewhere/untouched.yaml.skip": "x",
	})
	files, errs := Discover([]string{root}, &Ignore{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	files = append(files, File{Path: filepath.Join(root, "gone.sh"), Kind: KindShell})
	p := ParseFileSet(files)
	want := map[string]source.Syntax{
		"run": source.SyntaxShell, "cfg.yaml": source.SyntaxYAML, "pod.yaml": source.SyntaxYAML,
		"mod/main.tf": source.SyntaxHCL, "chart/Chart.yaml": source.SyntaxYAML, "chart/values.yaml": source.SyntaxYAML,
		"chart/templates/pod.yaml": source.SyntaxYAML, "chart/templates/_helpers.tpl": source.SyntaxYAML,
	}
	for name, syntax := range want {
		f := p.Files.File(filepath.Join(root, name))
		if f == nil {
			t.Errorf("%s is not in the set", name)
			continue
		}
		if f.Syntax != syntax {
			t.Errorf("%s: syntax %v, want %v", name, f.Syntax, syntax)
		}
		if disk, _ := os.ReadFile(filepath.Join(root, name)); string(f.Data) != string(disk) {
			t.Errorf("%s: text %q, want %q", name, f.Data, disk)
		}
	}
	for _, name := range []string{"gone.sh", "elsewhere/untouched.yaml.skip"} {
		if p.Files.File(filepath.Join(root, name)) != nil {
			t.Errorf("%s is in the set", name)
		}
	}
	if p.Files.Len() != len(want) {
		for _, f := range p.Files.Files() {
			t.Log(f.Name)
		}
		t.Errorf("the set holds %d files, want %d", p.Files.Len(), len(want))
	}
}

// A file read whole stays in the set only when something can be reported in
// it: a server, an error or a kvlint directive. The others are let go
// (Passed), so a large repository's text is not held to the end of a run.
func TestParseFileSetLetsGoWhatCannotBeReported(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"serve.sh":    "#!/bin/sh\npython3 -m sglang.launch_server --model-path m\n",
		"svc.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports: [{port: 80}]\n",
		"web.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n",
		"marked.yaml": "# kvlint:ignore-file KV101 -- sized elsewhere\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
		"broken.yaml": "apiVersion: v1\nkind: Pod\nmetadata: [\ncommand: [vllm, serve, m]\n",
	})
	files, errs := Discover([]string{root}, &Ignore{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p := ParseFileSet(files)
	for name, held := range map[string]bool{
		"serve.sh": true, "broken.yaml": true, "marked.yaml": true,
		"svc.yaml": false, "web.yaml": false,
	} {
		path := filepath.Join(root, name)
		if got := p.Files.File(path) != nil; got != held {
			t.Errorf("%s: held %v, want %v", name, got, held)
		}
		if got := p.Files.Passed(path); got == held {
			t.Errorf("%s: passed %v, want %v", name, got, !held)
		}
	}
}
