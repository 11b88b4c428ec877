package parsers

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A module another checked module calls through a local source is
// evaluated by its caller, not checked again on its own; modules that only
// call each other are all kept.
func TestWithoutChildModules(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"infra/main.tf":               "module \"llm\" {\n  source = \"./modules/llm\"\n}\n",
		"infra/modules/llm/main.tf":   "module \"inner\" {\n  source = \"../inner\"\n}\n",
		"infra/modules/inner/main.tf": "\n",
		"loop/a/main.tf":              "module \"b\" {\n  source = \"../b\"\n}\n",
		"loop/b/main.tf":              "module \"a\" {\n  source = \"../a\"\n}\n",
		"alone/main.tf":               "module \"vpc\" {\n  source = \"terraform-aws-modules/vpc/aws\"\n}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, errs := Discover([]string{dir}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range withoutChildModules(files) {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"alone", "infra", "loop/a", "loop/b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
}
