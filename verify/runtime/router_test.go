package runtime

import "testing"

func TestPrefixAwareRoutingFollowsTheCache(t *testing.T) {
	prompt := words(30, 800)
	run := func(policy string) (RequestRecord, RequestRecord) {
		sc := twoTenants()
		sc.Router.Policy = policy
		sc.Prefill[0].Count = 2
		sc.Workload.Script = []ScriptedRequest{
			{Label: "first", Tenant: "acme", Prompt: prompt, MaxTokens: 2},
			{Label: "second", AtMs: 500, Tenant: "acme", Prompt: prompt + " more", MaxTokens: 2},
		}
		res := mustRun(t, sc)
		return byLabel(t, res, "first"), byLabel(t, res, "second")
	}
	a, b := run("round_robin")
	if a.Prefill == b.Prefill || b.CachedTokens != 0 {
		t.Errorf("round robin: %s then %s, %d cached; want alternating workers and a miss", a.Prefill, b.Prefill, b.CachedTokens)
	}
	a, b = run("prefix_aware")
	if a.Prefill != b.Prefill || b.CachedTokens == 0 {
		t.Errorf("prefix aware: %s then %s, %d cached; want the same worker and a hit", a.Prefill, b.Prefill, b.CachedTokens)
	}
	if a.BootstrapRoom == b.BootstrapRoom || a.BootstrapRoom>>63 != 0 {
		t.Errorf("bootstrap rooms %d and %d: want distinct 63-bit values", a.BootstrapRoom, b.BootstrapRoom)
	}
}
