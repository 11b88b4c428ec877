package runtime

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// slotsPerRunning sizes the decode's request slots (DecodeReqToTokenPool plus the metadata
// buffers): pre-allocated and in-transfer requests may exceed max_running_requests
// (disaggregation/decode.py L108-120). The exact pre-allocation headroom is an assumption.
const slotsPerRunning = 3

// oomAbortMessage is what PR #19881 answers when even the last request cannot fit.
const oomAbortMessage = "Out of memory even after retracting all other requests in the decode batch. Aborting the last request."

// decodeWorker is a PD decode server: requests wait in the pre-allocation queue until
// their pages fit next to the reserved room of every active request, receive their KV,
// wait for a place in the running batch, and decode one token per step. When a step has
// no page left, requests are retracted in SGLang's order; the last one is aborted.
type decodeWorker struct {
	s           *sim
	idx         int
	name        string
	cfg         Worker
	pool        *pool
	rng         *rand.Rand
	slots       []*request
	freeSlots   []int
	prealloc    []*request
	retracted   []*request
	waiting     []*request
	running     []*request
	inTransfer  int
	busy        bool
	kicked      bool
	steps       int
	retractions int
	aborts      int
	peakRunning int
	decoded     int64
	// scheduleFn and finishStepFn are the methods bound once: a method value allocates a
	// closure each time it is taken, once per queued event.
	scheduleFn   func()
	finishStepFn func()
	batchBuf     []*request // finishStep's copy of the batch, kept between steps
}

func newDecodeWorker(s *sim, idx int, name string, cfg Worker) *decodeWorker {
	w := &decodeWorker{s: s, idx: idx, name: name, cfg: cfg, rng: newRand(s.sc.Seed, "decode/"+name)}
	w.scheduleFn, w.finishStepFn = w.schedule, w.finishStep
	w.pool = newPool(cfg.PoolTokens, cfg.PageSize, cfg.ZeroPagesOnAlloc)
	n := cfg.MaxRunningRequests * slotsPerRunning
	w.slots = make([]*request, n)
	w.freeSlots = make([]int, n)
	for i := range w.freeSlots {
		w.freeSlots[i] = i
	}
	return w
}

func (w *decodeWorker) schedulerCheck(r *request) string { return schedulerInputCheck(w.cfg, r) }

// add queues a request for pre-allocation, after init_req_max_new_tokens has silently
// clipped its output budget (managers/scheduler.py, #25126): max(0, min(requested,
// max_req_len - input - 1, max_total_tokens - ceil_page(input) - page_size - 1)).
func (w *decodeWorker) add(r *request) {
	maxReqLen, _ := limits(w.cfg)
	page := w.cfg.PageSize
	paged := pagesFor(len(r.prompt), page) * page
	r.maxNewEff = max(0, min(r.maxNew, maxReqLen-len(r.prompt)-1, w.cfg.PoolTokens-paged-page-1))
	r.clipped = r.maxNewEff < r.maxNew
	w.setState(r, dPrealloc)
	w.prealloc = append(w.prealloc, r)
	w.kick()
}

func (w *decodeWorker) setState(r *request, st dstate) {
	if r.dState == dTransfer {
		w.inTransfer--
	}
	if st == dTransfer {
		w.inTransfer++
	}
	// The deployment's running requests, at one instant over every decode worker: a sum
	// of each worker's own peak would add peaks reached at different times.
	if r.dState == dRunning && st != dRunning {
		w.s.running--
	}
	if st == dRunning && r.dState != dRunning {
		w.s.running++
		w.s.peakRunning = max(w.s.peakRunning, w.s.running)
	}
	r.dState = st
}

func (w *decodeWorker) kick() {
	if w.busy || w.kicked {
		return
	}
	w.kicked = true
	w.s.clock.after(0, w.scheduleFn)
}

// allocatable is _allocatable_token_budgets: free tokens minus the larger of the reserve
// for every active request and the room the biggest running request may still need, minus
// what retracted requests need to come back.
func (w *decodeWorker) allocatable(countRetracted bool) int {
	retractable := 0
	biggest := 0
	for _, r := range w.running {
		retractable += len(r.prompt) + len(r.out)
		biggest = max(biggest, min(r.maxNewEff, clipMaxNewTokens)+len(r.prompt))
	}
	needSingle := 0
	if len(w.running) > 0 {
		needSingle = biggest - retractable
	}
	active := len(w.running) + w.inTransfer + len(w.waiting)
	reserved := w.cfg.NumReservedDecodeTokens * active
	a := w.pool.availableTokens() - max(reserved, needSingle)
	if countRetracted {
		for _, r := range w.retracted {
			a -= w.required(r.fillLen())
		}
	}
	return a
}

