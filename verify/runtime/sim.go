package runtime

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

const (
	maxLogLines = 500
	maxEvents   = 50_000_000
)

// sim is one runtime instance: workers, router, clock and the requests it has seen. It is
// single-threaded; Serve feeds it from one goroutine.
type sim struct {
	sc Scenario
	// running and peakRunning count the requests decoding now and at most, over every
	// decode worker.
	running, peakRunning int
	faults               faultSet
	clock                clock
	jitter               float64
	router               *router
	prefills             []*prefillWorker
	decodes              []*decodeWorker
	tenants              []tenantInfo
	tenantIx             map[string]int
	reqs                 []*request
	log                  []LogLine
	finishSeq            int
	handshake            map[[2]int]string
	stageHook            func(*request, string)
	leaks                []Leak
	stopped              bool
	inflight             int // arrived and not finished
}

type tenantInfo struct {
	name, canary, salt string
}

// newSim builds a runtime for a scenario whose defaults are already applied.
func newSim(sc Scenario) *sim {
	s := &sim{
		sc:        sc,
		faults:    newFaultSet(sc.Faults, sc.Engine),
		jitter:    *sc.Timing.Jitter,
		tenantIx:  map[string]int{},
		handshake: map[[2]int]string{},
	}
	for _, t := range sc.Workload.Tenants {
		s.tenantIx[t.Name] = len(s.tenants)
		s.tenants = append(s.tenants, tenantInfo{name: t.Name, canary: t.Canary, salt: t.CacheSalt})
	}
	for gi, g := range sc.Prefill {
		for k := 0; k < g.Count; k++ {
			s.prefills = append(s.prefills, newPrefillWorker(s, len(s.prefills), workerName(g, "prefill", gi, k), g))
		}
	}
	for gi, g := range sc.Decode {
		for k := 0; k < g.Count; k++ {
			s.decodes = append(s.decodes, newDecodeWorker(s, len(s.decodes), workerName(g, "decode", gi, k), g))
		}
	}
	s.router = newRouter(s, sc.Router)
	return s
}

func workerName(w Worker, role string, group, k int) string {
	base := w.Name
	if base == "" {
		base = fmt.Sprintf("%s-%d", role, group)
	}
	if w.Count > 1 {
		return fmt.Sprintf("%s-%d", base, k)
	}
	return base
}

// tenant returns the index of a tenant, registering it when the runtime is served and
// meets a tenant the scenario did not list.
func (s *sim) tenant(name string) int {
	if i, ok := s.tenantIx[name]; ok {
		return i
	}
	s.tenantIx[name] = len(s.tenants)
	s.tenants = append(s.tenants, tenantInfo{name: name})
	return len(s.tenants) - 1
}

func (s *sim) tenantName(w int32) string {
	if w <= 0 || int(w) > len(s.tenants) {
		return ""
	}
	return s.tenants[w-1].name
}

func (s *sim) logf(worker, format string, args ...any) {
	if len(s.log) >= maxLogLines {
		return
	}
	s.log = append(s.log, LogLine{AtUs: s.clock.now, Worker: worker, Msg: fmt.Sprintf(format, args...)})
}

// cost turns a nominal cost in microseconds into a jittered whole one (at least 1).
func (s *sim) cost(r *rand.Rand, us float64) int64 {
	if s.jitter > 0 {
		us *= 1 + s.jitter*(2*r.Float64()-1)
	}
	if !(us < math.MaxInt64/4) {
		us = math.MaxInt64 / 4
	}
	return max(int64(math.Round(us)), 1)
}

// newRequest registers a request; submit schedules its arrival.
func (s *sim) newRequest(kind, label string, tenant int, prompt []byte, maxNew int, salt string) *request {
	r := &request{
		id:     len(s.reqs),
		kind:   kind,
		label:  label,
		tenant: tenant,
		prompt: prompt,
		maxNew: maxNew,
		salt:   salt,
		slot:   -1,
	}
	r.rid = fmt.Sprintf("%016x", mix64(s.sc.Seed^uint64(r.id)*0x9e37))
	s.reqs = append(s.reqs, r)
	return r
}

func (s *sim) submit(r *request, at int64) {
	s.clock.at(at, func() { s.arrive(r) })
}

func (s *sim) arrive(r *request) {
	if r.done {
		return
	}
	r.arrival = s.clock.now
	r.arrived = true
	s.inflight++
	s.clock.after(s.cost(s.router.rng, s.sc.Timing.RouterUs), func() { s.dispatch(r) })
}

// dispatch is the router's work: pick a pair, give the request a bootstrap room, and hand
// it to both workers, each of which validates it the way its SGLang server would.
func (s *sim) dispatch(r *request) {
	if r.done {
		return
	}
	pw, dw := s.router.pick(r)
	r.pw, r.dw = pw, dw
	r.room = s.router.room()
	r.ns = pw.namespace(r)
	if msg := s.pairHandshake(pw, dw); msg != "" {
		s.finish(r, "failed", 500, msg)
		return
	}
	for _, w := range []Worker{pw.cfg, dw.cfg} {
		if msg := tokenizerCheck(w, len(r.prompt), r.maxNew); msg != "" {
			s.finish(r, "rejected", 400, msg)
			return
		}
	}
	prefillMsg := pw.schedulerCheck(r)
	if prefillMsg != "" && !s.faults.abortTransfers {
		s.finish(r, "rejected", 400, prefillMsg)
		return
	}
	if msg := dw.schedulerCheck(r); msg != "" {
		s.finish(r, "rejected", 400, msg)
		return
	}
	dw.add(r)
	pw.add(r, prefillMsg)
	s.stage(r, "queued")
}

