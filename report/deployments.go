package report

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
)

// jsonDeployment is one deployment in the JSON of check and capacity:
// servers, prefill, decode and routers are indexes into "servers".
type jsonDeployment struct {
	Name            string          `json:"name"`
	Mode            deploy.Mode     `json:"mode"`
	Complete        bool            `json:"complete"`
	Tenancy         deploy.Tenancy  `json:"tenancy"`
	TenancyDeclared bool            `json:"tenancy_declared"`
	Isolation       jsonIsolation   `json:"isolation"`
	Servers         []int           `json:"servers"`
	Links           []jsonRouteLink `json:"links"`
}

type jsonIsolation struct {
	CacheSalt            deploy.CacheSalt  `json:"cache_salt"`
	PerTenantDeployments bool              `json:"per_tenant_deployments"`
	ExternalKV           deploy.ExternalKV `json:"external_kv"`
}

// jsonRouteLink is a route a router names and the servers it reached.
type jsonRouteLink struct {
	Router        int         `json:"router"`
	Role          deploy.Role `json:"role"`
	Target        string      `json:"target"`
	BootstrapPort string      `json:"bootstrap_port,omitempty"`
	Match         string      `json:"match"`
	Servers       []int       `json:"servers"`
}

// deploymentsJSON lists the run's deployments, [] when there are none.
func deploymentsJSON(res *analysis.Result) []jsonDeployment {
	index := serverIndex(res)
	out := []jsonDeployment{}
	for _, d := range res.Deployments {
		jd := jsonDeployment{
			Name: d.Name, Mode: d.Mode, Complete: d.Complete(), Tenancy: d.Tenancy, TenancyDeclared: d.TenancyDeclared,
			Isolation: jsonIsolation{CacheSalt: d.Isolation.CacheSalt, PerTenantDeployments: d.Isolation.PerTenantDeployments, ExternalKV: d.Isolation.ExternalKV},
			Servers:   indexes(index, d.Servers),
			Links:     []jsonRouteLink{},
		}
		for _, l := range d.Links {
			jd.Links = append(jd.Links, jsonRouteLink{
				Router: index[l.Router], Role: l.Role, Target: l.Target, BootstrapPort: l.BootstrapPort,
				Match: l.Match, Servers: indexes(index, l.Servers),
			})
		}
		out = append(out, jd)
	}
	return out
}

func serverIndex(res *analysis.Result) map[*deploy.Server]int {
	index := make(map[*deploy.Server]int, len(res.Servers))
	for i, s := range res.Servers {
		index[s] = i
	}
	return index
}

func indexes(index map[*deploy.Server]int, servers []*deploy.Server) []int {
	out := make([]int, 0, len(servers))
	for _, s := range servers {
		if i, ok := index[s]; ok {
			out = append(out, i)
		}
	}
	return out
}

// deploymentOf names each server's deployment.
func deploymentOf(res *analysis.Result) map[*deploy.Server]string {
	of := map[*deploy.Server]string{}
	for _, d := range res.Deployments {
		for _, s := range d.Servers {
			of[s] = d.Name
		}
	}
	return of
}

// composition is "disaggregated, 2 prefill, 1 decode, 1 router" (with what
// is missing when a side is absent).
func composition(d deploy.Deployment) string {
	counts := map[deploy.Role]int{}
	for _, s := range d.Servers {
		counts[s.Role]++
	}
	parts := []string{string(d.Mode)}
	for _, r := range []deploy.Role{deploy.RolePrefill, deploy.RoleDecode, deploy.RoleColocated, deploy.RoleRouter} {
		if n := counts[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r))
		}
	}
	if n := counts[""]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d of unknown role", n))
	}
	s := strings.Join(parts, ", ")
	if !d.Complete() {
		switch {
		case counts[deploy.RolePrefill] == 0 && counts[deploy.RoleDecode] == 0:
			s += " (no prefill or decode server found)"
		case counts[deploy.RolePrefill] == 0:
			s += " (no prefill server found)"
		default:
			s += " (no decode server found)"
		}
	}
	return s
}

// policy is the tenancy and isolation in force, saying when it is assumed.
func policy(d deploy.Deployment) string {
	s := "tenancy " + string(d.Tenancy)
	if !d.TenancyDeclared {
		s += " (assumed)"
	}
	if d.Tenancy == deploy.TenancyMulti {
		salt := d.Isolation.CacheSalt
		if salt == "" {
			salt = deploy.CacheSaltNone
		}
		s += ", cache_salt " + string(salt)
		if d.Isolation.PerTenantDeployments {
			s += ", one deployment per tenant"
		}
	}
	return s
}
