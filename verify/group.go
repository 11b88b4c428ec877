package verify

import (
	"path/filepath"
	"slices"

	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/deploy"
)

// groupDeployments splits a run's servers into the deployments verify boots one runtime
// for. It is a variable so that the grouping of the check pipeline can replace it when
// check.Result carries deployments.
var groupDeployments = groupByDirectory

// groupByDirectory is the trivial grouping: the prefill, decode and router servers written
// in one directory are one disaggregated deployment, and every colocated server is a
// deployment of its own. A router that fronts colocated servers is left out: the runtime
// models disaggregated serving, and a colocated server is modelled on its own.
func groupByDirectory(res *check.Result, tenancy deploy.Tenancy) []deploy.Deployment {
	var out []deploy.Deployment
	pd := map[string]int{} // directory → index in out
	for _, s := range res.Servers {
		switch s.Role {
		case deploy.RolePrefill, deploy.RoleDecode, deploy.RoleRouter:
			if s.Role == deploy.RoleRouter && !isPDRouter(s) {
				continue
			}
			dir := filepath.Dir(s.Span.File)
			i, ok := pd[dir]
			if !ok {
				i = len(out)
				pd[dir] = i
				out = append(out, deploy.Deployment{Name: dir, Mode: deploy.ModeDisaggregated, Tenancy: tenancy})
			}
			out[i].Servers = append(out[i].Servers, s)
		case deploy.RoleColocated, "":
			if s.Engine == deploy.EngineSGLangRouter {
				continue
			}
			out = append(out, deploy.Deployment{Name: s.Name, Mode: deploy.ModeColocated, Tenancy: tenancy, Servers: []*deploy.Server{s}})
		}
	}
	// A directory of routers only has nothing to run.
	return slices.DeleteFunc(out, func(d deploy.Deployment) bool {
		return !slices.ContainsFunc(d.Servers, func(s *deploy.Server) bool { return s.Role != deploy.RoleRouter })
	})
}

func isPDRouter(s *deploy.Server) bool {
	v, ok := s.Arg("--pd-disaggregation")
	return ok && v.Known && v.Raw != "false"
}
