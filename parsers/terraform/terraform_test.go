package terraform

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
)

// The fixture's KV pool is set in terraform.tfvars: the flag points at the
// tfvars line, and the chain names the variable declaration, the reference
// in the local that used it and the one in the resource argument, each at
// its exact columns.
func TestTfvarsChain(t *testing.T) {
	servers, errs := ParseModule("testdata/deployment", Options{})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(servers) != 1 {
		t.Fatalf("got %d servers, want 1", len(servers))
	}
	s := servers[0]
	tests := []struct {
		flag string
		raw  string
		want []string
	}{
		{"--max-total-tokens", "65536", []string{
			"testdata/deployment/terraform.tfvars:3:20-3:25",
			"variable testdata/deployment/variables.tf:11:1-11:28",
			"reference testdata/deployment/main.tf:6:27-6:47",
			"reference testdata/deployment/main.tf:29:28-29:38",
		}},
		{"--context-length", "131072", []string{
			"testdata/deployment/terraform.tfvars:2:20-2:26",
			"variable testdata/deployment/variables.tf:6:1-6:26",
			"reference testdata/deployment/main.tf:5:34-5:52",
			"reference testdata/deployment/main.tf:29:28-29:38",
		}},
		// A default is its own line; no tfvars sets it.
		{"--tp-size", "1", []string{
			"testdata/deployment/variables.tf:19:13-19:14",
			"reference testdata/deployment/main.tf:7:18-7:26",
			"reference testdata/deployment/main.tf:29:28-29:38",
		}},
		// A literal of concat's second argument points at itself.
		{"--host", "0.0.0.0", []string{"testdata/deployment/main.tf:29:52-29:59"}},
	}
	for _, tt := range tests {
		v, ok := s.Args[tt.flag]
		if !ok {
			t.Errorf("%s missing", tt.flag)
			continue
		}
		if v.Raw != tt.raw || !v.Known {
			t.Errorf("%s = %q known=%v, want %q", tt.flag, v.Raw, v.Known, tt.raw)
		}
		if got := chain("", v); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s chain\n got %q\nwant %q", tt.flag, got, tt.want)
		}
	}
	if s.Name != "sglang-1gpu" || s.Source != Source {
		t.Errorf("name %q source %q", s.Name, s.Source)
	}
	if s.GPU.Raw != "NVIDIA-H100-80GB-HBM3" || s.GPUCount.Raw != "1" || s.Replicas.Raw != "2" {
		t.Errorf("gpu %q count %q replicas %q", s.GPU.Raw, s.GPUCount.Raw, s.Replicas.Raw)
	}
	if got := at("", s.Span); got != "testdata/deployment/main.tf:28:40-28:60" {
		t.Errorf("server span %s", got)
	}
}

const precedenceTF = `
variable "tokens" {
  type    = number
  default = 1000
}

resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    container {
      name    = "s"
      command = ["python3", "-m", "sglang.launch_server", "--max-total-tokens", var.tokens]
    }
  }
}
`

