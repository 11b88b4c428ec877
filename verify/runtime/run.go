package runtime

import (
	"bytes"
	"cmp"
	"slices"
)

// Run plays a scenario to the end on the virtual clock and returns what it measured. The
// same scenario and seed always give the same Result.
func Run(sc Scenario) (*Result, error) {
	full, err := sc.withDefaults()
	if err != nil {
		return nil, err
	}
	s := newSim(full)
	d := newDriver(s)
	d.plan()
	s.run()
	res := s.result()
	res.Extraction = d.extractionResult()
	return res, nil
}

// result assembles the Result of everything the sim has seen so far.
func (s *sim) result() *Result {
	res := &Result{
		Scenario:           s.sc.Name,
		Seed:               s.sc.Seed,
		Faults:             slices.Clone(s.sc.Faults),
		Engine:             slices.Clone(s.sc.Engine),
		SharedPrefixTokens: s.sc.Workload.SharedPrefixTokens,
		Leaks:              slices.Clone(s.leaks),
		Log:                slices.Clone(s.log),
		Requests:           make([]RequestRecord, 0, len(s.reqs)),
	}
	if res.Engine == nil {
		res.Engine = []Mechanism{}
	}
	if res.Faults == nil {
		res.Faults = []Fault{}
	}
	if res.Leaks == nil {
		res.Leaks = []Leak{}
	}
	if res.Log == nil {
		res.Log = []LogLine{}
	}
	sum := &res.Summary
	leakers := map[int]bool{}
	for _, l := range s.leaks {
		leakers[l.Request] = true
	}
	var ttfts []int64
	for _, r := range s.reqs {
		rec := s.record(r)
		for _, l := range s.leaks {
			if l.Request == r.id {
				rec.LeakedFrom = append(rec.LeakedFrom, l.Owner)
			}
		}
		res.Requests = append(res.Requests, rec)
		sum.Requests++
		switch rec.Outcome {
		case "ok":
			sum.OK++
			if !rec.Correct {
				sum.IncorrectOutputs++
			}
			if rec.TTFTUs >= 0 {
				ttfts = append(ttfts, rec.TTFTUs)
			}
		case "rejected":
			sum.Rejected++
		case "aborted":
			sum.Aborted++
		case "timeout":
			sum.TimedOut++
		case "cancelled":
			sum.Cancelled++
		case "failed":
			sum.Failed++
		default:
			sum.Unfinished++
		}
		if rec.Clipped {
			sum.Clipped++
		}
		if rec.Retractions > 0 {
			sum.RetractedRequests++
		}
		sum.ForeignReadPages += rec.ForeignReadPages
		if rec.ForeignReadPages > 0 {
			sum.ForeignReadReqs++
		}
	}
	sum.CrossTenantLeaks = len(s.leaks)
	sum.LeakingRequests = len(leakers)
	for _, w := range s.prefills {
		ws := WorkerStats{
			Name: w.name, Role: "prefill", PoolTokens: w.cfg.PoolTokens, PageSize: w.cfg.PageSize,
			ContextLength: w.cfg.ContextLength, MaxRunningRequests: w.cfg.MaxRunningRequests,
			PeakUsedTokens: w.pool.peakUsed * w.cfg.PageSize, Steps: w.steps, ComputedTokens: w.computed,
		}
		_, ws.MaxReqInputLen = limits(w.cfg)
		if w.cache != nil {
			ws.Evictions, ws.EvictedTokens = w.cache.evictions, w.cache.evictedTokens
		}
		sum.Evictions += ws.Evictions
		sum.EvictedTokens += ws.EvictedTokens
		sum.PrefillTokens += w.computed
		sum.CachedTokens += w.cachedHit
		res.Workers = append(res.Workers, ws)
	}
	for _, w := range s.decodes {
		ws := WorkerStats{
			Name: w.name, Role: "decode", PoolTokens: w.cfg.PoolTokens, PageSize: w.cfg.PageSize,
			ContextLength: w.cfg.ContextLength, MaxRunningRequests: w.cfg.MaxRunningRequests,
			PeakUsedTokens: w.pool.peakUsed * w.cfg.PageSize, Steps: w.steps,
			Retractions: w.retractions, Aborts: w.aborts, PeakRunning: w.peakRunning, ComputedTokens: w.decoded,
		}
		_, ws.MaxReqInputLen = limits(w.cfg)
		sum.Retractions += w.retractions
		sum.DecodeTokens += w.decoded
		sum.MaxRunning = max(sum.MaxRunning, w.peakRunning)
		sum.PeakRunning = s.peakRunning
		res.Workers = append(res.Workers, ws)
	}
	sum.VirtualUs = s.clock.last
	sum.StoppedAtTimeLimit = s.stopped
	slices.Sort(ttfts)
	if len(ttfts) > 0 {
		sum.TTFTP50Us = ttfts[(len(ttfts)-1)/2]
		sum.TTFTP99Us = ttfts[(len(ttfts)-1)*99/100]
	}
	return res
}

func (s *sim) record(r *request) RequestRecord {
	rec := RequestRecord{
		ID:                 r.id,
		RID:                r.rid,
		Kind:               r.kind,
		Label:              r.label,
		Tenant:             s.tenants[r.tenant].name,
		IsolationKey:       r.ns,
		BootstrapRoom:      r.room,
		ArrivalUs:          r.arrival,
		TTFTUs:             -1,
		FinishOrder:        r.finishOrder,
		PromptTokens:       len(r.prompt),
		CachedTokens:       r.cached,
		MaxTokens:          r.maxNew,
		EffectiveMaxTokens: r.maxNewEff,
		Clipped:            r.clipped,
		PagesRead:          r.pagesRead + r.decodePages,
		CompletionTokens:   len(r.out),
		Retractions:        r.retractions,
		EvictedTokens:      r.evicted,
		Outcome:            r.outcome,
		Status:             r.status,
		Error:              r.errMsg,
		Output:             string(r.out),
		Notes:              slices.Clone(r.notes),
	}
	if r.pw != nil {
		rec.Prefill = r.pw.name
	}
	if r.dw != nil {
		rec.Decode = r.dw.name
	}
	if r.done {
		rec.LatencyUs = r.finished - r.arrival
	}
	if len(r.out) > 0 {
		rec.TTFTUs = r.firstTok - r.arrival
	}
	if r.outcome == "ok" {
		rec.Correct = bytes.Equal(r.out, referenceOutput(r.prompt, len(r.out)))
	}
	reads := slices.Clone(r.reads.ranges)
	slices.SortFunc(reads, func(a, b PageRead) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.FromPos, b.FromPos),
			cmp.Compare(a.ToPos, b.ToPos), cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Worker, b.Worker))
	})
	rec.ForeignReads = reads
	for _, pr := range reads {
		rec.ForeignReadPages += pr.Pages
	}
	return rec
}
