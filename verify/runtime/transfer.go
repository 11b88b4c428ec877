package runtime

// transfer is one request's KV on its way from a prefill pool into the pages its decode
// worker pre-allocated. The destination is fixed when the transfer is sent — the sender
// writes by page index, it does not know what those pages hold by the time it lands — and
// completion is signalled on the decode slot (the metadata buffer that also carries the
// first output token).
type transfer struct {
	req        *request
	from       *prefillWorker
	to         *decodeWorker
	dst        pageTable
	slot       int
	tokens     int
	firstToken byte
}

func (w *prefillWorker) startTransfer(r *request) {
	r.pState = pTransfer
	x := &transfer{
		req:        r,
		from:       w,
		to:         r.dw,
		dst:        r.dPages,
		slot:       r.slot,
		tokens:     len(r.pPrompt),
		firstToken: r.firstToken,
	}
	r.xfer = x
	pages := pagesFor(x.tokens, w.cfg.PageSize)
	d := w.s.cost(w.rng, float64(pages)*w.transferCost())
	// One link per prefill worker: transfers queue behind each other, so under load a
	// transfer stays in flight for as long as the queue ahead of it (the slowdown of
	// sglang#5450 and #9266).
	end := max(w.s.clock.now, w.linkFree) + d
	w.linkFree = end
	w.s.stage(r, "transfer")
	w.s.clock.at(end, func() { w.s.land(x) })
}

// land writes the KV into the destination pages, lets the prefill side cache and unlock
// its copy, and signals the decode slot.
func (s *sim) land(x *transfer) {
	r := x.req
	src, dst := x.from.pool, x.to.pool
	for pos := 0; pos < x.tokens; pos++ {
		dst.writeAt(x.dst, pos, src.cellAt(r.pPages, pos))
	}
	x.from.release(r)
	r.xfer = nil
	x.to.landed(x)
}

// transferCost is the virtual cost of moving one page.
func (w *prefillWorker) transferCost() float64 {
	if c := w.s.sc.Timing.TransferPerPageUs; c > 0 {
		return c
	}
	return 5 * float64(w.cfg.PageSize)
}
