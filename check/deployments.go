package check

import (
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// deployments groups the servers (deploy.Group) and gives each deployment
// its tenancy and isolation: --tenancy, else the deployment's entry under
// .kvlint.yaml deployments:, else the file's top level, else kvlint's
// default (multi tenancy, assumed, no isolation).
//
// The configuration is the one that governs the deployment's servers (see
// configTree): a .kvlint.yaml beside a deployment speaks for it.
func deployments(servers []*deploy.Server, services []deploy.Service, cfgs *configTree, flagTenancy deploy.Tenancy) []deploy.Deployment {
	ds := deploy.Group(servers, services)
	for i := range ds {
		cfg := cfgs.forServers(ds[i].Servers)
		p := cfg.Policy(ds[i].Name)
		ds[i].Tenancy, ds[i].TenancyDeclared, ds[i].Isolation = p.Tenancy, p.Declared, p.Isolation
		ds[i].Workload = p.Workload
		if p.Workload.Source == deploy.WorkloadDeclared && cfg.Path != "" {
			// The position as the other .kvlint.yaml references print it.
			ds[i].Workload.Where = relative(cfg.Path) + strings.TrimPrefix(p.Workload.Where, cfg.Path)
		}
		if flagTenancy != "" {
			ds[i].Tenancy, ds[i].TenancyDeclared = flagTenancy, true
		}
	}
	return ds
}
