package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The served runtime answers a local client, yet any web page the user
// visits can send it requests (and, with DNS rebinding, read the answers),
// so it bounds what one client can make it hold. Variables so that tests
// can shrink them.
var (
	// readTimeout bounds reading one request, headers and body: a client
	// that trickles a body cannot hold a connection open.
	readTimeout = 30 * time.Second
	// maxServed bounds the requests one serve answers: every request is
	// kept for /kvlint/result, so this bounds the memory results hold.
	maxServed int64 = 100_000
)

const (
	maxBodyBytes = 4 << 20
	// TenantHeader names the tenant of a served request; without it the OpenAI "user"
	// field is used, then "anonymous".
	TenantHeader = "X-Tenant"
)

// Serve runs the scenario's router and workers behind an OpenAI-compatible HTTP API on ln
// until ctx is done, then shuts the server down and returns nil. The scenario's workload
// is not played: clients send the requests. Time is virtual, so the TTFT a client should
// compare is the X-Kvlint-Ttft-Us header, not its wall clock.
//
//	POST /v1/completions   {"prompt", "max_tokens", "cache_salt", "user"} (+ X-Tenant)
//	GET  /v1/models, /health
//	GET  /kvlint/result    the Result so far (requests, leaks, retractions, …)
func Serve(ctx context.Context, sc Scenario, ln net.Listener) error {
	return ServeWith(ctx, sc, ln, ServeOptions{})
}

// ServeOptions are the settings of a served runtime.
type ServeOptions struct {
	// RealTime paces the virtual clock by the wall clock: an event modelled to take d
	// microseconds is answered d later, so a client's own stopwatch measures the modelled
	// costs (a black-box timing audit needs this). Without it the runtime answers as fast
	// as it computes, and only X-Kvlint-Ttft-Us carries the modelled time.
	RealTime bool
}

// ServeWith is Serve with options.
func ServeWith(ctx context.Context, sc Scenario, ln net.Listener, opt ServeOptions) error {
	full, perr := sc.withDefaults()
	if perr != nil {
		return perr
	}
	e := &engine{s: newSim(full), cmds: make(chan func()), done: make(chan struct{}), model: full.Name, realTime: opt.RealTime}
	if e.model == "" {
		e.model = "kvlint-runtime"
	}
	// The engine outlives ctx until the HTTP server has drained: handlers in flight
	// still need it to finish their requests.
	loopCtx, stopLoop := context.WithCancel(context.Background())
	defer stopLoop()
	go e.loop(loopCtx)
	srv := &http.Server{Handler: e.routes(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: readTimeout,
		IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(shut)
		<-errc
		stopLoop()
		<-e.done
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	case err := <-errc:
		stopLoop()
		<-e.done
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// engine owns the sim; everything that touches it runs on the engine goroutine.
type engine struct {
	served atomic.Int64 // requests admitted to the sim
	s      *sim
	cmds   chan func()
	done   chan struct{}
	model  string
	// realTime paces the clock by the wall clock from start (ServeOptions.RealTime).
	realTime bool
	start    time.Time
}

// wallUs is the wall time since the engine started, in microseconds.
func (e *engine) wallUs() int64 { return int64(time.Since(e.start) / time.Microsecond) }

// catchUp moves the virtual clock to the wall clock before a client's request enters, so
// that it arrives when it was sent; never past an event still due, which keeps the clock
// monotonic.
func (e *engine) catchUp() {
	now := e.wallUs()
	if e.s.clock.events.Len() > 0 {
		now = min(now, e.s.clock.next())
	}
	e.s.clock.now = max(e.s.clock.now, now)
}

func (e *engine) loop(ctx context.Context) {
	defer close(e.done)
	if e.realTime {
		e.realTimeLoop(ctx)
		return
	}
	for {
		select {
		case f := <-e.cmds:
			f()
			continue
		case <-ctx.Done():
			return
		default:
		}
		if e.s.clock.pending() || e.s.inflight > 0 && e.s.clock.events.Len() > 0 {
			e.s.clock.step()
			continue
		}
		select {
		case f := <-e.cmds:
			f()
		case <-ctx.Done():
			return
		}
	}
}

// realTimeLoop fires each event when the wall clock reaches its virtual time. Sleeping to
// the next event rather than polling keeps the runtime's own cost off the measured times;
// on a loaded machine a wake-up can still be late by the scheduler's latency, which delays
// every arm alike.
func (e *engine) realTimeLoop(ctx context.Context) {
	e.start = time.Now()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case f := <-e.cmds:
			e.catchUp()
			f()
			continue
		case <-ctx.Done():
			return
		default:
		}
		wait := time.Hour
		if e.s.clock.events.Len() > 0 {
			due := e.s.clock.next() - e.wallUs()
			if due <= 0 {
				e.s.clock.step()
				continue
			}
			wait = time.Duration(due) * time.Microsecond
		}
		timer.Reset(wait)
		select {
		case f := <-e.cmds:
			// Since Go 1.23 a stopped timer delivers no stale tick: no drain needed.
			timer.Stop()
			e.catchUp()
			f()
		case <-timer.C:
		case <-ctx.Done():
			return
		}
	}
}

// do runs f on the engine goroutine; false when the engine has stopped.
func (e *engine) do(f func()) bool {
	select {
	case e.cmds <- f:
		return true
	case <-e.done:
		return false
	}
}

func (e *engine) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", e.completions)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{"id": e.model, "object": "model", "owned_by": "kvlint"}}})
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /kvlint/result", func(w http.ResponseWriter, _ *http.Request) {
		var res *Result
		ch := make(chan struct{})
		if !e.do(func() { res = e.s.result(); close(ch) }) {
			writeError(w, http.StatusServiceUnavailable, "the runtime has stopped")
			return
		}
		<-ch
		writeJSON(w, http.StatusOK, res)
	})
	return loopbackHost(mux)
}

