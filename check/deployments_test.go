package check

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/rules"
)

// exampleRun checks an example directory with the .kvlint.yaml beside it,
// as kvlint check does from the repository root.
func exampleRun(t *testing.T, dir string) *analysis.Result {
	t.Helper()
	cfg, err := config.FindFor(".", []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res := runPaths(t, cfg, dir)
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	return res
}

func findingsOf(res *analysis.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Rule+" "+f.Severity)
	}
	return out
}

// The incident in its disaggregated, multi-tenant form: KV101 critical plus
// KV301; with the pool fixed and gateway-enforced isolation on a release that
// honours cache_salt, nothing.
func TestIncidentAndItsFix(t *testing.T) {
	res := exampleRun(t, "../examples/incident")
	if len(res.Deployments) != 1 {
		t.Fatalf("deployments %+v, want the router with its two pools", res.Deployments)
	}
	d := res.Deployments[0]
	if d.Name != "llama70b" || d.Mode != deploy.ModeDisaggregated || !d.Complete() || len(d.Servers) != 3 ||
		d.Tenancy != deploy.TenancyMulti || !d.TenancyDeclared || d.Isolation.CacheSalt != deploy.CacheSaltNone {
		t.Errorf("deployment %+v", d)
	}
	got := strings.Join(findingsOf(res), ", ")
	if want := "KV101 critical, KV104 high, KV301 high"; got != want {
		t.Errorf("incident findings %q, want %q", got, want)
	}

	fixed := exampleRun(t, "../examples/incident-fixed")
	if len(fixed.Findings) != 0 {
		t.Errorf("incident-fixed findings %v, want none", findingsOf(fixed))
	}
	if len(fixed.Deployments) != 1 || fixed.Deployments[0].Isolation.CacheSalt != deploy.CacheSaltGateway {
		t.Errorf("incident-fixed deployments %+v", fixed.Deployments)
	}
}

// Without a configuration the tenancy is assumed: KV101 keeps its severity
// and KV301 is medium; --tenancy single silences the isolation rules.
func TestTenancyAssumedAndOverridden(t *testing.T) {
	res := runPaths(t, nil, "../examples/incident")
	if got := strings.Join(findingsOf(res), ", "); got != "KV101 high, KV104 high, KV301 medium" {
		t.Errorf("assumed tenancy: %q", got)
	}
	if res.Deployments[0].TenancyDeclared {
		t.Error("tenancy declared without a configuration")
	}
	cfg, err := config.FindFor(".", []string{"../examples/incident"})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := rules.New(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	single, err := Run(t.Context(), engine, Options{Paths: []string{"../examples/incident"}, Config: cfg, Tenancy: deploy.TenancySingle})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(findingsOf(single), ", "); got != "KV101 high, KV104 high" {
		t.Errorf("--tenancy single: %q", got)
	}
}

// A per-deployment entry overrides the file's top level.
func TestDeploymentOverride(t *testing.T) {
	cfg, err := config.Parse("k.yaml", []byte("tenancy: multi\ndeployments:\n  llama70b:\n    tenancy: single\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := runPaths(t, cfg, "../examples/incident")
	if d := res.Deployments[0]; d.Tenancy != deploy.TenancySingle || !d.TenancyDeclared {
		t.Errorf("deployment %+v, want single from its entry", d)
	}
	if got := strings.Join(findingsOf(res), ", "); got != "KV101 high, KV104 high" {
		t.Errorf("findings %q", got)
	}
}
