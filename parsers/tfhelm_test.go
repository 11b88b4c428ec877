package parsers

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func tfChain(v deploy.Value) []string {
	var out []string
	for _, s := range append([]deploy.Span{v.Span}, v.Origin.Spans()...) {
		out = append(out, s.File+":"+strconv.Itoa(s.Line)+":"+strconv.Itoa(s.Col)+"-"+strconv.Itoa(s.EndLine)+":"+strconv.Itoa(s.EndCol))
	}
	return out
}

// A Terraform helm_release with a local chart, rendered through parsers/helm: values from yamlencode({...}) and a
// heredoc, and a set block, each traced back to the HCL (and through the
// variable to terraform.tfvars), then the template line.
func TestHelmRelease(t *testing.T) {
	servers, errs := ParseWith(File{Path: "terraform/testdata/helm-release", Kind: KindTerraform}, Options{})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(servers) != 1 || servers[0].Name != "chat-sglang" {
		t.Fatalf("got %d servers", len(servers))
	}
	s := servers[0]
	const d = "terraform/testdata/helm-release/"
	tests := []struct {
		flag, raw string
		want      []string
	}{
		{"--max-total-tokens", "65536", []string{d + "terraform.tfvars:1:20-1:25", d + "main.tf:6:1-6:28",
			d + "main.tf:19:26-19:46", d + "chart/templates/deployment.yaml:19:15-19:58"}},
		{"--context-length", "131072", []string{d + "main.tf:3:13-3:19", d + "main.tf:18:26-18:44",
			d + "chart/templates/deployment.yaml:17:15-17:57"}},
		{"--page-size", "64", []string{d + "main.tf:24:17-24:19", d + "chart/templates/deployment.yaml:21:15-21:52"}},
		{"--model-path", "Qwen/Qwen2.5-7B-Instruct", []string{d + "chart/values.yaml:2:8-2:32", d + "chart/templates/deployment.yaml:15:15-15:42"}},
	}
	for _, tt := range tests {
		v := s.Args[tt.flag]
		if v.Raw != tt.raw {
			t.Errorf("%s = %q, want %q", tt.flag, v.Raw, tt.raw)
		}
		if got := tfChain(v); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s chain\n got %q\nwant %q", tt.flag, got, tt.want)
		}
	}
	if got := tfChain(s.Replicas); s.Replicas.Raw != "2" || got[0] != d+"main.tf:30:13-30:14" {
		t.Errorf("replicas %q at %q", s.Replicas.Raw, got)
	}
}