// loopbackHost answers 403 to a request whose Host is not a loopback name:
// a page on another site that rebinds its name to 127.0.0.1 sends its own
// name as Host, and must not read the runtime's answers.
func loopbackHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isLoopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, "the kvlint runtime answers only requests addressed to localhost, 127.0.0.1 or [::1]")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

type completionRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	MaxTokens *int            `json:"max_tokens"`
	CacheSalt string          `json:"cache_salt"`
	User      string          `json:"user"`
	Stream    bool            `json:"stream"`
}

type completionResponse struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   completionUsage    `json:"usage"`
}

type completionChoice struct {
	Index        int    `json:"index"`
	Text         string `json:"text"`
	Logprobs     any    `json:"logprobs"`
	FinishReason string `json:"finish_reason"`
}

type completionUsage struct {
	PromptTokens        int            `json:"prompt_tokens"`
	CompletionTokens    int            `json:"completion_tokens"`
	TotalTokens         int            `json:"total_tokens"`
	PromptTokensDetails *promptDetails `json:"prompt_tokens_details"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// served is what the engine hands back to a handler.
type served struct {
	id   int
	rec  RequestRecord
	show bool // cache report on
}

func (e *engine) completions(w http.ResponseWriter, hr *http.Request) {
	if e.served.Add(1) > maxServed {
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the kvlint runtime has served its limit of %d requests, whose results it keeps; restart it", maxServed))
		return
	}
	var req completionRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, hr.Body, maxBodyBytes))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "streaming is not supported by the kvlint runtime")
		return
	}
	prompt, msg := parsePrompt(req.Prompt)
	if msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	maxTokens := 16 // the OpenAI completions default
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if maxTokens < 0 || maxTokens > maxContext {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("max_tokens must be between 0 and %d", maxContext))
		return
	}
	tenant := hr.Header.Get(TenantHeader)
	if tenant == "" {
		tenant = req.User
	}
	if tenant == "" {
		tenant = "anonymous"
	}
	reply := make(chan served, 1)
	var id int
	started := make(chan struct{})
	ok := e.do(func() {
		s := e.s
		r := s.newRequest("served", "", s.tenant(tenant), prompt, maxTokens, req.CacheSalt)
		id = r.id
		r.hooks = append(r.hooks, func(r *request) {
			reply <- served{id: r.id, rec: s.record(r), show: r.pw != nil && r.pw.cfg.CacheReport}
		})
		s.submit(r, s.clock.now)
		close(started)
	})
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "the runtime has stopped")
		return
	}
	<-started
	var out served
	select {
	case out = <-reply:
	case <-hr.Context().Done():
		e.do(func() { e.s.cancel(e.s.reqs[id]) })
		return
	case <-e.done:
		writeError(w, http.StatusServiceUnavailable, "the runtime has stopped")
		return
	}
	rec := out.rec
	w.Header().Set("X-Kvlint-Request-Id", strconv.Itoa(rec.ID))
	w.Header().Set("X-Kvlint-Ttft-Us", strconv.FormatInt(rec.TTFTUs, 10))
	if rec.Outcome != "ok" {
		status := rec.Status
		if status < 400 || status > 599 {
			status = http.StatusInternalServerError
		}
		msg := rec.Error
		if msg == "" {
			msg = "the request ended as " + rec.Outcome
		}
		body, _ := json.Marshal(map[string]any{"object": "error", "message": msg, "type": errorType(status), "param": nil, "code": status})
		e.do(func() { e.s.scanDelivered(e.s.reqs[id], body) })
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	resp := completionResponse{
		ID:      "cmpl-" + rec.RID,
		Object:  "text_completion",
		Created: (rec.ArrivalUs + rec.LatencyUs) / 1_000_000,
		Model:   e.model,
		Choices: []completionChoice{{Text: rec.Output, FinishReason: "length"}},
		Usage: completionUsage{
			PromptTokens:     rec.PromptTokens,
			CompletionTokens: rec.CompletionTokens,
			TotalTokens:      rec.PromptTokens + rec.CompletionTokens,
		},
	}
	if out.show {
		resp.Usage.PromptTokensDetails = &promptDetails{CachedTokens: rec.CachedTokens}
	}
	body, err := json.Marshal(resp)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	e.do(func() { e.s.scanDelivered(e.s.reqs[id], body) })
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// parsePrompt accepts a string, a one-string array, or an array of token ids (bytes).
func parsePrompt(raw json.RawMessage) ([]byte, string) {
	if len(raw) == 0 {
		return nil, "prompt is required"
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return checkPrompt([]byte(s))
	}
	var ss []string
	if err := json.Unmarshal(raw, &ss); err == nil {
		if len(ss) != 1 {
			return nil, "this runtime serves one prompt per request"
		}
		return checkPrompt([]byte(ss[0]))
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err == nil {
		out := make([]byte, len(ids))
		for i, t := range ids {
			if t < 0 || t > 255 {
				return nil, fmt.Sprintf("token id %d is outside this runtime's byte vocabulary (0..255)", t)
			}
			out[i] = byte(t)
		}
		return checkPrompt(out)
	}
	return nil, "prompt must be a string, a one-string array or an array of token ids"
}

func checkPrompt(p []byte) ([]byte, string) {
	if len(p) == 0 {
		return nil, "prompt is empty"
	}
	if len(p) > maxContext {
		return nil, fmt.Sprintf("prompt is longer than %d tokens", maxContext)
	}
	return p, ""
}

// writeError answers in SGLang's OpenAI error shape.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"object": "error", "message": msg, "type": errorType(status), "param": nil, "code": status})
}

func errorType(status int) string {
	if status >= 500 {
		return "InternalServerError"
	}
	return "BadRequestError"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"object":"error","message":"encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