// pairHandshake is the decode side's first contact with a prefill server: page size and KV
// dtype must match (disaggregation/common/conn.py try_ensure_parallel_info).
func (s *sim) pairHandshake(pw *prefillWorker, dw *decodeWorker) string {
	key := [2]int{pw.idx, dw.idx}
	if msg, ok := s.handshake[key]; ok {
		return msg
	}
	msg := handshakeError(pw.cfg, dw.cfg)
	s.handshake[key] = msg
	if msg != "" {
		s.logf(dw.name, "%s", msg)
	}
	return msg
}

func handshakeError(p, d Worker) string {
	if p.PageSize != d.PageSize {
		return fmt.Sprintf("Page size mismatch: prefill server has page_size=%d, but decode server has page_size=%d. Both servers must use the same --page-size value.", p.PageSize, d.PageSize)
	}
	if p.KVDtype != d.KVDtype {
		return fmt.Sprintf("KV cache dtype mismatch: prefill server has kv_cache_dtype=%s, but decode server has kv_cache_dtype=%s. Both servers must use the same --kv-cache-dtype value.", p.KVDtype, d.KVDtype)
	}
	return ""
}

// tokenizerCheck is TokenizerManager._validate_one_request: it knows only the context
// length, not the KV pool.
func tokenizerCheck(w Worker, input, maxNew int) string {
	if input >= w.ContextLength {
		return fmt.Sprintf("The input (%d tokens) is longer than the model's context length (%d tokens).", input, w.ContextLength)
	}
	if input+maxNew > w.ContextLength {
		return fmt.Sprintf("Requested token count exceeds the model's maximum context length of %d tokens. You requested a total of %d tokens: %d tokens from the input messages and %d tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.", w.ContextLength, input+maxNew, input, maxNew)
	}
	return ""
}

// limits are tp_worker.py's derived limits: max_req_len = min(context_len - 1,
// max_total_num_tokens - 1) and max_req_input_len = max_req_len - 5.
func limits(w Worker) (maxReqLen, maxReqInputLen int) {
	maxReqLen = min(w.ContextLength-1, w.PoolTokens-1)
	return maxReqLen, maxReqLen - 5
}

// schedulerInputCheck is managers/utils.py validate_input_length followed by the PD queue's
// _check_if_req_exceed_kv_capacity.
func schedulerInputCheck(w Worker, r *request) string {
	_, maxInput := limits(w)
	if len(r.prompt) >= maxInput {
		return fmt.Sprintf("Input length (%d tokens) exceeds the maximum allowed length (%d tokens). Use a shorter input or enable --allow-auto-truncate.", len(r.prompt), maxInput)
	}
	if len(r.prompt) > w.PoolTokens {
		return fmt.Sprintf("Request %s exceeds the maximum number of tokens: %d > %d", r.rid, len(r.prompt), w.PoolTokens)
	}
	return ""
}

func (s *sim) stage(r *request, name string) {
	if s.stageHook != nil && !r.done {
		s.stageHook(r, name)
	}
}

// drop ends a request that is still in the system, cleaning both sides.
func (s *sim) drop(r *request, outcome string, status int, msg string) {
	if r.done {
		return
	}
	if r.pw != nil {
		r.pw.drop(r)
	}
	if r.dw != nil {
		r.dw.drop(r)
	}
	s.finish(r, outcome, status, msg)
}

func (s *sim) cancel(r *request) {
	if r.done {
		return
	}
	r.cancelled = true
	s.drop(r, "cancelled", 499, "")
}

// finish records a request's end and scans what its client received.
func (s *sim) finish(r *request, outcome string, status int, msg string) {
	if r.done {
		return
	}
	r.done = true
	if r.arrived {
		s.inflight--
	}
	r.outcome, r.status, r.errMsg = outcome, status, msg
	r.finished = s.clock.now
	s.finishSeq++
	s.scanDelivered(r, append(slices.Clone(r.out), msg...))
	r.finishOrder = s.finishSeq
	for _, h := range r.hooks {
		h(r)
	}
}

// run fires events until none is left or the time limit is reached.
func (s *sim) run() {
	limit := int64(s.sc.MaxVirtualSeconds * 1e6)
	// Timers keep firing while requests wait: a stuck request must time out, not hang.
	for s.clock.pending() || s.inflight > 0 && s.clock.events.Len() > 0 {
		if s.clock.next() > limit || s.clock.fired >= maxEvents {
			s.stopped = true
			break
		}
		s.clock.step()
	}
	for _, r := range s.reqs {
		s.finish(r, "unfinished", 0, "")
	}
}

// scanDelivered looks for every other tenant's canary in bytes delivered to r's client and
// records each owner once per request.
func (s *sim) scanDelivered(r *request, delivered []byte) {
	for i, t := range s.tenants {
		if i == r.tenant || t.canary == "" || !bytes.Contains(delivered, []byte(t.canary)) {
			continue
		}
		if slices.ContainsFunc(s.leaks, func(l Leak) bool { return l.Request == r.id && l.Owner == t.name }) {
			continue
		}
		s.leaks = append(s.leaks, Leak{Request: r.id, Receiver: s.tenants[r.tenant].name, Owner: t.name, Canary: t.canary})
	}
}
