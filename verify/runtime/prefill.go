package runtime

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// clipMaxNewTokens is SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION.
const clipMaxNewTokens = 4096

// prefillWorker is a PD prefill server: a paged pool, a radix cache (or none), a bootstrap
// queue of requests waiting for their decode pages, a waiting queue served FCFS by the
// PrefillAdder, and at most one request being prefilled in chunks.
type prefillWorker struct {
	s         *sim
	idx       int
	name      string
	cfg       Worker
	pool      *pool
	cache     *radixCache
	rng       *rand.Rand
	bootstrap []*request
	waiting   []*request
	chunked   *request
	linkFree  int64 // when the KV link is free for the next transfer
	// scheduleFn is w.schedule bound once: a method value allocates a closure each time
	// it is taken, and kick takes it for every event it queues.
	scheduleFn func()
	busy       bool
	kicked     bool
	steps      int
	computed   int64
	cachedHit  int64
}

type chunkWork struct {
	r *request
	n int
}

func newPrefillWorker(s *sim, idx int, name string, cfg Worker) *prefillWorker {
	w := &prefillWorker{s: s, idx: idx, name: name, cfg: cfg, rng: newRand(s.sc.Seed, "prefill/"+name)}
	w.scheduleFn = w.schedule
	w.pool = newPool(cfg.PoolTokens, cfg.PageSize, cfg.ZeroPagesOnAlloc)
	if *cfg.RadixCache {
		w.cache = newRadixCache(w.pool, cfg.EvictionPolicy)
	}
	return w
}

// namespace is the isolation key this worker's cache files a request under. SGLang joins
// cache_salt and extra_key into RadixKey.extra_key (serving_base.py _compute_extra_key);
// "tenant" models a deployment that derives it from the authenticated tenant. On a
// release with salt-dropped the key never reaches the cache (sglang#23300).
func (w *prefillWorker) namespace(r *request) string {
	if w.s.faults.saltDropped {
		return ""
	}
	switch w.cfg.Isolation {
	case "none":
		return ""
	case "tenant":
		return "tenant:" + w.s.tenants[r.tenant].name
	}
	return r.salt
}

func (w *prefillWorker) schedulerCheck(r *request) string { return schedulerInputCheck(w.cfg, r) }

// add queues a request for bootstrap. abortMsg is set when the scheduler rejected it on a
// release with abort-still-transfers: as in sglang#30233, the abort truncates the input
// to one token (schedule_batch.py set_finish_with_abort) and the request still goes
// through the transfer, which the decode side takes for the whole prompt.
func (w *prefillWorker) add(r *request, abortMsg string) {
	r.pPrompt = r.prompt
	if abortMsg != "" {
		r.pPrompt = r.prompt[:1]
		r.notes = append(r.notes, "prefill aborted the request but the decode side was not told: "+abortMsg)
	}
	r.pState = pBootstrap
	w.bootstrap = append(w.bootstrap, r)
	timeout := int64(w.s.sc.Timing.BootstrapTimeoutSec * 1e6)
	w.s.clock.timer(timeout, func() {
		if r.pState == pBootstrap && !r.done {
			msg := fmt.Sprintf("Request %d timed out after %.1fs in KVPoll.Bootstrapping", r.room, w.s.sc.Timing.BootstrapTimeoutSec)
			w.s.logf(w.name, "%s", msg)
			w.s.drop(r, "timeout", 500, msg)
		}
	})
}

// bootstrapped is called when the decode side has sent its destination pages.
func (w *prefillWorker) bootstrapped(r *request) {
	if r.pState != pBootstrap {
		return
	}
	w.bootstrap = slices.DeleteFunc(w.bootstrap, func(x *request) bool { return x == r })
	r.pState = pWaiting
	w.waiting = append(w.waiting, r)
	w.kick()
}

func (w *prefillWorker) kick() {
	if w.busy || w.kicked {
		return
	}
	w.kicked = true
	w.s.clock.after(0, w.scheduleFn)
}

