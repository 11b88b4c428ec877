package rules

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// deploymentsInput builds input.deployments (see INPUT.md) and says which
// deployment each server belongs to. Without Settings.Deployments every
// server stands alone, with the settings' tenancy, as before grouping.
func deploymentsInput(servers []*deploy.Server, s Settings) ([]*ast.Term, []int, error) {
	ds := s.Deployments
	if ds == nil {
		ds = make([]deploy.Deployment, len(servers))
		for i, srv := range servers {
			mode := deploy.ModeColocated
			if srv.Role == deploy.RolePrefill || srv.Role == deploy.RoleDecode {
				mode = deploy.ModeDisaggregated
			}
			ds[i] = deploy.Deployment{Name: srv.Name, Mode: mode, Tenancy: s.Tenancy, Servers: []*deploy.Server{srv}, Isolation: deploy.DefaultIsolation()}
		}
	}
	index := make(map[*deploy.Server]int, len(servers))
	for i, srv := range servers {
		index[srv] = i
	}
	of := make([]int, len(servers))
	for i := range of {
		of[i] = -1
	}
	terms := make([]*ast.Term, len(ds))
	for di := range ds {
		d := &ds[di]
		var all, prefill, decode, routers []*ast.Term
		for _, srv := range d.Servers {
			i, ok := index[srv]
			if !ok {
				return nil, nil, fmt.Errorf("rules: deployment %q holds a server that is not among the servers evaluated", d.Name)
			}
			if of[i] >= 0 {
				return nil, nil, fmt.Errorf("rules: server %d is in deployments %d and %d", i, of[i], di)
			}
			of[i] = di
			t := ast.IntNumberTerm(i)
			all = append(all, t)
			switch srv.Role {
			case deploy.RolePrefill:
				prefill = append(prefill, t)
			case deploy.RoleDecode:
				decode = append(decode, t)
			case deploy.RoleRouter:
				routers = append(routers, t)
			}
		}
		links := make([]*ast.Term, 0, len(d.Links))
		for _, l := range d.Links {
			r, ok := index[l.Router]
			if !ok {
				return nil, nil, fmt.Errorf("rules: deployment %q has a link from a router that is not evaluated", d.Name)
			}
			reached := make([]*ast.Term, 0, len(l.Servers))
			for _, srv := range l.Servers {
				if i, ok := index[srv]; ok {
					reached = append(reached, ast.IntNumberTerm(i))
				}
			}
			links = append(links, ast.ObjectTerm(
				[2]*ast.Term{ast.StringTerm("router"), ast.IntNumberTerm(r)},
				[2]*ast.Term{ast.StringTerm("role"), ast.StringTerm(string(l.Role))},
				[2]*ast.Term{ast.StringTerm("target"), ast.StringTerm(l.Target)},
				[2]*ast.Term{ast.StringTerm("bootstrap_port"), ast.StringTerm(l.BootstrapPort)},
				[2]*ast.Term{ast.StringTerm("discovery"), ast.BooleanTerm(l.Discovery)},
				[2]*ast.Term{ast.StringTerm("match"), ast.StringTerm(l.Match)},
				[2]*ast.Term{ast.StringTerm("servers"), ast.ArrayTerm(reached...)},
			))
		}
		iso := d.Isolation
		if iso.CacheSalt == "" {
			iso.CacheSalt = deploy.CacheSaltNone
		}
		if iso.ExternalKV == "" {
			iso.ExternalKV = deploy.ExternalKVShared
		}
		tenancy := d.Tenancy
		if tenancy == "" {
			tenancy = s.Tenancy
		}
		terms[di] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(di)},
			[2]*ast.Term{ast.StringTerm("name"), ast.StringTerm(d.Name)},
			[2]*ast.Term{ast.StringTerm("mode"), ast.StringTerm(string(d.Mode))},
			[2]*ast.Term{ast.StringTerm("complete"), ast.BooleanTerm(d.Complete())},
			[2]*ast.Term{ast.StringTerm("tenancy"), ast.StringTerm(string(tenancy))},
			[2]*ast.Term{ast.StringTerm("tenancy_declared"), ast.BooleanTerm(d.TenancyDeclared)},
			[2]*ast.Term{ast.StringTerm("isolation"), ast.ObjectTerm(
				[2]*ast.Term{ast.StringTerm("cache_salt"), ast.StringTerm(string(iso.CacheSalt))},
				[2]*ast.Term{ast.StringTerm("per_tenant_deployments"), ast.BooleanTerm(iso.PerTenantDeployments)},
				[2]*ast.Term{ast.StringTerm("external_kv"), ast.StringTerm(string(iso.ExternalKV))},
			)},
			[2]*ast.Term{ast.StringTerm("servers"), ast.ArrayTerm(all...)},
			[2]*ast.Term{ast.StringTerm("prefill"), ast.ArrayTerm(prefill...)},
			[2]*ast.Term{ast.StringTerm("decode"), ast.ArrayTerm(decode...)},
			[2]*ast.Term{ast.StringTerm("routers"), ast.ArrayTerm(routers...)},
			[2]*ast.Term{ast.StringTerm("links"), ast.ArrayTerm(links...)},
		)
	}
	for i, d := range of {
		if d < 0 {
			return nil, nil, fmt.Errorf("rules: server %d (%s) is in no deployment", i, servers[i].Name)
		}
	}
	return terms, of, nil
}

