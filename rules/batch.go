package rules

import (
	"context"
	"fmt"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/parallel"
)

// batchServers is about how many servers one evaluation sees. Every rule
// looks within one deployment at a time, so the servers are evaluated in
// batches of whole deployments: an OPA input for every server of a large
// repository at once costs about a gigabyte, a batch a few megabytes, and
// batches run on every core with the prepared query reused.
const batchServers = 256

// batch is a set of whole deployments and their servers, in the order of
// the servers given to Evaluate; global[i] is the index there of servers[i].
type batch struct {
	servers     []*deploy.Server
	est         []capacity.Estimate
	deployments []deploy.Deployment
	global      []int
}

// batches checks that every server is in exactly one deployment and cuts
// the deployments into batches of about batchServers servers. Without
// s.Deployments every server stands alone (deploymentsInput).
func batches(servers []*deploy.Server, est []capacity.Estimate, s Settings) ([]batch, error) {
	if len(est) != len(servers) {
		return nil, fmt.Errorf("rules: %d capacity estimates for %d servers", len(est), len(servers))
	}
	index := make(map[*deploy.Server]int, len(servers))
	for i, srv := range servers {
		if srv == nil {
			return nil, fmt.Errorf("rules: server %d is nil", i)
		}
		index[srv] = i
	}
	ds := s.Deployments
	if ds == nil {
		ds = make([]deploy.Deployment, len(servers))
		for i, srv := range servers {
			ds[i] = deploy.Deployment{Name: srv.Name, Servers: []*deploy.Server{srv}}
		}
	}
	of := make([]int, len(servers))
	for i := range of {
		of[i] = -1
	}
	for di := range ds {
		for _, srv := range ds[di].Servers {
			i, ok := index[srv]
			if !ok {
				return nil, fmt.Errorf("rules: deployment %q holds a server that is not among the servers evaluated", ds[di].Name)
			}
			if of[i] >= 0 {
				return nil, fmt.Errorf("rules: server %d is in deployments %d and %d", i, of[i], di)
			}
			of[i] = di
		}
	}
	for i, d := range of {
		if d < 0 {
			return nil, fmt.Errorf("rules: server %d (%s) is in no deployment", i, servers[i].Name)
		}
	}
	// A deployment goes into the batch of its first server, so servers keep
	// their order within a batch and batches follow the servers' order.
	var out []batch
	batchOf := make([]int, len(ds))
	for i := range batchOf {
		batchOf[i] = -1
	}
	count := 0
	for i := range servers {
		di := of[i]
		if batchOf[di] < 0 {
			if len(out) == 0 || count >= batchServers {
				out = append(out, batch{})
				count = 0
			}
			batchOf[di] = len(out) - 1
			b := &out[len(out)-1]
			if s.Deployments != nil { // else buildInput makes each server its own
				b.deployments = append(b.deployments, ds[di])
			}
			count += len(ds[di].Servers)
		}
		b := &out[batchOf[di]]
		b.servers = append(b.servers, servers[i])
		b.est = append(b.est, est[i])
		b.global = append(b.global, i)
	}
	return out, nil
}

// evaluateBatches runs the prepared query over each batch on every core and
// returns the findings with Server indexing the servers given to Evaluate.
// The caller sorts them, so the order does not depend on which batch ends
// first.
func (e *Engine) evaluateBatches(ctx context.Context, bs []batch, s Settings) ([]diag.Diagnostic, error) {
	results := make([][]diag.Diagnostic, len(bs))
	errs := make([]error, len(bs))
	parallel.For(len(bs), func(i int) { results[i], errs[i] = e.evaluateBatch(ctx, &bs[i], s) })
	var all []diag.Diagnostic
	seen := map[string]bool{}
	for i := range bs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, f := range results[i] {
			if f.IsInputError() { // a custom policy's failure, met once per batch
				if k := policyErrorKey(f); seen[k] {
					continue
				} else {
					seen[k] = true
				}
			}
			all = append(all, f)
		}
	}
	return all, nil
}

func (e *Engine) evaluateBatch(ctx context.Context, b *batch, s Settings) ([]diag.Diagnostic, error) {
	bs := s
	bs.Deployments = b.deployments
	input, err := buildInput(b.servers, b.est, bs)
	if err != nil {
		return nil, err
	}
	rs, err := e.eval(ctx, e.query, input)
	if err != nil {
		return nil, err
	}
	findings := make([]diag.Diagnostic, 0, len(rs))
	rs = append(rs, e.evaluateCustomRules(ctx, input, &findings)...)
	for _, r := range rs {
		name, _ := r.Bindings["pkg"].(string)
		rule, ok := e.byName[name]
		if !ok {
			return nil, fmt.Errorf("rules: package %s%s returned findings but has no METADATA", rulePackagePrefix, name)
		}
		f, err := e.finding(rule, r.Bindings["finding"], b.servers)
		if err != nil {
			return nil, fmt.Errorf("rules: %s (%s): %w", rule.ID, rule.Package, err)
		}
		f.Server = b.global[f.Server]
		findings = append(findings, f)
	}
	return findings, nil
}
