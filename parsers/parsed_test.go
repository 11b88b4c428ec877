package parsers

import (
	"path/filepath"
	"testing"
)

func TestParseFileSetKeepsServicesAndOrder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: pool}\nspec: {selector: {app: pool}}\n",
		"b.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: pool}}\nspec:\n  containers:\n    - command: [python3, -m, sglang.launch_server, --model-path, m]\n",
		"c.sh":   "#!/bin/sh\npython3 -m sglang.launch_server --model-path m\n",
		"d.yaml": "apiVersion: v1\nkind: Pod\nmetadata: [\n",
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
