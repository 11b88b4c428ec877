package terraform

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzModule evaluates arbitrary .tf and tfvars text: it must never panic,
// and every error it reports must carry a position in a file.
func FuzzModule(f *testing.F) {
	for _, dir := range []string{"testdata/deployment", "testdata/manifest", "testdata/helm-release"} {
		tf, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
		vars, _ := os.ReadFile(filepath.Join(dir, "terraform.tfvars"))
		f.Add(string(tf), string(vars))
	}
	f.Add(precedenceTF, "tokens = 5\n")
	f.Add(podWith(`"--tp-size", local.a`)+"locals {\n a = local.b\n b = local.a\n}\n", "")
	f.Add(`locals { x = yamldecode("a: [1, {b: c}]\n") }`+podWith(`"--tp-size", local.x.a[0]`), "")
	f.Add(`resource "kubernetes_manifest" "m" { manifest = yamldecode(templatefile("t.tftpl", { a = 1 })) }`, "")
	f.Add(`resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    dynamic "container" {
      for_each = ["a", "b"]
      content { command = ["python3", "-m", "sglang.launch_server", "--served-model-name", container.value] }
    }
  }
}`, "")
	f.Add(`resource "helm_release" "r" { chart = "./c" values = [yamlencode({a = var.x})] set = [{name = "a", value = 1}] }`+"\nvariable \"x\" {}\n", "x = [1]\n")
	f.Fuzz(func(t *testing.T, tf, vars string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars"), []byte(vars), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t.tftpl"), []byte("kind: Pod\napiVersion: v1\nspec: {containers: [{command: [python3, -m, sglang.launch_server, --tp-size, \"${a}\"]}]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs := ParseModule(dir, Options{Environ: []string{"TF_VAR_x=1"}})
		for _, e := range errs {
			if e.Span.File == "" {
				t.Errorf("error without a file: %v", e)
			}
		}
	})
}