// required is what a request of fill tokens needs at pre-allocation: its pages plus the
// reserved decode tokens.
func (w *decodeWorker) required(fill int) int {
	return pagesFor(fill, w.cfg.PageSize)*w.cfg.PageSize + w.cfg.NumReservedDecodeTokens
}

// admit resumes retracted requests, then pre-allocates queued ones in FIFO order
// (pop_preallocated); the first request that does not fit stops the loop.
func (w *decodeWorker) admit() {
	for len(w.retracted) > 0 {
		r := w.retracted[0]
		if w.required(r.fillLen()) > w.allocatable(false) {
			break
		}
		pages, ok := w.pool.alloc(pagesFor(r.fillLen(), w.cfg.PageSize))
		if !ok {
			break
		}
		r.dPages = pages
		for pos, c := range r.host {
			w.pool.writeAt(r.dPages, pos, c)
		}
		r.host = nil
		r.seenValid = false
		w.retracted = w.retracted[1:]
		w.setState(r, dWaiting)
		w.waiting = append(w.waiting, r)
	}
	retractable := 0
	for _, r := range w.running {
		retractable += len(r.prompt) + len(r.out)
	}
	for len(w.prealloc) > 0 && len(w.freeSlots) > 0 {
		r := w.prealloc[0]
		need := max(w.required(len(r.prompt)), len(r.prompt)+min(r.maxNewEff, clipMaxNewTokens)-retractable)
		if need > w.allocatable(true) {
			break
		}
		pages, ok := w.pool.alloc(pagesFor(len(r.prompt), w.cfg.PageSize))
		if !ok {
			break
		}
		slot := w.freeSlots[0]
		w.freeSlots = w.freeSlots[1:]
		w.slots[slot] = r
		r.slot, r.dPages = slot, pages
		w.prealloc = w.prealloc[1:]
		w.setState(r, dTransfer)
		timeout := w.s.sc.Timing.WaitingTimeoutSec
		w.s.clock.timer(int64(timeout*1e6), func() {
			if r.dState == dTransfer && !r.done {
				msg := fmt.Sprintf("Request %d timed out after %.1fs in KVPoll.WaitingForInput", r.room, timeout)
				w.s.logf(w.name, "%s", msg)
				w.s.drop(r, "timeout", 500, msg)
			}
		})
		r.pw.bootstrapped(r)
	}
}

// schedule runs one decode step: admit, fill the running batch, make room (retracting if
// needed), and decode.
func (w *decodeWorker) schedule() {
	w.kicked = false
	if w.busy {
		return
	}
	w.admit()
	for len(w.waiting) > 0 && len(w.running) < w.cfg.MaxRunningRequests {
		r := w.waiting[0]
		w.waiting = w.waiting[1:]
		if r.maxNewEff == 0 {
			w.release(r)
			w.s.finish(r, "ok", 200, "")
			continue
		}
		r.joined = len(r.out) == 0
		w.setState(r, dRunning)
		w.running = append(w.running, r)
		if r.joined {
			w.s.stage(r, "decode")
		}
	}
	w.peakRunning = max(w.peakRunning, len(w.running))
	if len(w.running) == 0 {
		return
	}
	w.makeRoom()
	for _, r := range w.running {
		if w.needsPage(r) {
			r.dPages, _ = w.pool.appendAlloc(r.dPages, 1)
		}
	}
	if len(w.running) == 0 {
		w.kick()
		return
	}
	w.busy = true
	w.steps++
	t := w.s.sc.Timing
	kv := 0
	for _, r := range w.running {
		kv += writePos(r) + 1
	}
	d := w.s.cost(w.rng, t.DecodeStepUs+float64(len(w.running))*t.DecodePerRequestUs+float64(kv)*t.DecodePerContextTokenUs)
	w.s.clock.after(d, w.finishStepFn)
}

// writePos is the position whose KV a running request writes this step: that of its last
// output token (the first one came from the prefill and needs no decode KV yet).
func writePos(r *request) int { return len(r.prompt) + len(r.out) - 1 }

func (w *decodeWorker) needsPage(r *request) bool {
	return !r.joined && writePos(r)/w.cfg.PageSize >= len(r.dPages)
}

