package runtime

import (
	"strings"
	"testing"
)

func TestPrefillAdmissionWaitsInsteadOfErroring(t *testing.T) {
	sc := twoTenants()
	sc.Prefill[0].PoolTokens = 1024
	sc.Workload.Script = []ScriptedRequest{
		{Label: "first", Tenant: "acme", Prompt: words(1, 700), MaxTokens: 4},
		{Label: "second", Tenant: "globex", Prompt: words(2, 700), MaxTokens: 4},
	}
	res := mustRun(t, sc)
	first, second := byLabel(t, res, "first"), byLabel(t, res, "second")
	if first.Outcome != "ok" || second.Outcome != "ok" {
		t.Fatalf("outcomes %s/%s (%q); a request that does not fit yet must wait, not fail", first.Outcome, second.Outcome, second.Error)
	}
	// 700 + 1 + 16 does not fit next to the first request's 704 tokens in 1024: the
	// second waits until the first's KV is cached (evictable), then evicts it.
	if second.TTFTUs <= first.TTFTUs {
		t.Errorf("second TTFT %d <= first %d; it should have waited", second.TTFTUs, first.TTFTUs)
	}
	if second.EvictedTokens == 0 || res.Summary.Evictions == 0 {
		t.Errorf("second request evicted %d tokens; admission should have counted the first's cached KV as evictable", second.EvictedTokens)
	}
}

func TestAllocationFailureLeavesReferenceCountsIntact(t *testing.T) {
	// Like vLLM's test_prefill_not_enough_free_blocks_with_computed_blocks: a request
	// that matches cached blocks but cannot be admitted must not keep them locked.
	sc := twoTenants()
	sc.Prefill[0].PoolTokens = 256
	sc.Prefill[0].ContextLength = 4096
	s := testSim(t, sc)
	w := s.prefills[0]
	prefix := []byte(words(4, 64))
	pages, _ := w.pool.alloc(4)
	w.cache.insert("s-acme", prefix, pages, 1)
	// Hold most of the pool so the request cannot fit.
	w.pool.alloc(w.pool.availablePages() - 2)
	before := w.cache.evictable
	r := s.newRequest("scripted", "", 0, append(append([]byte(nil), prefix...), words(5, 100)...), 1, "s-acme")
	r.ns, r.pPrompt, r.pState = "s-acme", r.prompt, pWaiting
	w.waiting = append(w.waiting, r)
	w.schedule()
	_, node := w.cache.match("s-acme", prefix)
	if node.lockRef != 0 || w.cache.evictable != before || w.cache.protected != 0 {
		t.Fatalf("after a refused admission: lock_ref %d, evictable %d (was %d), protected %d", node.lockRef, w.cache.evictable, before, w.cache.protected)
	}
	if len(w.waiting) != 1 || r.pState != pWaiting || w.busy {
		t.Fatal("the refused request left the waiting queue or started a batch")
	}
}

func TestUnservableRequestFailsInsteadOfLivelocking(t *testing.T) {
	// vLLM #52530's shape: the request passes every length check (900 + 200 <= 4096) but
	// the decode pool (1024) can never hold 900 tokens plus the 512 reserved ones.
	sc := twoTenants()
	sc.Decode[0].PoolTokens = 1024
	sc.Workload.Script = []ScriptedRequest{
		{Label: "huge", Tenant: "acme", Prompt: words(6, 900), MaxTokens: 100},
		{Label: "small", AtMs: 1, Tenant: "globex", Prompt: words(7, 100), MaxTokens: 8},
	}
	res := mustRun(t, sc)
	huge, small := byLabel(t, res, "huge"), byLabel(t, res, "small")
	if huge.Outcome != "timeout" || huge.Status != 500 || !strings.HasSuffix(huge.Error, "timed out after 300.0s in KVPoll.Bootstrapping") {
		t.Fatalf("unservable request: %s %d %q", huge.Outcome, huge.Status, huge.Error)
	}
	if res.Summary.Unfinished != 0 || res.Summary.StoppedAtTimeLimit {
		t.Fatal("the run did not finish on its own")
	}
	// FIFO pre-allocation: the small request waited behind it (head-of-line blocking).
	if small.Outcome != "ok" || small.LatencyUs < 300_000_000 {
		t.Fatalf("small request %s after %dus; it should complete, after the blocker timed out", small.Outcome, small.LatencyUs)
	}
}

func TestChunkedPrefillRunsInWholePageChunks(t *testing.T) {
	sc := twoTenants()
	sc.Prefill[0].ChunkedPrefillSize = 1000 // 992-token chunks: whole 16-token pages
	sc.Workload.Script = []ScriptedRequest{{Label: "long", Tenant: "acme", Prompt: words(20, 3000) + " {secret} ", MaxTokens: 10}}
	res := mustRun(t, sc)
	long := byLabel(t, res, "long")
	if long.Outcome != "ok" || !long.Correct || long.Output != "{secret} {" {
		t.Fatalf("chunked request: %s correct=%v output %q", long.Outcome, long.Correct, long.Output)
	}
	// 3010 tokens: 992 + 992 + 992 + 34.
	if steps := res.Workers[0].Steps; steps != 4 {
		t.Fatalf("prefill took %d steps, want 4 chunks", steps)
	}
}