// Terraform's precedence: default < TF_VAR_ < terraform.tfvars <
// *.auto.tfvars (lexical) < -var-file in order.
func TestVariablePrecedence(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opt   func(dir string) Options
		want  string
		where string
	}{
		{"default", nil, nil, "1000", "main.tf:4:13-4:17"},
		{"environment", nil, func(string) Options { return Options{Environ: []string{"TF_VAR_tokens=2000", "TF_VAR_other=1"}} }, "2000", "main.tf:2:1-2:18"},
		{"tfvars over environment", map[string]string{"terraform.tfvars": "tokens = 3000\n"},
			func(string) Options { return Options{Environ: []string{"TF_VAR_tokens=2000"}} }, "3000", "terraform.tfvars:1:10-1:14"},
		{"auto.tfvars in lexical order", map[string]string{
			"terraform.tfvars": "tokens = 3000\n", "b.auto.tfvars": "tokens = 5000\n", "a.auto.tfvars": "tokens = 4000\n"},
			nil, "5000", "b.auto.tfvars:1:10-1:14"},
		{"var files last, in order", map[string]string{
			"a.auto.tfvars": "tokens = 4000\n", "x.tfvars": "tokens = 6000\n", "y.tfvars": "tokens = 7000\n"},
			func(dir string) Options { return Options{VarFiles: []string{dir + "/x.tfvars", dir + "/y.tfvars"}} }, "7000", "y.tfvars:1:10-1:14"},
		{"json tfvars", map[string]string{"terraform.tfvars.json": `{"tokens": 8000}`}, nil, "8000", "terraform.tfvars.json:1:12-1:16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"main.tf": precedenceTF}
			for k, v := range tt.files {
				files[k] = v
			}
			dir := writeModule(t, files)
			var opt Options
			if tt.opt != nil {
				opt = tt.opt(dir)
			}
			servers, errs := ParseModule(dir, opt)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errorTexts(dir, errs))
			}
			v := servers[0].Args["--max-total-tokens"]
			if v.Raw != tt.want || at(dir, v.Span) != tt.where {
				t.Errorf("got %q at %s, want %q at %s", v.Raw, at(dir, v.Span), tt.want, tt.where)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // error texts, prefix match
		// servers still found
		servers int
	}{
		{"cyclic locals", map[string]string{"main.tf": `
locals {
  a = local.b
  b = "${local.c}-x"
  c = local.a
  d = 1
}
` + podWith(`"--tp-size", local.a, "--dp-size", local.d`)},
			[]string{"main.tf:3:3-3:4: local.a depends on itself (local.a → local.b → local.c → local.a)"}, 1},
		{"syntax error in one file, the other still read", map[string]string{
			"broken.tf": "resource \"x\" \"y\" {\n  a = [1,\n}\n",
			"main.tf":   podWith(`"--tp-size", "2"`)},
			[]string{"broken.tf:3:1-"}, 1},
		{"tfvars syntax error", map[string]string{
			"terraform.tfvars": "tokens = \n",
			"main.tf":          precedenceTF},
			[]string{"terraform.tfvars:1:"}, 1},
		{"file outside the module", map[string]string{
			"main.tf": `locals { x = file("../secret.yaml") }` + "\n" + podWith(`"--tp-size", "2"`)},
			[]string{`main.tf:1:14-1:36: Error in function call: Call to function "file" failed: "../secret.yaml" is outside the module`}, 1},
		{"absolute file", map[string]string{
			"main.tf": `locals { x = file("/etc/passwd") }` + "\n" + podWith(`"--tp-size", "2"`)},
			[]string{`main.tf:1:14-1:33: Error in function call: Call to function "file" failed: "/etc/passwd" is an absolute path`}, 1},
		{"undeclared variable", map[string]string{"main.tf": podWith(`"--tp-size", var.nope`)},
			[]string{"main.tf:"}, 1},
		{"helm_release without a renderer", map[string]string{"main.tf": `
resource "helm_release" "sglang" {
  name  = "sglang"
  chart = "./chart"
}
`}, []string{"main.tf:2:1-2:33: helm_release rendering is not available"}, 0},
		{"helm_release with a missing chart", map[string]string{"main.tf": `
resource "helm_release" "sglang" {
  name  = "sglang"
  chart = "./chart"
}
`}, []string{"main.tf:4:11-4:20: the chart of helm_release.sglang"}, 0},
		{"helm_release from a repository", map[string]string{"main.tf": `
resource "helm_release" "sglang" {
  name       = "sglang"
  repository = "https://charts.example.com"
  chart      = "sglang"
}
resource "helm_release" "monitoring" {
  name       = "prom"
  repository = "https://charts.example.com"
  chart      = "kube-prometheus-stack"
}
`}, []string{`main.tf:5:16-5:24: helm_release.sglang installs the chart "sglang" from a repository`}, 0},
		{"wrong type for a variable", map[string]string{
			"main.tf":          precedenceTF,
			"terraform.tfvars": "tokens = \"many\"\n"},
			[]string{`terraform.tfvars:1:10-1:16: variable "tokens": number is required`}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeModule(t, tt.files)
			opt := Options{Helm: noHelm}
			if strings.Contains(tt.name, "without a renderer") {
				opt.Helm = nil
			}
			servers, errs := ParseModule(dir, opt)
			got := errorTexts(dir, errs)
			if len(got) != len(tt.want) {
				t.Fatalf("errors\n got %q\nwant %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d\n got %q\nwant prefix %q", i, got[i], tt.want[i])
				}
			}
			if len(servers) != tt.servers {
				t.Errorf("got %d servers, want %d", len(servers), tt.servers)
			}
		})
	}
}

// podWith is a kubernetes_pod running SGLang with extra argv items.
func podWith(args string) string {
	return `
resource "kubernetes_pod_v1" "server" {
  metadata { name = "server" }
  spec {
    container {
      name    = "sglang"
      command = ["python3", "-m", "sglang.launch_server", ` + args + `]
    }
  }
}
`
}

// noHelm renders nothing: the errors these tests expect come before Helm.
func noHelm(HelmRelease, engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) { return nil, nil }

// The release handed to Helm: values documents whose lines map back to the
// HCL and tfvars, and set entries with their spans.
func TestHelmReleaseRequest(t *testing.T) {
	var got HelmRelease
	_, errs := ParseModule("testdata/helm-release", Options{Helm: func(r HelmRelease, _ engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
		got = r
		return nil, nil
	}})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	const d = "testdata/helm-release/"
	if got.Chart != d+"chart" || got.Name != "chat" || got.Namespace != "llm" || len(got.Values) != 2 || len(got.Set) != 1 {
		t.Fatalf("release %+v", got)
	}
	if want := "\"server\":\n  \"contextLength\": 131072\n  \"maxTotalTokens\": 65536\n"; string(got.Values[0].Data) != want {
		t.Errorf("yamlencode document\n got %q\nwant %q", got.Values[0].Data, want)
	}
	// Line 3 of the document, "maxTotalTokens": 65536, columns 21-26.
	doc := got.Values[0].File
	if sp := got.Values[0].Locate(deploy.Span{File: doc, Line: 3, Col: 21, EndLine: 3, EndCol: 26}); at("", sp) != d+"terraform.tfvars:1:20-1:25" {
		t.Errorf("origin of maxTotalTokens: %s", at("", sp))
	}
	if sp := got.Values[1].Locate(deploy.Span{File: got.Values[1].File, Line: 2, Col: 13, EndLine: 2, EndCol: 15}); at("", sp) != d+"main.tf:24:17-24:19" {
		t.Errorf("origin of the heredoc's pageSize: %s", at("", sp))
	}
	if s := got.Set[0]; s.Expr != "replicas=2" || s.String || at("", s.Span) != d+"main.tf:30:13-30:14" {
		t.Errorf("set %+v", s)
	}
}

// type = list and type = map, without an element type, are the shorthand
// Terraform still accepts for list(any) and map(any): no error, and the
// default converts.
func TestBareListAndMapTypes(t *testing.T) {
	dir := writeModule(t, map[string]string{"main.tf": `variable "zones" {
  type    = list
  default = ["a", "b"]
}
variable "labels" {
  type    = map
  default = { team = "llm" }
}
`})
	if _, errs := ParseModule(dir, Options{}); len(errs) != 0 {
		t.Errorf("errors %v", errs)
	}
}