// schedule forms the next prefill batch (PrefillAdder, managers/schedule_policy.py) and
// runs it.
func (w *prefillWorker) schedule() {
	w.kicked = false
	if w.busy {
		return
	}
	chunking := w.cfg.ChunkedPrefillSize > 0
	remChunk := w.cfg.ChunkedPrefillSize
	if !chunking {
		remChunk = int(^uint(0) >> 2)
	}
	remInput := w.cfg.MaxPrefillTokens
	var batch []chunkWork
	if r := w.chunked; r != nil {
		left := len(r.pPrompt) - r.pComputed
		n := w.chunkOf(left, remChunk)
		batch = append(batch, chunkWork{r, n})
		remChunk -= n
		if n == left {
			w.chunked = nil // its last chunk: the rest of the budget is open to others
		}
	}
	reserved := 0
	for len(w.waiting) > 0 && remChunk > 0 && w.chunked == nil {
		r := w.waiting[0]
		var prefix []int32
		var node *radixNode
		if w.cache != nil {
			// At least the last token is computed: its logits give the first output
			// token, so the match stops one short of the prompt.
			prefix, node = w.cache.match(r.ns, r.pPrompt[:len(r.pPrompt)-1])
		}
		prefixLen := len(prefix) * w.cfg.PageSize
		extend := len(r.pPrompt) - prefixLen
		// NO_TOKEN: input + clipped output + one page must fit in free + evictable, or
		// the request waits (add_one_req). The PD prefill sets max_new_tokens to 1
		// (disaggregation/prefill.py _process_req), so the clipped output is 1 here.
		remTotal := w.pool.availableTokens() + w.evictable() - reserved
		if extend+min(1, clipMaxNewTokens)+w.cfg.PageSize >= remTotal {
			break
		}
		// Without chunking, --max-prefill-tokens bounds a batch (but never its first
		// request).
		if !chunking && len(batch) > 0 && extend > remInput {
			break
		}
		if w.chunkOf(extend, remChunk) == 0 {
			break
		}
		if w.cache != nil {
			w.cache.lock(node)
		}
		need := pagesFor(len(r.pPrompt), w.cfg.PageSize) - len(prefix)
		if short := need - w.pool.availablePages(); short > 0 && w.cache != nil {
			r.evicted += w.cache.evict(short * w.cfg.PageSize)
		}
		own, ok := w.pool.alloc(need)
		if !ok {
			// Cannot happen when admission is right; keep the request waiting.
			if w.cache != nil {
				w.cache.unlock(node)
			}
			w.s.logf(w.name, "Prefill out of memory for request %s; it stays queued", r.rid)
			break
		}
		w.waiting = w.waiting[1:]
		r.pNode = node
		r.pPages = append(slices.Clone(prefix), own...)
		r.pOwnFrom = len(prefix)
		r.pComputed = prefixLen
		r.cached = prefixLen
		w.cachedHit += int64(prefixLen)
		r.pState = pRunning
		reserved += 1
		n := w.chunkOf(extend, remChunk)
		batch = append(batch, chunkWork{r, n})
		remChunk -= n
		remInput -= n
		w.s.stage(r, "prefill")
		if n < extend {
			w.chunked = r
		}
	}
	if len(batch) == 0 {
		return
	}
	w.busy = true
	w.steps++
	d := w.s.cost(w.rng, w.stepCost(batch))
	w.s.clock.after(d, func() { w.finishStep(batch) })
}

// stepCost is the modelled time of one prefill batch: a fixed cost, the linear work of
// every token computed (2 × parameters FLOPs each), and attention, whose work for a token
// grows with the tokens before it, the cached prefix included: a chunk of n tokens that
// starts at position p attends over n·(p + n/2) token pairs.
func (w *prefillWorker) stepCost(batch []chunkWork) float64 {
	t := w.s.sc.Timing
	us := t.PrefillStepUs
	for _, c := range batch {
		n, p := float64(c.n), float64(c.r.pComputed)
		us += n*t.PrefillPerTokenUs + t.PrefillAttentionUs*n*(p+n/2)
	}
	return us
}