// addServerFacts adds what the deployment rules read about each server: its
// deployment, its image and what the image supplied to its command line,
// and whether its model uses MLA (null when the model is not in kvlint's
// catalog).
func addServerFacts(obj ast.Object, srv *deploy.Server, est *capacity.Estimate, deployment int) {
	mla := ast.NullTerm()
	if est.Model != "" {
		if m, ok := capacity.Default().Model(est.Model); ok {
			mla = ast.BooleanTerm(m.IsMLA())
		}
	}
	obj.Insert(ast.StringTerm("deployment"), ast.IntNumberTerm(deployment))
	obj.Insert(ast.StringTerm("image"), optionalValueTerm(srv.Image))
	obj.Insert(ast.StringTerm("entrypoint"), entrypointTerm(srv.Entrypoint))
	obj.Insert(ast.StringTerm("mla"), mla)
	obj.Insert(ast.StringTerm("release"), releaseTerm(srv.Release))
}

// releaseTerm is the engine release the server was judged against and how
// it was found; unknown strings are null.
func releaseTerm(r deploy.Release) *ast.Term {
	str := func(s string) *ast.Term {
		if s == "" {
			return ast.NullTerm()
		}
		return ast.StringTerm(s)
	}
	return ast.ObjectTerm(
		[2]*ast.Term{ast.StringTerm("version"), str(r.Version)},
		[2]*ast.Term{ast.StringTerm("source"), str(r.Source)},
		[2]*ast.Term{ast.StringTerm("floating"), ast.BooleanTerm(r.Floating)},
		[2]*ast.Term{ast.StringTerm("judged"), str(r.Judged)},
		[2]*ast.Term{ast.StringTerm("judged_commit"), str(r.JudgedCommit)},
		[2]*ast.Term{ast.StringTerm("upgrade"), ast.BooleanTerm(r.Upgrade)},
		[2]*ast.Term{ast.StringTerm("from"), str(r.From)},
	)
}

// entrypointTerm is the image-table row's account of the words the image
// supplied; null when the deployment wrote the whole command. An unknown
// release is null.
func entrypointTerm(ep *deploy.ImageEntrypoint) *ast.Term {
	if ep == nil {
		return ast.NullTerm()
	}
	words := make([]*ast.Term, len(ep.Words))
	for i, w := range ep.Words {
		words[i] = ast.StringTerm(w)
	}
	release := ast.NullTerm()
	if ep.Release != "" {
		release = ast.StringTerm(ep.Release)
	}
	return ast.ObjectTerm(
		[2]*ast.Term{ast.StringTerm("image"), ast.StringTerm(ep.Image)},
		[2]*ast.Term{ast.StringTerm("words"), ast.ArrayTerm(words...)},
		[2]*ast.Term{ast.StringTerm("source"), ast.StringTerm(ep.Source)},
		[2]*ast.Term{ast.StringTerm("release"), release},
		[2]*ast.Term{ast.StringTerm("floating"), ast.BooleanTerm(ep.Floating)},
	)
}
