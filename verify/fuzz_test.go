package verify

import (
	"context"
	"strconv"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// fuzzResult is a PD deployment with whatever numbers the fuzzer picks, and a finding of
// each kind verify runs the runtime for.
func fuzzResult(pool, ctx int64, page, mrr, replicas, dp, chunk int, radixOff bool) *analysis.Result {
	span := deploy.Span{File: "f.sh", Line: 1, Col: 1, EndLine: 1, EndCol: 2}
	server := func(role deploy.Role) *deploy.Server {
		s := &deploy.Server{Engine: deploy.EngineSGLang, Role: role, Name: string(role), Span: span,
			Args: map[string]deploy.Value{}, Replicas: deploy.Known(strconv.Itoa(replicas), span)}
		if chunk != 0 {
			s.Args["--chunked-prefill-size"] = deploy.Known(strconv.Itoa(chunk), span)
		}
		if radixOff {
			s.Args["--disable-radix-cache"] = deploy.Known("true", span)
		}
		return s
	}
	prefill, decode := server(deploy.RolePrefill), server(deploy.RoleDecode)
	est := func(withMRR bool) capacity.Estimate {
		e := capacity.Estimate{Engine: deploy.EngineSGLang, PageSize: page, DP: dp, PoolTokens: &pool, ContextLength: &ctx}
		if withMRR {
			m := int64(mrr)
			e.MaxRunningRequests = &m
		}
		return e
	}
	res := &analysis.Result{
		Servers:   []*deploy.Server{prefill, decode},
		Estimates: []capacity.Estimate{est(false), est(true)},
		Deployments: []deploy.Deployment{{Name: "f", Mode: deploy.ModeDisaggregated, Tenancy: deploy.TenancyMulti,
			Servers: []*deploy.Server{prefill, decode}, Isolation: deploy.DefaultIsolation()}},
	}
	for _, rule := range []string{"KV101", "KV104", "KV301", "KV302", "KV201"} {
		res.Findings = append(res.Findings, diag.Diagnostic{Rule: rule, Severity: "high", Server: 1, Span: span})
	}
	return res
}

// FuzzVerify: whatever a deployment's numbers, verify builds scenarios the runtime accepts
// (an error from Run means verify built a scenario the runtime refuses) and never panics.
func FuzzVerify(f *testing.F) {
	f.Add(int64(65536), int64(131072), 64, 64, 2, 1, 0, false)
	f.Add(int64(1), int64(2), 1, 1, 1, 1, 0, false)
	f.Add(int64(1<<40), int64(1<<30), 4096, 1<<20, 1000, 64, -1, true)
	f.Add(int64(100), int64(100000), 3000, 0, 0, 0, 7, false)
	f.Add(int64(-5), int64(-1), -2, -3, -4, -5, -6, false)
	f.Fuzz(func(t *testing.T, pool, ctx int64, page, mrr, replicas, dp, chunk int, radixOff bool) {
		res := fuzzResult(pool, ctx, page, mrr, replicas, dp, chunk, radixOff)
		rep, err := Run(context.Background(), res, Options{Seed: 1, Requests: 4, Samples: 2})
		if err != nil {
			t.Fatalf("pool %d ctx %d page %d mrr %d replicas %d dp %d chunk %d: %v", pool, ctx, page, mrr, replicas, dp, chunk, err)
		}
		if len(rep.Findings) != len(res.Findings) {
			t.Fatal("verdicts missing")
		}
	})
}
