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

// Unmarked tells the suppression step which files it need not read again:
// only a file read whole whose text never names kvlint.
func TestParseFileSetUnmarked(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"a.sh":   "#!/bin/sh\n# kvlint:ignore KV101\npython3 -m sglang.launch_server --model-path m\n",
		"b.sh":   "#!/bin/sh\npython3 -m sglang.launch_server --model-path m\n",
		"c.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: {kvlint.io/ignore: KV101}\n",
		"d.yaml": "apiVersion: v1\nkind: Pod\nmetadata: [\n",
	})
	files, _ := Discover([]string{root}, &Ignore{})
	files = append(files, File{Path: filepath.Join(root, "gone.sh"), Kind: KindShell}, File{Path: root, Kind: KindTerraform})
	p := ParseFileSet(files)
	want := []bool{false, true, false, true, false, false} // a, b, c, d (read, if broken), gone, a module
	if len(p.Unmarked) != len(want) {
		t.Fatalf("Unmarked %v for %d files", p.Unmarked, len(files))
	}
	for i := range want {
		if p.Unmarked[i] != want[i] {
			t.Errorf("%s: Unmarked %v, want %v", files[i].Path, p.Unmarked[i], want[i])
		}
	}
}
