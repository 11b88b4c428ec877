package parsers

import (
	"os"
	"path/filepath"
	"testing"
)

// Each directory of *.tf files is one module; tfvars files belong to it,
// and the modules terraform init downloaded under .terraform are not the
// repository's.
func TestDiscoverTerraformModules(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"infra/main.tf", "infra/vars.tf", "infra/terraform.tfvars",
		"infra/.terraform/modules/vpc/main.tf", "infra/modules/llm/main.tf", "only-vars/prod.tfvars"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, errs := Discover([]string{dir}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, string(f.Kind)+" "+filepath.ToSlash(rel))
	}
	want := []string{"terraform infra", "terraform infra/modules/llm"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("discovered %q, want %q", got, want)
	}
	// A .tf or .tfvars file named on the command line stands for its module.
	files, _ = Discover([]string{filepath.Join(dir, "infra", "terraform.tfvars")}, nil)
	if len(files) != 1 || files[0].Kind != KindTerraform || files[0].Path != filepath.Join(dir, "infra") {
		t.Errorf("explicit tfvars: %+v", files)
	}
}
