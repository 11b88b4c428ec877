// Package fixes computes, for a finding, the changes that would make it hold:
// from the deployment model and the capacity estimate, never from the rule's
// message. Each rule family registers its computer in its own file; Attach
// runs them after the rules and before suppression, so every reporter and
// `kvlint fix` see the same fixes.
package fixes

import (
	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// Subject is what a computer may read about one finding.
type Subject struct {
	Finding *diag.Diagnostic
	// Server and Estimate are the finding's server and its capacity
	// estimate; nil for a finding about no server.
	Server   *deploy.Server
	Estimate *capacity.Estimate
	// Servers and Estimates are the whole run's, for fixes that make two
	// servers agree (a prefill/decode pair).
	Servers   []*deploy.Server
	Estimates []capacity.Estimate
	// Files holds the text of every file the run read, to check that a
	// replacement's span holds the literal it replaces.
	Files *source.Set
	// Deployments group the servers; a prefill/decode fix finds the other
	// side of its pair in them.
	Deployments []deploy.Deployment
	// ExpectedConcurrency is the run's expected_concurrency (0: none
	// declared): the demand a pool below context × concurrency must meet.
	ExpectedConcurrency int
}

// computer returns the fixes of one finding, least disruptive first.
type computer func(s *Subject) []diag.Fix

var computers = map[string]computer{}

// register makes c compute the fixes of findings of rule; one computer per
// rule.
func register(rule string, c computer) {
	if _, dup := computers[rule]; dup {
		panic("fixes: two computers for " + rule)
	}
	computers[rule] = c
}

// Attach sets Fixes on every finding of res whose rule has a computer.
func Attach(res *analysis.Result) {
	for i := range res.Findings {
		d := &res.Findings[i]
		c := computers[d.Rule]
		if c == nil {
			continue
		}
		s := &Subject{Finding: d, Servers: res.Servers, Estimates: res.Estimates, Files: res.Files, ExpectedConcurrency: res.ExpectedConcurrency, Deployments: res.Deployments}
		if d.Server >= 0 && d.Server < len(res.Servers) {
			s.Server = res.Servers[d.Server]
			if d.Server < len(res.Estimates) {
				s.Estimate = &res.Estimates[d.Server]
			}
		}
		d.Fixes = c(s)
	}
}