func (w *decodeWorker) pagesNeeded(rs []*request) int {
	n := 0
	for _, r := range rs {
		if w.needsPage(r) {
			n++
		}
	}
	return n
}

// makeRoom is check_decode_mem plus retract_decode (managers/schedule_batch.py): requests
// are ordered from most to least worth keeping — most output tokens first, then shortest
// input (_get_decode_retraction_order, --retraction-policy length) — and retracted from
// the end until the rest fit. One request is always kept; if even it does not fit, it is
// aborted (PR #19881). A forced retraction every test_retract_interval steps models
// SGLANG_TEST_RETRACT.
func (w *decodeWorker) makeRoom() {
	forced := w.cfg.TestRetractInterval > 0 && (w.steps+1)%w.cfg.TestRetractInterval == 0 && len(w.running) > 1
	if w.pagesNeeded(w.running) <= w.pool.availablePages() && !forced {
		return
	}
	kept := slices.Clone(w.running)
	slices.SortStableFunc(kept, func(a, b *request) int {
		if len(a.out) != len(b.out) {
			return len(b.out) - len(a.out)
		}
		return len(a.prompt) - len(b.prompt)
	})
	retracted, gained := 0, 0
	for len(kept) > 1 {
		if w.pagesNeeded(kept) <= w.pool.availablePages() && !(forced && retracted == 0) {
			break
		}
		r := kept[len(kept)-1]
		kept = kept[:len(kept)-1]
		gained += len(r.dPages) * w.cfg.PageSize
		w.retract(r)
		retracted++
	}
	if len(kept) == 1 && w.pagesNeeded(kept) > w.pool.availablePages() {
		last := kept[0]
		kept = nil
		w.aborts++
		w.s.logf(w.name, "retract_decode: aborted last request %s due to OOM", last.rid)
		w.release(last)
		w.s.finish(last, "aborted", 500, oomAbortMessage)
	}
	w.running = kept
	if retracted > 0 {
		w.s.logf(w.name, "KV cache pool is full. Retract requests. #retracted_reqs: %d, #new_tokens_gained: %d", retracted, gained)
	}
}

// retract takes a request out of the batch. Healthy PD decode offloads its KV to host
// memory, frees the pages, and reloads the KV into new pages when the request resumes
// (disaggregation/decode.py, resume_retracted_reqs). Under stale-pages the pages are freed
// but the request keeps its page table and goes straight back to the waiting queue as if
// its KV were still there; by the time it runs again, new requests may own those pages.
func (w *decodeWorker) retract(r *request) {
	r.retractions++
	w.retractions++
	r.joined = false
	r.seenValid = false
	if w.s.faults.stalePages {
		w.pool.release(r.dPages)
		r.stale = true
		w.setState(r, dWaiting)
		w.waiting = append(w.waiting, r)
		return
	}
	{
		r.host = make([]cell, r.fillLen())
		for pos := range r.host {
			r.host[pos] = w.pool.cellAt(r.dPages, pos)
		}
		w.pool.release(r.dPages)
		r.dPages = nil
	}
	w.setState(r, dRetracted)
	w.retracted = append(w.retracted, r)
}

func (w *decodeWorker) finishStep() {
	w.busy = false
	self := func(r *request) int32 { return int32(r.tenant + 1) }
	// Iterate over a copy: finishing a request deletes it from w.running.
	batch := append(w.batchBuf[:0], w.running...)
	for _, r := range batch {
		if r.done || r.dState != dRunning {
			continue
		}
		if r.joined {
			r.joined = false
			w.emit(r, r.firstToken)
		} else {
			pos := writePos(r)
			var prev uint64
			if pos > 0 {
				prev = w.pool.cellAt(r.dPages, pos-1).hash
			}
			tok := r.out[len(r.out)-1]
			w.pool.writeAt(r.dPages, pos, cell{hash: cellHash(prev, tok, pos), tok: tok, writer: self(r)})
			w.noteOwnWrite(r, pos)
			w.emit(r, tokenAt(w.recitation(r, pos), len(r.out)))
		}
		if len(r.out) >= r.maxNewEff {
			w.running = slices.DeleteFunc(w.running, func(x *request) bool { return x == r })
			w.release(r)
			w.s.finish(r, "ok", 200, "")
		}
	}
	clear(batch)
	w.batchBuf = batch[:0]
	w.kick()
}

func (w *decodeWorker) emit(r *request, tok byte) {
	r.out = append(r.out, tok)
	w.decoded++
	if len(r.out) == 1 {
		r.firstTok = w.s.clock.now
	}
}

