package rules

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// TestEvaluateInBatchesKeepsIndicesAndDeployments puts the incident's PD
// deployment after more servers than one batch holds: its findings must
// still name the right servers, and the deployment rules must still see the
// prefill and decode servers together.
func TestEvaluateInBatchesKeepsIndicesAndDeployments(t *testing.T) {
	n := batchServers*2 + 7
	servers, est := manyServers(n)
	pd, pdEst, pdSettings := incidentPD(t, true, deploy.DefaultIsolation())
	ds := deploy.Group(servers, nil)
	for i := range ds {
		ds[i].Tenancy = deploy.TenancyMulti
	}
	ds = append(ds, pdSettings.Deployments...)
	servers = append(servers, pd...)
	est = append(est, pdEst...)

	bs, err := batches(servers, est, Settings{Deployments: ds})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) < 3 {
		t.Fatalf("%d batches for %d servers, want at least 3", len(bs), len(servers))
	}
	findings, err := engine(t).Evaluate(context.Background(), servers, est, Settings{Tenancy: deploy.TenancyMulti, Deployments: ds})
	if err != nil {
		t.Fatal(err)
	}
	perServer := map[int]int{}
	var pdGot []string
	for _, f := range findings {
		if f.Server < n {
			perServer[f.Server]++
			if f.Span.File != servers[f.Server].Span.File {
				t.Errorf("%s for server %d is in %s, want %s", f.Rule, f.Server, f.Span.File, servers[f.Server].Span.File)
			}
			continue
		}
		if f.Rule != "KV105" {
			pdGot = append(pdGot, fmt.Sprintf("%s %s %d", f.Rule, f.Severity, f.Server-n))
		}
	}
	// Every one of the identical servers draws the same findings (KV101,
	// KV104, KV402, KV403 and the multi-tenant ones), whichever batch it is in.
	for i := range n {
		if perServer[i] < 4 || perServer[i] != perServer[0] {
			t.Fatalf("server %d has %d findings, server 0 %d", i, perServer[i], perServer[0])
		}
	}
	sort.Strings(pdGot)
	want := []string{"KV101 critical 1", "KV104 high 1", "KV301 high 0"}
	if fmt.Sprint(pdGot) != fmt.Sprint(want) {
		t.Errorf("PD deployment findings %q, want %q", pdGot, want)
	}
}
