package config

import (
	"slices"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// Isolation is the `isolation:` block of .kvlint.yaml: how tenants are kept
// apart, which no launch command shows.
//
//	isolation:
//	  cache_salt: gateway          # none (default) | client | gateway
//	  per_tenant_deployments: true # each tenant has its own servers
//	  external_kv: namespaced      # shared (default) | namespaced
//
// Only a gateway that derives the salt from the authenticated tenant
// enforces isolation: a salt clients choose can be copied
// (vllm-project/vllm#53347).
type Isolation struct {
	CacheSalt            deploy.CacheSalt  `yaml:"cache_salt"`
	PerTenantDeployments *bool             `yaml:"per_tenant_deployments"`
	ExternalKV           deploy.ExternalKV `yaml:"external_kv"`
}

// DeploymentSettings override tenancy and isolation for one deployment;
// unset fields keep the file's top-level values.
type DeploymentSettings struct {
	Tenancy   deploy.Tenancy `yaml:"tenancy"`
	Isolation Isolation      `yaml:"isolation"`
	Workload  Workload       `yaml:"workload"`
}

// Policy is the tenancy and isolation in force for one deployment.
type Policy struct {
	Tenancy deploy.Tenancy
	// Declared is true when the file states the tenancy (at the top level or
	// for this deployment); false when kvlint assumes multi.
	Declared  bool
	Isolation deploy.Isolation
	// Workload is the deployment's entry's workload:, else the top level's,
	// else deploy.DefaultWorkload (source "default").
	Workload deploy.Workload
}

// Policy resolves a deployment's tenancy and isolation: its entry under
// deployments:, else the top-level settings, else kvlint's defaults (multi
// tenancy, no salt, shared servers and tiers).
func (c *Config) Policy(deployment string) Policy {
	p := Policy{Tenancy: deploy.TenancyMulti, Isolation: deploy.DefaultIsolation(), Workload: deploy.DefaultWorkload()}
	apply := func(t deploy.Tenancy, iso Isolation) {
		if t != "" {
			p.Tenancy, p.Declared = t, true
		}
		if iso.CacheSalt != "" {
			p.Isolation.CacheSalt = iso.CacheSalt
		}
		if iso.PerTenantDeployments != nil {
			p.Isolation.PerTenantDeployments = *iso.PerTenantDeployments
		}
		if iso.ExternalKV != "" {
			p.Isolation.ExternalKV = iso.ExternalKV
		}
	}
	workload := func(w Workload) {
		if w.set {
			p.Workload = w.W
			p.Workload.Where = w.Where(c.Path)
		}
	}
	apply(c.Tenancy, c.Isolation)
	workload(c.Workload)
	if d, ok := c.Deployments[deployment]; ok {
		apply(d.Tenancy, d.Isolation)
		workload(d.Workload)
	}
	return p
}

func (c *Config) validateIsolation() error {
	if err := c.Isolation.validate([]string{"isolation"}); err != nil {
		return err
	}
	names := make([]string, 0, len(c.Deployments))
	for n := range c.Deployments {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := c.Deployments[n]
		if n == "" {
			return fieldErrorf([]string{"deployments"}, "deployments: a deployment name must not be empty")
		}
		switch d.Tenancy {
		case "", deploy.TenancyMulti, deploy.TenancySingle:
		default:
			return fieldErrorf([]string{"deployments", n, "tenancy"}, "deployments.%s.tenancy must be %q or %q, not %q", n, deploy.TenancyMulti, deploy.TenancySingle, d.Tenancy)
		}
		if err := d.Isolation.validate([]string{"deployments", n, "isolation"}); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the block at path (isolation, or a deployment's).
func (i Isolation) validate(path []string) error {
	where := strings.Join(path, ".")
	switch i.CacheSalt {
	case "", deploy.CacheSaltNone, deploy.CacheSaltClient, deploy.CacheSaltGateway:
	default:
		return fieldErrorf(append(slices.Clone(path), "cache_salt"), "%s.cache_salt must be %q, %q or %q, not %q", where,
			deploy.CacheSaltNone, deploy.CacheSaltClient, deploy.CacheSaltGateway, i.CacheSalt)
	}
	switch i.ExternalKV {
	case "", deploy.ExternalKVShared, deploy.ExternalKVNamespaced:
	default:
		return fieldErrorf(append(slices.Clone(path), "external_kv"), "%s.external_kv must be %q or %q, not %q", where, deploy.ExternalKVShared, deploy.ExternalKVNamespaced, i.ExternalKV)
	}
	return nil
}
