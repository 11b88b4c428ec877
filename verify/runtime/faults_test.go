package runtime

import (
	"strings"
	"testing"
)

func threeTenants() []Tenant {
	return []Tenant{{Name: "acme", CacheSalt: "acme"}, {Name: "globex", CacheSalt: "globex"}, {Name: "initech", CacheSalt: "initech"}}
}

// faultCases are workloads that reach each fault's path. Each must leak with its fault
// on and deliver nothing foreign with it off.
var faultCases = []struct {
	name  string
	fault Fault
	sc    func() Scenario
}{
	{"stale pages after retraction", FaultStalePages, func() Scenario {
		// Long outputs outgrow the 512 reserved tokens: decode retracts under pressure.
		return Scenario{
			Name: "retract", Seed: 1,
			Prefill: []Worker{{PoolTokens: 16384, PageSize: 64, ContextLength: 8192}},
			Decode:  []Worker{{PoolTokens: 4096, PageSize: 64, ContextLength: 8192, MaxRunningRequests: 16}},
			Workload: Workload{Tenants: threeTenants(), Requests: 100, SharedPrefixTokens: 64,
				PromptTokens: IntRange{200, 600}, MaxTokens: 600, Arrival: Arrival{Mode: "closed", Concurrency: 8}},
		}
	}},
	{"stale pages after a prefill abort (sglang#30233)", FaultStalePages, func() Scenario {
		// The prefill pool rejects inputs the larger decode pool accepts.
		return Scenario{
			Name: "abort", Seed: 2,
			Prefill: []Worker{{PoolTokens: 2048, PageSize: 64, ContextLength: 4096}},
			Decode:  []Worker{{PoolTokens: 16384, PageSize: 64, ContextLength: 4096, MaxRunningRequests: 16}},
			Workload: Workload{Tenants: threeTenants(), Requests: 100, SharedPrefixTokens: 64,
				PromptTokens: IntRange{500, 3000}, MaxTokens: 64, Arrival: Arrival{Mode: "closed", Concurrency: 8}},
		}
	}},
	{"cancel storm during KV transfer", FaultCancelRace, func() Scenario {
		// A burst with 30% cancelled mid-transfer, on a prefill-bound deployment whose
		// decode slots run out before its pool does.
		return Scenario{
			Name: "cancel", Seed: 3,
			Timing:  Timing{PrefillPerTokenUs: 100},
			Prefill: []Worker{{PoolTokens: 32768, PageSize: 64, ContextLength: 4096}},
			Decode:  []Worker{{PoolTokens: 65536, PageSize: 64, ContextLength: 4096, MaxRunningRequests: 4}},
			Workload: Workload{Tenants: threeTenants(), Requests: 200, SharedPrefixTokens: 64,
				PromptTokens: IntRange{300, 1500}, MaxTokens: 32, Arrival: Arrival{Mode: "burst"},
				Cancel: Cancel{Fraction: 0.3, Stage: "transfer"}},
		}
	}},
	{"salt never reaches the cache", FaultSaltDropped, func() Scenario {
		// Tenants salt their requests; an attacker reads the victim's canary out of the
		// shared cache through cached_tokens.
		return Scenario{
			Name: "salt", Seed: 4,
			Prefill: []Worker{{PoolTokens: 32768, PageSize: 1, ContextLength: 4096, CacheReport: true}},
			Decode:  []Worker{{PoolTokens: 32768, PageSize: 1, ContextLength: 4096}},
			Workload: Workload{
				Tenants:  append(threeTenants(), Tenant{Name: "mallory", CacheSalt: "mallory", Weight: new(int)}),
				Requests: 30, SharedPrefixTokens: 128, PromptTokens: IntRange{300, 600}, MaxTokens: 16,
				Arrival:    Arrival{Mode: "closed", Concurrency: 4},
				Extraction: &Extraction{Attacker: "mallory", Victim: "acme"}},
		}
	}},
}

func TestEachFaultLeaksOnlyWhenSwitchedOn(t *testing.T) {
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			healthy := mustRun(t, tc.sc()).Summary
			if healthy.CrossTenantLeaks != 0 || healthy.IncorrectOutputs != 0 {
				t.Fatalf("without the fault: %d leaks, %d incorrect outputs; want 0 and 0", healthy.CrossTenantLeaks, healthy.IncorrectOutputs)
			}
			sc := tc.sc()
			sc.Faults = []Fault{tc.fault}
			res := mustRun(t, sc)
			if res.Summary.CrossTenantLeaks == 0 {
				t.Fatalf("with %s: no cross-tenant canary delivered (%+v)", tc.fault, res.Summary)
			}
			for _, l := range res.Leaks {
				if l.Receiver == l.Owner {
					t.Fatalf("a tenant's own canary counted as a leak: %+v", l)
				}
			}
			t.Logf("%s: %d leaks over %d requests", tc.fault, res.Summary.CrossTenantLeaks, res.Summary.Requests)
		})
	}
}