// recitation returns what the model says for r, re-reading its context when any of its
// pages changed since the last read (another request wrote into it).
func (w *decodeWorker) recitation(r *request, pos int) []byte {
	fresh := r.seenValid && len(r.seen) == len(r.dPages)
	for i := 0; fresh && i < len(r.dPages); i++ {
		fresh = r.seen[i] == w.pool.version[r.dPages[i]]
	}
	if fresh {
		return r.recit
	}
	at := func(i int) cell { return w.pool.cellAt(r.dPages, i) }
	r.recit = reciteAppend(r.recit, len(r.prompt), at)
	scanReads(&r.reads, w.pool, r.dPages, pos+1, int32(r.tenant+1), "decode", w.name, w.s.tenantName)
	r.decodePages = max(r.decodePages, len(r.dPages))
	r.seen = r.seen[:0]
	for _, pg := range r.dPages {
		r.seen = append(r.seen, w.pool.version[pg])
	}
	r.seenValid = true
	return r.recit
}

// noteOwnWrite keeps a request's own KV write from looking like someone else's.
func (w *decodeWorker) noteOwnWrite(r *request, pos int) {
	if !r.seenValid {
		return
	}
	i := pos / w.cfg.PageSize
	switch {
	case i < len(r.seen) && r.seen[i]+1 == w.pool.version[r.dPages[i]]:
		r.seen[i]++
	case i == len(r.seen) && i < len(r.dPages):
		r.seen = append(r.seen, w.pool.version[r.dPages[i]])
	}
}

// landed handles a transfer's completion signal on its slot.
func (w *decodeWorker) landed(x *transfer) {
	r := x.req
	var holder *request
	if x.slot >= 0 && x.slot < len(w.slots) {
		holder = w.slots[x.slot]
	}
	if holder == r {
		if r.releaseLand || r.done {
			w.release(r)
			return
		}
		if r.dState == dTransfer {
			r.firstToken = x.firstToken
			w.setState(r, dWaiting)
			w.waiting = append(w.waiting, r)
			w.kick()
		}
		return
	}
	// The slot changed hands while the transfer was in flight (release-in-flight). Before
	// PR #17430 whoever holds it now and waits for its own KV takes this signal, and this
	// first token; since then the slot's bootstrap_room is compared with the holder's and
	// a mismatch aborts the holder (disaggregation/decode.py _commit_transfer_to_req).
	if holder != nil && holder.dState == dTransfer && !holder.done && !w.s.faults.uncheckedRoom {
		w.s.logf(w.name, "Context corruption detected: Request %s (bootstrap_room=%d) received metadata from bootstrap_room=%d", holder.rid, holder.room, r.room)
		w.s.drop(holder, "aborted", 500, "Metadata corruption detected - bootstrap_room mismatch")
		return
	}
	if holder != nil && holder.dState == dTransfer && !holder.done {
		holder.firstToken = x.firstToken
		holder.notes = append(holder.notes, fmt.Sprintf("took the KV transfer of request %d for its own", r.id))
		w.setState(holder, dWaiting)
		w.waiting = append(w.waiting, holder)
		w.kick()
	}
}

// release frees a request's pages and slot.
func (w *decodeWorker) release(r *request) {
	w.pool.release(r.dPages)
	r.dPages = nil
	r.host = nil
	if r.slot >= 0 && r.slot < len(w.slots) && w.slots[r.slot] == r {
		w.slots[r.slot] = nil
		w.freeSlots = append(w.freeSlots, r.slot)
	}
	r.slot = -1
	w.setState(r, dDone)
	w.kick()
}

// drop removes a request that ends early. With its transfer in flight, a healthy decode
// keeps the slot and pages until the transfer lands; on a release with release-in-flight
// it lets go at once.
func (w *decodeWorker) drop(r *request) {
	remove := func(q []*request) []*request {
		return slices.DeleteFunc(q, func(x *request) bool { return x == r })
	}
	switch r.dState {
	case dPrealloc:
		w.prealloc = remove(w.prealloc)
		w.setState(r, dDone)
		w.kick() // the queue's head may have changed
		return
	case dTransfer:
		if r.pState == pTransfer && !w.s.faults.releaseInFlight {
			r.releaseLand = true
			return
		}
	case dWaiting:
		w.waiting = remove(w.waiting)
	case dRunning:
		w.running = remove(w.running)
	case dRetracted:
		w.retracted = remove(w.retracted)
	default:
		return
	}
	w.release(r)
}
