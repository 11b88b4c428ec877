package verify

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

var (
	engineOnce sync.Once
	engine     *rules.Engine
	engineErr  error
)

// checked runs kvlint's check pipeline over paths, as `kvlint verify` does before verifying.
func checked(t testing.TB, paths ...string) *analysis.Result {
	t.Helper()
	return checkedWith(t, &config.Config{}, paths...)
}

// checkedWith runs check with a .kvlint.yaml.
func checkedWith(t testing.TB, cfg *config.Config, paths ...string) *analysis.Result {
	t.Helper()
	engineOnce.Do(func() { engine, engineErr = rules.New(context.Background()) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: paths, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("check errors: %v", res.Errors)
	}
	return res
}

// heavy skips a test that only measures scenarios when the race detector is on: the
// simulation is single-threaded, and TestSameSeedSameBytes keeps verify's own goroutines
// under the detector.
func heavy(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("measures scenarios only; run without -race")
	}
}

func verified(t testing.TB, res *analysis.Result, opt Options) *Report {
	t.Helper()
	rep, err := Run(context.Background(), res, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != len(res.Findings) {
		t.Fatalf("%d verdicts for %d findings", len(rep.Findings), len(res.Findings))
	}
	return rep
}

// serverIndex finds a server by role.
func serverIndex(t testing.TB, res *analysis.Result, role deploy.Role) int {
	t.Helper()
	for i, s := range res.Servers {
		if s.Role == role {
			return i
		}
	}
	t.Fatalf("no %s server", role)
	return -1
}

// only keeps the findings of one rule, so a test pays only for the runs that rule needs.
func only(res *analysis.Result, rule string) *analysis.Result {
	out := *res
	out.Findings = nil
	for _, f := range res.Findings {
		if f.Rule == rule {
			out.Findings = append(out.Findings, f)
		}
	}
	return &out
}

// verdictOf returns the verdict on the first finding of a rule.
func verdictOf(t testing.TB, res *analysis.Result, rep *Report, rule string) FindingVerdict {
	t.Helper()
	for i, f := range res.Findings {
		if f.Rule == rule {
			return rep.Findings[i]
		}
	}
	t.Fatalf("no %s finding", rule)
	return FindingVerdict{}
}

// withFinding adds a finding that the rules of another change will raise (KV301…), so the
// verdicts can be tested before and apart from the rule.
func withFinding(res *analysis.Result, rule string, server int) *analysis.Result {
	out := *res
	out.Findings = append([]diag.Diagnostic{{Rule: rule, Severity: "high", Server: server, Span: res.Servers[server].Span}}, nil...)
	return &out
}

// setArg sets a flag on a copy of server i.
func setArg(res *analysis.Result, i int, flag, value string) *analysis.Result {
	out := *res
	out.Servers = append([]*deploy.Server(nil), res.Servers...)
	s := *res.Servers[i]
	s.Args = map[string]deploy.Value{}
	for k, v := range res.Servers[i].Args {
		s.Args[k] = v
	}
	s.Args[flag] = deploy.Known(value, s.Span)
	out.Servers[i] = &s
	// The deployments hold the server too.
	out.Deployments = append([]deploy.Deployment(nil), res.Deployments...)
	for d := range out.Deployments {
		servers := append([]*deploy.Server(nil), out.Deployments[d].Servers...)
		for k, srv := range servers {
			if srv == res.Servers[i] {
				servers[k] = &s
			}
		}
		out.Deployments[d].Servers = servers
	}
	return &out
}

// setReplicas sets the replica count of a copy of server i.
func setReplicas(res *analysis.Result, i, n int) *analysis.Result {
	out := setArg(res, i, "--kvlint-test-marker", "x")
	s := out.Servers[i]
	delete(s.Args, "--kvlint-test-marker")
	s.Replicas = deploy.Known(strconv.Itoa(n), s.Span)
	return out
}
