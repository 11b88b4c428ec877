package config

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestWorkloadDeclaredAndPerDeployment(t *testing.T) {
	c, err := Parse("w.yaml", []byte(`workload:
  concurrency: 32
  prompt_tokens: {median: 2000, max: 8000}
  output_tokens: {median: 300, max: 1000}
  tenants: 16
deployments:
  big:
    workload:
      concurrency: 4
      prompt_tokens: {median: 100, max: 200}
      output_tokens: {median: 10, max: 20}
      tenants: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	c.Path = "w.yaml"
	top := c.Policy("other").Workload
	want := deploy.Workload{Concurrency: 32, Prompt: deploy.TokenDist{Median: 2000, Max: 8000}, Output: deploy.TokenDist{Median: 300, Max: 1000},
		Tenants: 16, Source: deploy.WorkloadDeclared, Where: "w.yaml:2:3"}
	if top != want {
		t.Errorf("top level: %+v, want %+v", top, want)
	}
	big := c.Policy("big").Workload
	if big.Concurrency != 4 || big.Tenants != 2 || big.Where != "w.yaml:9:7" || big.Source != deploy.WorkloadDeclared {
		t.Errorf("per deployment: %+v", big)
	}
	none, _ := Parse("n.yaml", []byte("tenancy: multi\n"))
	if w := none.Policy("x").Workload; w != deploy.DefaultWorkload() || w.Source != deploy.WorkloadDefault {
		t.Errorf("no workload: %+v, want the default", w)
	}
}

func TestWorkloadRejects(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"workload: {concurrency: 0, prompt_tokens: {median: 1, max: 2}, output_tokens: {median: 1, max: 2}, tenants: 1}\n", "k.yaml:1:25: workload.concurrency must be a whole number from 1"},
		{"workload: {concurrency: 2, prompt_tokens: {median: 10, max: 2}, output_tokens: {median: 1, max: 2}, tenants: 1}\n", "k.yaml:1:61: workload.prompt_tokens.max (2) must not be below its median (10)"},
		{"workload: {concurrency: 2, prompt_tokens: {median: 1, max: 2}, tenants: 1}\n", "k.yaml:1:11: workload: output_tokens is missing"},
		{"workload:\n  concurency: 2\n", "k.yaml:2:3: workload: unknown key \"concurency\""},
		{"workload: {concurrency: 2, prompt_tokens: 5, output_tokens: {median: 1, max: 2}, tenants: 1}\n", "k.yaml:1:43: workload.prompt_tokens must be a mapping"},
	} {
		_, err := Parse("k.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.text, err, tc.want)
		}
	}
}
