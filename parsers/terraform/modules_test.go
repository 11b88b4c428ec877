package terraform

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The child's --tensor-parallel-size comes from the call's literal; its
// model from the root's tfvars, through the root's variable, the call's
// argument, the child's variable and the child's resource argument.
var moduleFixture = map[string]string{
	"terraform.tfvars": "model = \"Qwen/Qwen2.5-7B-Instruct\"\n",
	"main.tf": `variable "model" { type = string }

module "llm" {
  source = "./modules/vllm"
  model  = var.model
  tp     = 2
  name   = "one"
}

module "fleet" {
  source   = "./modules/vllm"
  for_each = { a = 1, b = 4 }
  model    = "m-${each.key}"
  tp       = each.value
  name     = module.llm.name
}

module "pair" {
  source = "./modules/vllm"
  count  = 2
  model  = "pair"
  tp     = count.index + 1
  name   = "pair${count.index}"
}
`,
	"modules/vllm/main.tf": `variable "model" { type = string }
variable "tp" { type = number }
variable "name" { type = string }

module "inner" {
  source = "../inner"
  label  = "vllm-${var.name}"
}

resource "kubernetes_deployment" "v" {
  metadata { name = module.inner.label }
  spec {
    template {
      metadata {}
      spec {
        container {
          name    = "vllm"
          image   = "vllm/vllm-openai:latest"
          command = ["vllm", "serve"]
          args    = [var.model, "--tensor-parallel-size", var.tp]
        }
      }
    }
  }
}

output "name" { value = "${var.name}x" }
`,
	"modules/inner/main.tf": `variable "label" { type = string }
output "label" { value = var.label }
`,
}

func TestModuleCallArguments(t *testing.T) {
	dir := writeModule(t, moduleFixture)
	servers, errs := ParseModule(dir, Options{})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errorTexts(dir, errs))
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	want := []string{"vllm-pair0", "vllm-pair1", "vllm-onex", "vllm-onex", "vllm-one"}
	if !reflect.DeepEqual(sorted(names), sorted(want)) {
		t.Fatalf("servers %q, want %q", names, want)
	}
	one := serverNamed(t, servers, "vllm-one")
	tp := one.Args["--tensor-parallel-size"]
	if got := chain(dir, tp); !reflect.DeepEqual(got, []string{
		"main.tf:6:12-6:13",
		"variable modules/vllm/main.tf:2:1-2:14",
		"reference modules/vllm/main.tf:20:59-20:65",
	}) {
		t.Errorf("tp chain %q", got)
	}
	if got := chain(dir, one.Model); !reflect.DeepEqual(got, []string{
		"terraform.tfvars:1:10-1:34",
		"variable main.tf:1:1-1:17",
		"reference main.tf:5:12-5:21",
		"variable modules/vllm/main.tf:1:1-1:17",
		"reference modules/vllm/main.tf:20:22-20:31",
	}) {
		t.Errorf("model chain %q", got)
	}
	// for_each: each.value reaches the child; each instance is a server.
	var tps []string
	for _, s := range servers {
		if s.Name == "vllm-onex" {
			tps = append(tps, s.Args["--tensor-parallel-size"].Raw+"@"+at(dir, s.Args["--tensor-parallel-size"].Span))
		}
	}
	if !reflect.DeepEqual(sorted(tps), []string{"1@main.tf:12:20-12:21", "4@main.tf:12:27-12:28"}) {
		t.Errorf("for_each tp %q", tps)
	}
	pair1 := serverNamed(t, servers, "vllm-pair1")
	if v := pair1.Args["--tensor-parallel-size"]; v.Raw != "2" {
		t.Errorf("count.index+1 = %q", v.Raw)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Calls Terraform rejects or kvlint does not read are errors at the call;
// a remote module that names no engine is left alone.
func TestModuleCallErrors(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.tf": `module "a" {
  source = "./a"
}
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
}
module "serving" {
  source = "git::https://example.com/org/vllm-serving.git?ref=v1"
}
module "typo" {
  source = "./b"
  modle  = "x"
}
`,
		"a/main.tf": `module "back" {
  source = "../b"
  model  = "x"
}
`,
		"b/main.tf": `variable "model" {}
