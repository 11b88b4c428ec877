package runtime

// Result is everything a run measured. Two runs of the same scenario and seed produce
// equal Results (and byte-identical JSON).
type Result struct {
	Scenario           string          `json:"scenario"`
	Seed               uint64          `json:"seed"`
	Engine             []Mechanism     `json:"engine_paths"`
	Faults             []Fault         `json:"faults"`
	SharedPrefixTokens int             `json:"shared_prefix_tokens"`
	Summary            Summary         `json:"summary"`
	Workers            []WorkerStats   `json:"workers"`
	Requests           []RequestRecord `json:"requests"`
	Leaks              []Leak          `json:"leaks"`
	Extraction         *ExtractionRun  `json:"extraction,omitempty"`
	Log                []LogLine       `json:"log"`
}

// Summary counts what matters for a verdict.
type Summary struct {
	Requests   int `json:"requests"`
	OK         int `json:"ok"`
	Rejected   int `json:"rejected"`
	Aborted    int `json:"aborted"`
	TimedOut   int `json:"timed_out"`
	Cancelled  int `json:"cancelled"`
	Failed     int `json:"failed"`
	Unfinished int `json:"unfinished"`
	// Clipped counts requests whose max_tokens the scheduler silently lowered.
	Clipped           int   `json:"clipped"`
	Retractions       int   `json:"retractions"`
	RetractedRequests int   `json:"retracted_requests"`
	Evictions         int   `json:"evictions"`
	EvictedTokens     int   `json:"evicted_tokens"`
	CrossTenantLeaks  int   `json:"cross_tenant_leaks"`
	LeakingRequests   int   `json:"leaking_requests"`
	ForeignReadPages  int   `json:"foreign_read_pages"`
	ForeignReadReqs   int   `json:"foreign_read_requests"`
	IncorrectOutputs  int   `json:"incorrect_outputs"`
	PrefillTokens     int64 `json:"prefill_tokens"`
	CachedTokens      int64 `json:"cached_tokens"`
	DecodeTokens      int64 `json:"decode_tokens"`
	VirtualUs         int64 `json:"virtual_us"`
	TTFTP50Us         int64 `json:"ttft_p50_us"`
	TTFTP99Us         int64 `json:"ttft_p99_us"`
	MaxRunning        int   `json:"max_running"`
	// PeakRunning is the most requests running at once over every decode worker.
	PeakRunning        int  `json:"peak_running"`
	StoppedAtTimeLimit bool `json:"stopped_at_time_limit"`
}

// WorkerStats describes one worker after the run.
type WorkerStats struct {
	Name               string `json:"name"`
	Role               string `json:"role"`
	PoolTokens         int    `json:"pool_tokens"`
	PageSize           int    `json:"page_size"`
	ContextLength      int    `json:"context_length"`
	MaxRunningRequests int    `json:"max_running_requests"`
	MaxReqInputLen     int    `json:"max_req_input_len"`
	PeakUsedTokens     int    `json:"peak_used_tokens"`
	Steps              int    `json:"steps"`
	Evictions          int    `json:"evictions"`
	EvictedTokens      int    `json:"evicted_tokens"`
	Retractions        int    `json:"retractions"`
	Aborts             int    `json:"aborts"`
	PeakRunning        int    `json:"peak_running"`
	ComputedTokens     int64  `json:"computed_tokens"`
}

// RequestRecord is one request's history.
type RequestRecord struct {
	ID            int    `json:"id"`
	RID           string `json:"rid"`
	Kind          string `json:"kind"`
	Label         string `json:"label,omitempty"`
	Tenant        string `json:"tenant"`
	IsolationKey  string `json:"isolation_key"`
	BootstrapRoom uint64 `json:"bootstrap_room"`
	Prefill       string `json:"prefill,omitempty"`
	Decode        string `json:"decode,omitempty"`
	ArrivalUs     int64  `json:"arrival_us"`
	// TTFTUs is the time to the first delivered token; -1 when none was delivered.
	TTFTUs             int64 `json:"ttft_us"`
	LatencyUs          int64 `json:"latency_us"`
	FinishOrder        int   `json:"finish_order"`
	PromptTokens       int   `json:"prompt_tokens"`
	CachedTokens       int   `json:"cached_tokens"`
	MaxTokens          int   `json:"max_tokens"`
	EffectiveMaxTokens int   `json:"effective_max_tokens"`
	// Clipped: the decode scheduler silently lowered max_tokens (init_req_max_new_tokens).
	Clipped          bool `json:"clipped"`
	CompletionTokens int  `json:"completion_tokens"`
	Retractions      int  `json:"retractions"`
	EvictedTokens    int  `json:"evicted_tokens"`
	// PagesRead counts the page-table entries the request read (prefill, plus the most
	// at any decode step); ForeignReads lists the runs of them another tenant wrote.
	PagesRead        int        `json:"pages_read"`
	ForeignReads     []PageRead `json:"foreign_reads,omitempty"`
	ForeignReadPages int        `json:"foreign_read_pages"`
	// Outcome is ok, rejected, aborted, timeout, cancelled, failed or unfinished.
	Outcome string `json:"outcome"`
	Status  int    `json:"status"`
	Error   string `json:"error,omitempty"`
	Output  string `json:"output"`
	// Correct: the output equals what the model says reading only this request's own KV.
	Correct bool `json:"correct"`
	// LeakedFrom names the tenants whose canary reached this request's client.
	LeakedFrom []string `json:"leaked_from,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// PageRead is a run of positions a request read whose cells another tenant wrote.
type PageRead struct {
	Stage   string `json:"stage"`
	Worker  string `json:"worker"`
	Owner   string `json:"owner"`
	FromPos int    `json:"from_pos"`
	ToPos   int    `json:"to_pos"`
	Pages   int    `json:"pages"`
}

// Leak is one delivery of a tenant's canary to another tenant.
type Leak struct {
	Request  int    `json:"request"`
	Receiver string `json:"receiver"`
	Owner    string `json:"owner"`
	Canary   string `json:"canary"`
}

// ExtractionRun reports the cached-token extraction probe.
type ExtractionRun struct {
	Attacker  string `json:"attacker"`
	Victim    string `json:"victim"`
	Probes    int    `json:"probes"`
	Recovered string `json:"recovered"`
	Success   bool   `json:"success"`
	// PageSize is the page the attack was aligned to; Stopped says why it ended before
	// the secret's end, when it did.
	PageSize int    `json:"page_size"`
	Stopped  string `json:"stopped,omitempty"`
}

// LogLine is an engine log line worth keeping as evidence (retractions, timeouts, …).
type LogLine struct {
	AtUs   int64  `json:"at_us"`
	Worker string `json:"worker"`
	Msg    string `json:"msg"`
}
