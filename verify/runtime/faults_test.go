package runtime

import (
	"slices"
	"strings"
	"testing"
)

func threeTenants() []Tenant {
	return []Tenant{{Name: "acme", CacheSalt: "acme"}, {Name: "globex", CacheSalt: "globex"}, {Name: "initech", CacheSalt: "initech"}}
}

// faultCases are workloads that reach each path, a hypothesis (fault) or an engine
// release's mechanisms. Each must leak with its path on and deliver nothing foreign with
// it off.
var faultCases = []struct {
	name   string
	fault  Fault
	engine []Mechanism
	sc     func() Scenario
}{
	{"stale pages after retraction", FaultStalePages, nil, func() Scenario {
		// Long outputs outgrow the 512 reserved tokens: decode retracts under pressure.
		return Scenario{
			Name: "retract", Seed: 1,
			Prefill: []Worker{{PoolTokens: 16384, PageSize: 64, ContextLength: 8192}},
			Decode:  []Worker{{PoolTokens: 4096, PageSize: 64, ContextLength: 8192, MaxRunningRequests: 16}},
			Workload: Workload{Tenants: threeTenants(), Requests: 100, SharedPrefixTokens: 64,
				PromptTokens: IntRange{200, 600}, MaxTokens: 600, Arrival: Arrival{Mode: "closed", Concurrency: 8}},
		}
	}},
	{"a prefill abort still transfers (sglang#30233)", "", []Mechanism{MechAbortStillTransfers}, func() Scenario {
		// The prefill pool rejects inputs the larger decode pool accepts.
		return Scenario{
			Name: "abort", Seed: 2,
			Prefill: []Worker{{PoolTokens: 2048, PageSize: 64, ContextLength: 4096}},
			Decode:  []Worker{{PoolTokens: 16384, PageSize: 64, ContextLength: 4096, MaxRunningRequests: 16}},
			Workload: Workload{Tenants: threeTenants(), Requests: 100, SharedPrefixTokens: 64,
				PromptTokens: IntRange{500, 3000}, MaxTokens: 64, Arrival: Arrival{Mode: "closed", Concurrency: 8}},
		}
	}},
	{"cancel storm during KV transfer, before PR #17430", "", []Mechanism{MechReleaseInFlight, MechUncheckedRoom}, func() Scenario {
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
	{"salt never reaches the cache", "", []Mechanism{MechSaltDropped}, func() Scenario {
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
			if tc.fault != "" {
				sc.Faults = []Fault{tc.fault}
			}
			sc.Engine = tc.engine
			res := mustRun(t, sc)
			if res.Summary.CrossTenantLeaks == 0 {
				t.Fatalf("with %s%v: no cross-tenant canary delivered (%+v)", tc.fault, tc.engine, res.Summary)
			}
			for _, l := range res.Leaks {
				if l.Receiver == l.Owner {
					t.Fatalf("a tenant's own canary counted as a leak: %+v", l)
				}
			}
			t.Logf("%s%v: %d leaks over %d requests", tc.fault, tc.engine, res.Summary.CrossTenantLeaks, res.Summary.Requests)
		})
	}
}

func TestSaltDroppedExtractionNeedsTheFault(t *testing.T) {
	sc := faultCases[3].sc()
	clean := mustRun(t, sc)
	if clean.Extraction == nil || clean.Extraction.Success || clean.Extraction.Recovered != "" {
		t.Fatalf("with the salt honoured the attacker recovered %+v", clean.Extraction)
	}
	sc.Engine = []Mechanism{MechSaltDropped}
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
	// Every path on: none is reached, so still nothing leaks.
	sc.Faults = []Fault{FaultStalePages}
	sc.Engine = []Mechanism{MechAbortStillTransfers, MechReleaseInFlight, MechUncheckedRoom}
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
	if Fault("stale").known() || Fault("salt-dropped").known() {
		t.Error("an unknown fault name was accepted (an engine path is not a fault)")
	}
}

// TestRoomCheckTurnsAMisdeliveryIntoAnAbort: with pages released while the transfer is
// in flight, a release without PR #17430 hands the late first token to whoever holds the
// slot; with the check the holder is aborted instead, and no first token crosses.
func TestRoomCheckTurnsAMisdeliveryIntoAnAbort(t *testing.T) {
	sc := faultCases[2].sc()
	sc.Engine = []Mechanism{MechReleaseInFlight, MechUncheckedRoom}
	unchecked := mustRun(t, sc)
	sc = faultCases[2].sc()
	sc.Engine = []Mechanism{MechReleaseInFlight}
	checked := mustRun(t, sc)
	took := func(res *Result) int {
		n := 0
		for _, r := range res.Requests {
			for _, note := range r.Notes {
				if strings.Contains(note, "took the KV transfer") {
					n++
				}
			}
		}
		return n
	}
	if took(unchecked) == 0 {
		t.Fatal("without the room check no request took another's transfer")
	}
	if took(checked) != 0 {
		t.Fatalf("with the room check %d requests took another's transfer", took(checked))
	}
	aborted := 0
	for _, r := range checked.Requests {
		if strings.Contains(r.Error, "bootstrap_room mismatch") {
			aborted++
		}
	}
	if aborted == 0 {
		t.Fatal("with the room check no mismatch was detected")
	}
}

// TestLengthsFollowTheDeclaredDistribution: lengths sit around the median and never pass
// the maximum.
func TestLengthsFollowTheDeclaredDistribution(t *testing.T) {
	sc := Scenario{
		Name: "lengths", Seed: 9,
		Prefill: []Worker{{PoolTokens: 65536, PageSize: 16, ContextLength: 8192}},
		Decode:  []Worker{{PoolTokens: 65536, PageSize: 16, ContextLength: 8192, MaxRunningRequests: 64}},
		Workload: Workload{Tenants: threeTenants(), Requests: 400, SharedPrefixTokens: 32,
			Lengths: &Lengths{PromptMedian: 500, PromptMax: 2000, OutputMedian: 20, OutputMax: 60},
			Arrival: Arrival{Mode: "closed", Concurrency: 16}},
	}
	res := mustRun(t, sc)
	var prompts []int
	for _, r := range res.Requests {
		if r.PromptTokens > 2000 || r.MaxTokens > 60 {
			t.Fatalf("a request above the maximum: %d prompt, %d max_tokens", r.PromptTokens, r.MaxTokens)
		}
		prompts = append(prompts, r.PromptTokens)
	}
	slices.Sort(prompts)
	if med := prompts[len(prompts)/2]; med < 400 || med > 625 {
		t.Errorf("median prompt %d, want about 500", med)
	}
	if prompts[len(prompts)-1] < 1200 {
		t.Errorf("longest prompt %d: the tail towards the maximum is missing", prompts[len(prompts)-1])
	}
}

// TestExtractionIsPageAligned: the cache matches whole pages, so the attacker can confirm
// a guess only when it completes a page. With 2-token pages it guesses two bytes at once
// (alphabet² candidates per page) and still recovers the canary; at a deployment's
// 16-token page the guesses per page exceed any budget, and the attack says so rather
// than recovering anything.
func TestExtractionIsPageAligned(t *testing.T) {
	sc := faultCases[3].sc()
	sc.Engine = []Mechanism{MechSaltDropped}
	sc.Workload.Extraction.PageSize = 2
	sc.Workload.Extraction.MaxProbes = 100_000
	two := mustRun(t, sc)
	t.Logf("2-token pages: %+v", two.Extraction)
	if x := two.Extraction; x == nil || !x.Success || x.PageSize != 2 || x.Stopped != "" || x.Probes <= 40 {
		t.Fatalf("2-token pages: %+v", two.Extraction)
	}
	sc = faultCases[3].sc()
	sc.Engine = []Mechanism{MechSaltDropped}
	sc.Workload.Extraction.PageSize = 16
	sixteen := mustRun(t, sc)
	x := sixteen.Extraction
	if x == nil || x.Success || x.Recovered != "" || !strings.Contains(x.Stopped, "guesses exceed") {
		t.Fatalf("16-token pages: %+v", x)
	}
}
