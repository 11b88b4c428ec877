package runtime

// pstate is where a request is on its prefill worker.
type pstate uint8

const (
	pNone      pstate = iota
	pBootstrap        // waiting for the decode side's destination pages
	pWaiting          // bootstrapped, waiting for admission (PrefillAdder)
	pRunning          // being prefilled, possibly in chunks
	pTransfer         // KV on its way to the decode worker
	pDone
)

// dstate is where a request is on its decode worker.
type dstate uint8

const (
	dNone      dstate = iota
	dPrealloc         // in the pre-allocation queue
	dTransfer         // pages pre-allocated, waiting for the KV to land
	dWaiting          // KV landed, waiting for a place in the running batch
	dRunning          // decoding
	dRetracted        // retracted under memory pressure
	dDone
)

// request is one completion request as it moves through the runtime.
type request struct {
	id     int
	rid    string
	kind   string
	label  string
	tenant int
	prompt []byte
	maxNew int
	salt   string
	ns     string // isolation key as the prefill's radix cache sees it
	room   uint64
	pw     *prefillWorker
	dw     *decodeWorker

	arrival     int64
	arrived     bool
	firstTok    int64
	finished    int64
	done        bool
	cancelled   bool
	outcome     string
	status      int
	errMsg      string
	notes       []string
	finishOrder int

	// prefill side
	pState     pstate
	pPrompt    []byte // what the prefill computes: the prompt, or one token after an abort
	pNode      *radixNode
	pPages     pageTable
	pOwnFrom   int // index in pPages of the first page this request allocated itself
	pComputed  int
	cached     int
	firstToken byte
	evicted    int
	xfer       *transfer

	// decode side
	dState      dstate
	slot        int
	dPages      pageTable
	maxNewEff   int
	clipped     bool
	pagesRead   int // page-table entries read at prefill, plus the most read at decode
	decodePages int
	out         []byte
	joined      bool // entered the running batch this step: emits the prefill's token
	host        []cell
	stale       bool // retracted by the faulty path: the page table still points at freed pages
	releaseLand bool // cancelled with a transfer in flight: release when it lands
	retractions int
	recit       []byte
	seen        []uint32
	seenValid   bool

	reads readLog
	hooks []func(*request)
}

func (r *request) fillLen() int { return len(r.prompt) + max(len(r.out)-1, 0) }

// readLog keeps the reads of cells written by another tenant, as position ranges; a run
// read again, longer, extends the range it started.
type readLog struct {
	ranges []PageRead
	index  map[readKey]int
}

type readKey struct {
	stage, worker, owner string
	from                 int
}

func (l *readLog) add(pr PageRead, pageSize int) {
	if l.index == nil {
		l.index = map[readKey]int{}
	}
	k := readKey{pr.Stage, pr.Worker, pr.Owner, pr.FromPos}
	if i, ok := l.index[k]; ok {
		if pr.ToPos > l.ranges[i].ToPos {
			l.ranges[i].ToPos = pr.ToPos
			l.ranges[i].Pages = (pr.ToPos-1)/pageSize - pr.FromPos/pageSize + 1
		}
		return
	}
	l.index[k] = len(l.ranges)
	l.ranges = append(l.ranges, pr)
}

// scanReads walks positions [0, n) of a page table and logs runs of cells whose writer is
// a tenant other than self.
func scanReads(l *readLog, p *pool, pt pageTable, n int, self int32, stage, worker string, names func(int32) string) {
	start, owner := -1, int32(0)
	flush := func(end int) {
		if start >= 0 {
			l.add(PageRead{
				Stage: stage, Worker: worker, Owner: names(owner),
				FromPos: start, ToPos: end,
				Pages: (end-1)/p.pageSize - start/p.pageSize + 1,
			}, p.pageSize)
		}
		start = -1
	}
	for i := 0; i < n; i++ {
		w := p.cellAt(pt, i).writer
		foreign := w != 0 && w != self
		if !foreign || w != owner {
			flush(i)
		}
		if foreign && start < 0 {
			start, owner = i, w
		}
	}
	flush(n)
}

// reportedCached is usage.prompt_tokens_details.cached_tokens as the client sees it: only
// with --enable-cache-report on the prefill server.
func (r *request) reportedCached() int {
	if r.pw == nil || !r.pw.cfg.CacheReport {
		return 0
	}
	return r.cached
}
