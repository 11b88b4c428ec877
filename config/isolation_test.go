package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

const isolationFile = `tenancy: multi
isolation:
  cache_salt: gateway
  external_kv: namespaced
deployments:
  internal-tools:
    tenancy: single
  per-tenant:
    isolation:
      per_tenant_deployments: true
      cache_salt: none
`

func TestPolicy(t *testing.T) {
	c, err := Parse("k.yaml", []byte(isolationFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		deployment string
		want       Policy
	}{
		{"anything", Policy{Tenancy: deploy.TenancyMulti, Declared: true, Isolation: deploy.Isolation{
			CacheSalt: deploy.CacheSaltGateway, ExternalKV: deploy.ExternalKVNamespaced}, Workload: deploy.DefaultWorkload()}},
		{"internal-tools", Policy{Tenancy: deploy.TenancySingle, Declared: true, Isolation: deploy.Isolation{
			CacheSalt: deploy.CacheSaltGateway, ExternalKV: deploy.ExternalKVNamespaced}, Workload: deploy.DefaultWorkload()}},
		{"per-tenant", Policy{Tenancy: deploy.TenancyMulti, Declared: true, Isolation: deploy.Isolation{
			CacheSalt: deploy.CacheSaltNone, PerTenantDeployments: true, ExternalKV: deploy.ExternalKVNamespaced}, Workload: deploy.DefaultWorkload()}},
	}
	for _, tt := range tests {
		if got := c.Policy(tt.deployment); got != tt.want {
			t.Errorf("Policy(%q) = %+v, want %+v", tt.deployment, got, tt.want)
		}
	}
	empty := (&Config{}).Policy("x")
	if empty.Declared || empty.Tenancy != deploy.TenancyMulti || empty.Isolation != deploy.DefaultIsolation() {
		t.Errorf("no file: %+v, want assumed multi with no isolation", empty)
	}
}

func TestIsolationRejects(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"isolation: {cache_salt: header}\n", `k.yaml:1:25: isolation.cache_salt must be "none", "client" or "gateway", not "header"`},
		{"isolation: {external_kv: private}\n", `k.yaml:1:26: isolation.external_kv must be "shared" or "namespaced"`},
		{"isolation: {salt: gateway}\n", `k.yaml:1:13: unknown key "salt" (known keys: cache_salt, external_kv, per_tenant_deployments)`},
		{"isolation: {per_tenant_deployments: maybe}\n", "k.yaml:1:37: cannot unmarshal !!str `maybe` into bool"},
		{"deployments: {a: {tenancy: many}}\n", `k.yaml:1:28: deployments.a.tenancy must be "multi" or "single"`},
		{"deployments:\n  a:\n    isolation: {cache_salt: x}\n", "k.yaml:3:29: deployments.a.isolation.cache_salt"},
		{"deployments: {a: {tenacy: single}}\n", `k.yaml:1:19: unknown key "tenacy" (known keys: isolation, tenancy, workload)`},
	} {
		_, err := Parse("k.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.text, err, tc.want)
		}
	}
}

func TestFindFor(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, body string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("repo/.kvlint.yaml", "tenancy: multi\n")
	healthy := mk("repo/examples/healthy/.kvlint.yaml", "tenancy: single\n")
	pd := mk("repo/examples/healthy/pd.yaml", "")
	mk("repo/examples/incident/decode.yaml", "")
	mk("elsewhere/x.sh", "")
	cwd := filepath.Join(root, "repo")
	tests := []struct {
		paths []string
		want  string // the file found, relative to root; "" for none
	}{
		{[]string{filepath.Join(cwd, "examples/healthy")}, "repo/examples/healthy/.kvlint.yaml"},
		{[]string{pd}, "repo/examples/healthy/.kvlint.yaml"},
		{[]string{filepath.Join(cwd, "examples/healthy"), filepath.Join(cwd, "examples/incident")}, "repo/.kvlint.yaml"},
		{[]string{filepath.Join(cwd, "examples/incident/decode.yaml")}, "repo/.kvlint.yaml"},
		{[]string{filepath.Join(root, "elsewhere")}, "repo/.kvlint.yaml"}, // none above it: the working directory's
		{[]string{filepath.Join(root, "missing")}, "repo/.kvlint.yaml"},
		{nil, "repo/.kvlint.yaml"},
	}
	for _, tt := range tests {
		c, err := FindFor(cwd, tt.paths)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := filepath.Rel(root, c.Path)
		if filepath.ToSlash(got) != tt.want {
			t.Errorf("FindFor(%q) read %q, want %q", tt.paths, got, tt.want)
		}
	}
	c, err := FindFor(filepath.Join(root, "elsewhere"), []string{filepath.Join(root, "elsewhere")})
	if err != nil || c.Path != "" {
		t.Errorf("no file anywhere: %+v, %v", c, err)
	}
	if c, _ := FindFor(cwd, []string{healthy}); c.Tenancy != deploy.TenancySingle {
		t.Errorf("read %+v", c)
	}
}