module "again" {
  source = "../a"
}
`,
	})
	_, errs := ParseModule(dir, Options{})
	got := errorTexts(dir, errs)
	want := []string{
		`b/main.tf:3:12-3:18: module "again" (source "../a") calls itself: the module calls lead back to ` + dir + `/a, which Terraform rejects; it was not evaluated again`,
		`main.tf:8:12-8:66: module "serving" (source "git::https://example.com/org/vllm-serving.git?ref=v1") is not analysed: kvlint reads only local modules, so the servers it may deploy were not checked`,
		`main.tf:12:3-12:8: module "typo" has no variable "modle": Terraform rejects an argument the module does not declare`,
		`main.tf:10:1-10:14: module "typo" does not set the variable "model", which has no default (declared at ` + dir + `/b/main.tf:1:1): Terraform requires it`,
		// Entered through module.typo, the same cycle closes at the other call.
		`a/main.tf:2:12-2:18: module "back" (source "../b") calls itself: the module calls lead back to ` + dir + `/b, which Terraform rejects; it was not evaluated again`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Modules nested past maxModuleDepth stop with an error at the call that
// goes too deep.
func TestModuleDepth(t *testing.T) {
	files := map[string]string{"main.tf": "module \"m\" {\n  source = \"./m\"\n}\n"}
	d := "m"
	for range maxModuleDepth + 2 {
		files[d+"/main.tf"] = "module \"m\" {\n  source = \"./m\"\n}\n"
		d += "/m"
	}
	dir := writeModule(t, files)
	_, errs := ParseModule(dir, Options{})
	got := errorTexts(dir, errs)
	if len(got) != 1 || !strings.Contains(got[0], "m/m/m/m/m/m/m/m/main.tf:2:12-2:17: module \"m\" (source \"./m\") is nested 9 modules deep") {
		t.Errorf("errors %q", got)
	}
}

// kubectl_manifest: yaml_body as a heredoc, file(), templatefile() and
// yamlencode(); each flag points where it was written.
func TestKubectlManifest(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"terraform.tfvars": "pool = 8192\n",
		"main.tf": `variable "pool" { type = number }

resource "kubectl_manifest" "heredoc" {
  yaml_body = <<-EOT
    apiVersion: v1
    kind: Pod
    metadata:
      name: heredoc
    spec:
      containers:
        - name: s
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server", "--max-total-tokens", "${var.pool}"]
  EOT
}

resource "kubectl_manifest" "file" {
  yaml_body = file("pod.yaml")
}

resource "kubectl_manifest" "tpl" {
  yaml_body = templatefile("pod.yaml.tftpl", { pool = var.pool })
}

resource "kubectl_manifest" "lit" {
  yaml_body = yamlencode({
    apiVersion = "v1"
    kind       = "Pod"
    metadata   = { name = "lit" }
    spec = { containers = [{
      name    = "s"
      image   = "lmsysorg/sglang:latest"
      command = ["python3", "-m", "sglang.launch_server", "--max-total-tokens", 2048]
    }] }
  })
}

resource "kubectl_manifest" "tplit" {
  yaml_body = templatefile("pod.yaml.tftpl", { pool = 1024 })
}

