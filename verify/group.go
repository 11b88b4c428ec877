package verify

import (
	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
)

// groupDeployments is the deployments verify boots one runtime for: check's grouping with
// the tenancy and isolation in force for each (.kvlint.yaml, --tenancy). A variable so a
// test can swap it.
var groupDeployments = deploymentsOf

func deploymentsOf(res *analysis.Result, opt Options) []deploy.Deployment {
	if res.Deployments != nil {
		return res.Deployments
	}
	// A Result that did not come from check.Run: group it the way check
	// does, with kvlint's defaults for what no configuration declared
	// (multi-tenant, no isolation key) and --tenancy over them.
	ds := deploy.Group(res.Servers, nil)
	for i := range ds {
		ds[i].Tenancy, ds[i].TenancyDeclared, ds[i].Isolation = deploy.TenancyMulti, false, deploy.DefaultIsolation()
		if opt.Tenancy != "" {
			ds[i].Tenancy, ds[i].TenancyDeclared = opt.Tenancy, true
		}
	}
	return ds
}

// enforced reports whether a deployment keeps tenants' prefix-cache entries apart by a key
// no client chooses: a gateway that derives cache_salt from the authenticated tenant, or a
// copy of the deployment per tenant. A salt clients set themselves does not count
// (vllm-project/vllm#53347): the runtime then models clients that send none.
func enforced(dep deploy.Deployment) bool {
	return dep.Isolation.CacheSalt == deploy.CacheSaltGateway || dep.Isolation.PerTenantDeployments
}
