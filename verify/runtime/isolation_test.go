package runtime

import "testing"

// TestRadixIsolationWithPairedPositiveControl mirrors vLLM's test_cache_key_salting and
// SGLang PR #23300's repro, with the positive control leakage.md §0.3 asks for: a test
// that only checks "different key, no reuse" also passes when nothing is cached at all.
func TestRadixIsolationWithPairedPositiveControl(t *testing.T) {
	prompt := words(9, 600)
	cases := []struct {
		name      string
		isolation string
		radixOff  bool
		engine    []Mechanism
		same      bool // the victim's repeat hits (positive control)
		cross     bool // another tenant's identical prompt hits
	}{
		{"cache_salt honoured", "cache_salt", false, nil, true, false},
		{"key derived from the tenant", "tenant", false, nil, true, false},
		{"no isolation key", "none", false, nil, true, true},
		{"salt dropped before the cache", "cache_salt", false, []Mechanism{MechSaltDropped}, true, true},
		{"tenant key dropped before the cache", "tenant", false, []Mechanism{MechSaltDropped}, true, true},
		{"prefix cache off", "cache_salt", true, nil, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := twoTenants()
			sc.Prefill[0].Isolation = tc.isolation
			if tc.radixOff {
				off := false
				sc.Prefill[0].RadixCache = &off
			}
			sc.Engine = tc.engine
			sc.Workload.Script = []ScriptedRequest{
				{Label: "victim", Tenant: "acme", Prompt: prompt, MaxTokens: 4},
				{Label: "hit-same", AtMs: 1000, Tenant: "acme", Prompt: prompt, MaxTokens: 4},
				{Label: "hit-cross", AtMs: 2000, Tenant: "globex", Prompt: prompt, MaxTokens: 4},
				{Label: "miss", AtMs: 3000, Tenant: "globex", Prompt: words(10, 600), MaxTokens: 4},
			}
			res := mustRun(t, sc)
			same, cross, miss := byLabel(t, res, "hit-same"), byLabel(t, res, "hit-cross"), byLabel(t, res, "miss")
			if got := same.CachedTokens > 0; got != tc.same {
				t.Errorf("positive control: cached %d tokens, want hit=%v", same.CachedTokens, tc.same)
			}
			if got := cross.CachedTokens > 0; got != tc.cross {
				t.Errorf("cross-tenant: cached %d tokens, want hit=%v", cross.CachedTokens, tc.cross)
			}
			if tc.same && same.CachedTokens != 592 {
				t.Errorf("a 600-token prompt in 16-token pages should reuse 592 tokens, got %d", same.CachedTokens)
			}
			// White-box: a cross-tenant hit reads pages the victim's tenant wrote.
			if got := cross.ForeignReadPages > 0; got != tc.cross {
				t.Errorf("cross-tenant foreign page reads %d, want >0 = %v", cross.ForeignReadPages, tc.cross)
			}
			// Black-box: a hit skips the prefill of the cached tokens, so it is faster.
			if tc.same && same.TTFTUs >= miss.TTFTUs {
				t.Errorf("hit TTFT %d not below miss TTFT %d", same.TTFTUs, miss.TTFTUs)
			}
			if res.Summary.CrossTenantLeaks != 0 {
				t.Errorf("an exact-prefix hit delivered a foreign canary: %+v", res.Leaks)
			}
		})
	}
}