resource "kubectl_manifest" "enc" {
  yaml_body = yamlencode({
    apiVersion = "v1"
    kind       = "Pod"
    metadata   = { name = "enc" }
    spec = { containers = [{
      name    = "s"
      image   = "lmsysorg/sglang:latest"
      command = ["python3", "-m", "sglang.launch_server", "--max-total-tokens", var.pool]
    }] }
  })
}
`,
		"pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: file
spec:
  containers:
    - name: s
      image: lmsysorg/sglang:latest
      command: ["python3", "-m", "sglang.launch_server", "--max-total-tokens", "4096"]
`,
		"pod.yaml.tftpl": `apiVersion: v1
kind: Pod
metadata:
  name: tpl
spec:
  containers:
    - name: s
      image: lmsysorg/sglang:latest
      command: ["python3", "-m", "sglang.launch_server", "--max-total-tokens", "${pool}"]
`,
	})
	servers, errs := ParseModule(dir, Options{})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errorTexts(dir, errs))
	}
	for name, want := range map[string][]string{
		"heredoc": {"terraform.tfvars:1:8-1:12", "variable main.tf:1:1-1:16", "reference main.tf:13:87-13:95"},
		"file":    {"pod.yaml:9:81-9:85"},
		"tpl":     {"terraform.tfvars:1:8-1:12", "variable main.tf:1:1-1:16", "reference main.tf:22:55-22:63", "template pod.yaml.tftpl:9:83-9:87"},
		"enc":     {"terraform.tfvars:1:8-1:12", "variable main.tf:1:1-1:16", "reference main.tf:50:81-50:89"},
		// Literals inside yamlencode and templatefile's variables point at
		// themselves.
		"lit": {"main.tf:33:81-33:85"},
	} {
		s := serverNamed(t, servers, name)
		if got := chain(dir, s.Args["--max-total-tokens"]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	// templatefile's variables as a literal: the same template, read with
	// 1024 written in main.tf.
	var tplit []string
	for _, s := range servers {
		if v := s.Args["--max-total-tokens"]; s.Name == "tpl" && v.Raw == "1024" {
			tplit = chain(dir, v)
		}
	}
	if want := []string{"main.tf:39:55-39:59", "template pod.yaml.tftpl:9:83-9:87"}; !reflect.DeepEqual(tplit, want) {
		t.Errorf("templatefile literal: %q, want %q", tplit, want)
	}
}

// A child module reads its files from its own directory through
// path.module, as Terraform resolves it from the root; an unknown count
// on a call gives one instance standing for all, its module value unknown;
// a count past the limit is an error at the count, and an error of the
// child's own files is reported once, however many instances read them.
func TestModuleInstancesAndPaths(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.tf": `data "external" "n" {}

module "m" {
  source = "./modules/m"
  pool   = 2048
}

module "unknown" {
  source = "./modules/m"
  count  = data.external.n.result
  pool   = 4096
}

module "many" {
  source = "./modules/broken"
  count  = maxInstances
}
`,
		"modules/m/main.tf": `variable "pool" {}
resource "kubernetes_manifest" "p" {
  manifest = yamldecode(templatefile("${path.module}/pod.yaml.tftpl", { pool = var.pool }))
}
`,
		"modules/m/pod.yaml.tftpl": `apiVersion: v1
kind: Pod
metadata:
  name: m${pool}
spec:
  containers:
    - name: s
      image: lmsysorg/sglang:latest
      command: ["python3", "-m", "sglang.launch_server", "--max-total-tokens", "${pool}"]
`,
		"modules/broken/main.tf": "locals {\n  x = nosuch.y\n}\n",
	})
	// The count past the limit: written as a number in the fixture.
	p := dir + "/main.tf"
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "maxInstances", strconv.Itoa(maxModuleInstances+1), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	servers, errs := ParseModule(dir, Options{})
	got := errorTexts(dir, errs)
	want := []string{
		"main.tf:16:12-16:15: count is 257; kvlint reads the first 256 instances",
		"modules/broken/main.tf:2:7-2:13: Unknown variable: There is no variable named \"nosuch\".",
		// module.m and module.unknown took two of the root's instances.
		"main.tf:14:1-14:14: kvlint evaluates 256 module instances at most in one root module; module.many[254] and the instances after it were not analysed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	m := serverNamed(t, servers, "m2048")
	if c := chain(dir, m.Args["--max-total-tokens"]); !reflect.DeepEqual(c, []string{
		"main.tf:5:12-5:16",
		"variable modules/m/main.tf:1:1-1:16",
		"reference modules/m/main.tf:3:80-3:88",
		"template modules/m/pod.yaml.tftpl:9:83-9:87",
	}) {
		t.Errorf("chain %q", c)
	}
	serverNamed(t, servers, "m4096")
	if len(servers) != 2 {
		t.Errorf("%d servers, want 2", len(servers))
	}
}

// A module called from a sibling directory (envs/prod calling
// ../../modules/llm) is read when it lies inside a path the run checks, and
// is an error when it does not.
func TestModuleCallWithinCheckedRoots(t *testing.T) {
	tree := writeModule(t, map[string]string{
		"envs/prod/main.tf": `module "llm" {
  source = "../../modules/llm"
  tp     = 2
}
`,
		"modules/llm/main.tf": `variable "tp" {}
resource "kubernetes_deployment" "llm" {
  metadata { name = "llm" }
  spec {
    template {
      metadata {}
      spec {
        container {
          name    = "server"
          image   = "lmsysorg/sglang:v0.4.6"
          command = ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", var.tp]
        }
      }
    }
  }
}
`,
	})
	env := filepath.Join(tree, "envs", "prod")
	servers, errs := ParseModule(env, Options{Roots: []string{tree}})
	if len(errs) != 0 || len(servers) != 1 || servers[0].Args["--tp-size"].Raw != "2" {
		t.Fatalf("inside the checked tree: servers %v, errors %v", servers, errs)
	}
	_, errs = ParseModule(env, Options{Roots: []string{env}})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, `module "llm" (source "../../modules/llm") is outside the paths kvlint checks`) {
		t.Errorf("outside the checked tree: errors %v", errs)
	}
}

// fileset() lists the module's templates as Terraform does (relative
// names, **, {a,b}); a manifest rendered from each, through for_each, keeps
// the positions of the template's text, not of the fileset call.
func TestFilesetTemplatesKeepTheirPositions(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.tf": `variable "model" {
  default = "Qwen/Qwen2.5-7B-Instruct"
}
locals {
  files = [for f in fileset("${path.module}/tpl", "**/*.{tftpl,yaml}") : "${path.module}/tpl/${f}"]
}
resource "kubernetes_manifest" "each" {
  for_each = toset(local.files)
  manifest = yamldecode(templatefile(each.value, { model = var.model }))
}
`,
		"tpl/nested/a.tftpl": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: a
spec:
  template:
    spec:
      containers:
        - name: s
          image: vllm/vllm-openai:v0.12.0
          args: ["--model", "${model}", "--max-model-len", "8192"]
`,
		"tpl/notes.txt": "not a template\n",
	})
	servers, errs := ParseModule(dir, Options{})
	if len(errs) != 0 || len(servers) != 1 {
		t.Fatalf("servers %v, errors %v", servers, errs)
	}
	if got := at(dir, servers[0].Args["--max-model-len"].Span); got != "tpl/nested/a.tftpl:11:61-11:65" {
		t.Errorf("--max-model-len at %s", got)
	}
	for pat, want := range map[string]bool{"**/*.tftpl": true, "*.tftpl": false, "nested/*": true, "nested/?.tftpl": true, "**": true} {
		if got := globMatch(pat, "nested/a.tftpl"); got != want {
			t.Errorf("globMatch(%q, nested/a.tftpl) = %v", pat, got)
		}
	}
}