func TestSaltDroppedExtractionNeedsTheFault(t *testing.T) {
	sc := faultCases[3].sc()
	clean := mustRun(t, sc)
	if clean.Extraction == nil || clean.Extraction.Success || clean.Extraction.Recovered != "" {
		t.Fatalf("with the salt honoured the attacker recovered %+v", clean.Extraction)
	}
	sc.Faults = []Fault{FaultSaltDropped}
	leaky := mustRun(t, sc)
	if leaky.Extraction == nil || !leaky.Extraction.Success {
		t.Fatalf("with the salt dropped the attacker failed: %+v", leaky.Extraction)
	}
	if leaky.Summary.ForeignReadReqs == 0 {
		t.Fatal("shared namespace but no white-box foreign reads recorded")
	}
}

func TestIncidentConfigurationDecidesWhetherTheFaultMatters(t *testing.T) {
	incident, err := LoadScenario("testdata/incident.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sized, err := LoadScenario("testdata/incident-sized.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Correct semantics: the pressure path is reached, nothing leaks.
	s := mustRun(t, incident).Summary
	pressure := s.Retractions + s.Rejected + s.Clipped + s.TimedOut + s.Aborted
	if pressure == 0 || s.CrossTenantLeaks != 0 {
		t.Fatalf("incident without faults: pressure %d, leaks %d; want >0 and 0", pressure, s.CrossTenantLeaks)
	}
	// If the pressure path misbehaves as in the incident, responses cross tenants.
	incident.Faults = []Fault{FaultStalePages}
	if s := mustRun(t, incident).Summary; s.CrossTenantLeaks == 0 {
		t.Fatal("incident under stale-pages: no cross-tenant delivery")
	}
	// Sized for context x concurrency, the same workload never reaches that path.
	sized.Faults = []Fault{FaultStalePages}
	s = mustRun(t, sized).Summary
	if s.Retractions != 0 || s.Rejected != 0 || s.TimedOut != 0 || s.CrossTenantLeaks != 0 || s.OK != s.Requests {
		t.Fatalf("sized pool under stale-pages: %+v; want no pressure and no leaks", s)
	}
}

func TestHealthyScenarioDeliversNothingForeign(t *testing.T) {
	sc, err := LoadScenario("testdata/healthy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, sc)
	s := res.Summary
	if s.OK != s.Requests || s.CrossTenantLeaks != 0 || s.ForeignReadPages != 0 || s.IncorrectOutputs != 0 || s.Retractions != 0 {
		t.Fatalf("healthy scenario: %+v", s)
	}
	// Every fault on: none of their paths is reached, so still nothing leaks.
	sc.Faults = []Fault{FaultStalePages, FaultCancelRace, FaultSaltDropped}
	if s := mustRun(t, sc).Summary; s.CrossTenantLeaks != 0 || s.Retractions != 0 || s.IncorrectOutputs != 0 {
		t.Fatalf("healthy scenario with every fault on: %+v", s)
	}
}

func TestFaultReferences(t *testing.T) {
	for _, f := range faultNames() {
		if FaultReference(Fault(f)) == "" {
			t.Errorf("fault %s has no reference", f)
		}
	}
	if Fault("stale").known() {
		t.Error("an unknown fault name was accepted")
	}
}

// TestExtractionIsPageAligned: the cache matches whole pages, so the attacker can confirm
// a guess only when it completes a page. With 2-token pages it guesses two bytes at once
// (alphabet² candidates per page) and still recovers the canary; at a deployment's
// 16-token page the guesses per page exceed any budget, and the attack says so rather
// than recovering anything.
func TestExtractionIsPageAligned(t *testing.T) {
	sc := faultCases[3].sc()
	sc.Faults = []Fault{FaultSaltDropped}
	sc.Workload.Extraction.PageSize = 2
	sc.Workload.Extraction.MaxProbes = 100_000
	two := mustRun(t, sc)
	t.Logf("2-token pages: %+v", two.Extraction)
	if x := two.Extraction; x == nil || !x.Success || x.PageSize != 2 || x.Stopped != "" || x.Probes <= 40 {
		t.Fatalf("2-token pages: %+v", two.Extraction)
	}
	sc = faultCases[3].sc()
	sc.Faults = []Fault{FaultSaltDropped}
	sc.Workload.Extraction.PageSize = 16
	sixteen := mustRun(t, sc)
	x := sixteen.Extraction
	if x == nil || x.Success || x.Recovered != "" || !strings.Contains(x.Stopped, "guesses exceed") {
		t.Fatalf("16-token pages: %+v", x)
	}
}
