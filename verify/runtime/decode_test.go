package runtime

import (
	"slices"
	"testing"
)

// runningReq puts a request in the decode batch with one page and writePos on page 1.
func runningReq(t *testing.T, w *decodeWorker, id, prompt, out int) *request {
	t.Helper()
	pages, ok := w.pool.alloc(1)
	if !ok {
		t.Fatal("pool full")
	}
	r := &request{id: id, prompt: make([]byte, prompt), out: make([]byte, out), maxNewEff: 100, dPages: pages, slot: -1}
	w.setState(r, dRunning)
	w.running = append(w.running, r)
	return r
}

func decodeOnly(t *testing.T, pages int) (*sim, *decodeWorker) {
	sc := twoTenants()
	sc.Decode[0].PoolTokens = pages * 16
	sc.Decode[0].ContextLength = 64
	sc.Prefill[0].ContextLength = 64
	s := testSim(t, sc)
	return s, s.decodes[0]
}

func TestRetractionOrderFewestOutputThenLongestInput(t *testing.T) {
	cases := []struct {
		name      string
		pages     int
		retracted []int
		kept      []int
	}{
		// Each request writes its next KV on a new page; the pool lacks pages.
		{"one short", 4, []int{3}, []int{1, 2}},
		{"two short", 3, []int{3, 2}, []int{1}},
	}
	for _, tc := range cases {
		_, w := decodeOnly(t, tc.pages)
		runningReq(t, w, 2, 15, 2) // 2 outputs, shorter input
		runningReq(t, w, 1, 12, 5) // most outputs: kept longest
		runningReq(t, w, 3, 16, 2) // 2 outputs, longest input: retracted first
		w.makeRoom()
		var gotR, gotK []int
		for _, r := range w.retracted {
			gotR = append(gotR, r.id)
		}
		for _, r := range w.running {
			gotK = append(gotK, r.id)
		}
		if !slices.Equal(gotR, tc.retracted) || !slices.Equal(gotK, tc.kept) {
			t.Errorf("%s: retracted %v kept %v; want %v and %v", tc.name, gotR, gotK, tc.retracted, tc.kept)
		}
		for _, r := range w.retracted {
			if r.dPages != nil || len(r.host) != r.fillLen() || r.retractions != 1 {
				t.Errorf("%s: retracted request %d kept pages %v / offloaded %d cells", tc.name, r.id, r.dPages, len(r.host))
			}
		}
	}
}

func TestLastRequestIsAbortedWhenNothingFits(t *testing.T) {
	s, w := decodeOnly(t, 1)
	r := runningReq(t, w, 0, 15, 2)
	s.reqs = append(s.reqs, r)
	w.makeRoom()
	if !r.done || r.outcome != "aborted" || r.status != 500 || r.errMsg != oomAbortMessage {
		t.Fatalf("last request: done %v %s %d %q", r.done, r.outcome, r.status, r.errMsg)
	}
	if len(w.running) != 0 || w.aborts != 1 || w.pool.availablePages() != 1 {
		t.Fatalf("after the abort: running %d, aborts %d, free pages %d", len(w.running), w.aborts, w.pool.availablePages())
	}
}

func TestForcedRetractionKeepsOutputCorrect(t *testing.T) {
	sc := twoTenants()
	sc.Decode[0].TestRetractInterval = 3
	sc.Workload.Requests = 24
	sc.Workload.PromptTokens = IntRange{Min: 100, Max: 400}
	sc.Workload.MaxTokens = 40
	sc.Workload.Arrival = Arrival{Mode: "closed", Concurrency: 6}
	res := mustRun(t, sc)
	s := res.Summary
	if s.Retractions == 0 {
		t.Fatal("the forced-retraction knob retracted nothing")
	}
	if s.OK != 24 || s.IncorrectOutputs != 0 || s.CrossTenantLeaks != 0 {
		t.Fatalf("healthy retraction: ok %d incorrect %d leaks %d; want 24 0 0", s.OK, s.IncorrectOutputs, s.CrossTenantLeaks)
	}
}