// A remote module that names no engine is no error: it is returned as a
// RemoteModule at its source, once per call even when the local module
// that makes it is evaluated for each of several instances. Local calls
// and the engine-naming remote call are not among them.
func TestRemoteModulesAreNotes(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.tf": `module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.8.1"
}

module "llm" {
  source = "git::https://example.com/org/sglang-serving.git?ref=v1"
}

module "net" {
  for_each = toset(["a", "b"])
  source   = "./net"
}
`,
		"net/main.tf": `module "dns" {
  source = "s3::https://s3.amazonaws.com/modules/dns.zip"
}
`,
	})
	r := Analyse(dir, Options{})
	var got []string
	for _, m := range r.Remote {
		got = append(got, at(dir, m.Span)+" "+m.Name+" "+m.Source)
	}
	want := []string{
		`main.tf:2:13-2:44 vpc terraform-aws-modules/vpc/aws`,
		`net/main.tf:2:12-2:58 dns s3::https://s3.amazonaws.com/modules/dns.zip`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("remote modules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	errs := errorTexts(dir, r.Errors)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], `main.tf:7:12-7:68: module "llm" (source "git::https://example.com/org/sglang-serving.git?ref=v1") is not analysed`) {
		t.Errorf("errors %q, want only the engine-naming call", errs)
	}
}
