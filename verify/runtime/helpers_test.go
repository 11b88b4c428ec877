package runtime

import (
	"math/rand/v2"
	"testing"
)

// twoTenants is a small PD deployment with two salted tenants and no workload yet.
func twoTenants() Scenario {
	return Scenario{
		Name:    "test",
		Seed:    1,
		Prefill: []Worker{{PoolTokens: 8192, PageSize: 16, ContextLength: 4096}},
		Decode:  []Worker{{PoolTokens: 16384, PageSize: 16, ContextLength: 4096, MaxRunningRequests: 8}},
		Workload: Workload{Tenants: []Tenant{
			{Name: "acme", CacheSalt: "s-acme", Canary: "CANARY-ACME-1111"},
			{Name: "globex", CacheSalt: "s-globex", Canary: "CANARY-GLOBEX-2222"},
		}},
	}
}

// words is n bytes of seeded lowercase filler.
func words(seed uint64, n int) string {
	return string(letters(rand.New(rand.NewPCG(seed, 1)), n))
}

func mustRun(t testing.TB, sc Scenario) *Result {
	t.Helper()
	res, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// byLabel finds the record of a scripted request.
func byLabel(t testing.TB, res *Result, label string) RequestRecord {
	t.Helper()
	for _, r := range res.Requests {
		if r.Label == label {
			return r
		}
	}
	t.Fatalf("no request labelled %q", label)
	return RequestRecord{}
}

// testSim builds a sim for white-box tests.
func testSim(t testing.TB, sc Scenario) *sim {
	t.Helper()
	full, err := sc.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return newSim(full)
}