// chunkOf is how much of left tokens fit in the chunk budget: all of them, or the budget
// rounded down to whole pages (add_one_req: trunc_len = rem_chunk_tokens // page_size *
// page_size).
func (w *prefillWorker) chunkOf(left, budget int) int {
	if left <= budget {
		return left
	}
	return budget / w.cfg.PageSize * w.cfg.PageSize
}

func (w *prefillWorker) evictable() int {
	if w.cache == nil {
		return 0
	}
	return w.cache.evictable
}

// finishStep writes the KV the batch computed and starts the transfer of every request
// whose prompt is done.
func (w *prefillWorker) finishStep(batch []chunkWork) {
	w.busy = false
	for _, c := range batch {
		r := c.r
		if r.pState != pRunning {
			continue // dropped while the step ran
		}
		self := int32(r.tenant + 1)
		for pos := r.pComputed; pos < r.pComputed+c.n && pos < len(r.pPrompt); pos++ {
			var prev uint64
			if pos > 0 {
				prev = w.pool.cellAt(r.pPages, pos-1).hash
			}
			tok := r.pPrompt[pos]
			w.pool.writeAt(r.pPages, pos, cell{hash: cellHash(prev, tok, pos), tok: tok, writer: self})
		}
		r.pComputed += c.n
		w.computed += int64(c.n)
		if r.pComputed < len(r.pPrompt) {
			continue
		}
		if w.chunked == r {
			w.chunked = nil
		}
		n := len(r.pPrompt)
		scanReads(&r.reads, w.pool, r.pPages, n, self, "prefill", w.name, w.s.tenantName)
		r.pagesRead += len(r.pPages)
		rec := recite(n, func(i int) cell { return w.pool.cellAt(r.pPages, i) })
		r.firstToken = tokenAt(rec, 0)
		w.startTransfer(r)
	}
	w.kick()
}

// release is cache_finished_req after the transfer: insert the page-aligned prompt into the
// radix tree (freeing this request's duplicates of what is already there and its partial
// last page), then unlock its prefix; without a radix cache the pages are freed.
func (w *prefillWorker) release(r *request) {
	own := r.pPages[min(r.pOwnFrom, len(r.pPages)):]
	if w.cache != nil && !r.cancelled {
		aligned := len(r.pPrompt) / w.cfg.PageSize * w.cfg.PageSize
		existing := w.cache.insert(r.ns, r.pPrompt[:aligned], r.pPages, int32(r.tenant+1))
		for i, pg := range r.pPages {
			mine := i >= r.pOwnFrom
			if mine && (i < existing/w.cfg.PageSize || i >= aligned/w.cfg.PageSize) {
				w.pool.releasePage(pg)
			}
		}
	} else {
		w.pool.release(own)
	}
	if w.cache != nil {
		w.cache.unlock(r.pNode)
	}
	r.pNode = nil
	r.pPages = nil
	r.pState = pDone
	w.kick()
}

// drop removes a request that ends early. A request whose transfer is in flight stays:
// the transfer still lands, and release runs then.
func (w *prefillWorker) drop(r *request) {
	switch r.pState {
	case pBootstrap:
		w.bootstrap = slices.DeleteFunc(w.bootstrap, func(x *request) bool { return x == r })
	case pWaiting:
		w.waiting = slices.DeleteFunc(w.waiting, func(x *request) bool { return x == r })
		w.kick() // the queue's head may have changed
	case pRunning:
		if w.chunked == r {
			w.chunked = nil
		}
		w.pool.release(r.pPages[min(r.pOwnFrom, len(r.pPages)):])
		if w.cache != nil {
			w.cache.unlock(r.pNode)
		}
		r.pNode, r.pPages = nil, nil
		w.kick()
	case pTransfer:
		return
	}
	r.pState = pDone
}
