package runtime

// Scenario describes one run of the runtime: the workers and how they are configured, the
// router, the virtual timing, the workload, the fault models switched on, and the seed.
// The zero value of most fields means "SGLang's default" (see withDefaults).
type Scenario struct {
	Name     string       `yaml:"name" json:"name"`
	Seed     uint64       `yaml:"seed" json:"seed"`
	Router   RouterConfig `yaml:"router" json:"router"`
	Prefill  []Worker     `yaml:"prefill" json:"prefill"`
	Decode   []Worker     `yaml:"decode" json:"decode"`
	Timing   Timing       `yaml:"timing" json:"timing"`
	Workload Workload     `yaml:"workload" json:"workload"`
	// Engine names the engine paths of the release being modelled (abort-still-transfers,
	// release-in-flight, unchecked-bootstrap-room, salt-dropped): its known bugs.
	Engine []Mechanism `yaml:"engine_paths" json:"engine_paths"`
	// Faults names the hypotheses to run (stale-pages): mechanisms no engine is known
	// to have.
	Faults []Fault `yaml:"faults" json:"faults"`
	// MaxVirtualSeconds stops a run that has not finished by then; requests still in
	// flight end with outcome "unfinished" (a livelock shows up here). Default 3600.
	MaxVirtualSeconds float64 `yaml:"max_virtual_seconds" json:"max_virtual_seconds"`
}

// RouterConfig is the PD router (sgl-model-gateway / mini_lb).
type RouterConfig struct {
	// Policy picks the prefill worker: "round_robin" (default) or "prefix_aware". The
	// decode worker is always picked round-robin.
	Policy string `yaml:"policy" json:"policy"`
	// CacheThreshold is the matched fraction of a prompt above which prefix_aware
	// routing sticks to the worker that saw the prefix (default 0.5).
	CacheThreshold float64 `yaml:"cache_threshold" json:"cache_threshold"`
	// HashIsolationKey makes prefix_aware routing key its tree by the isolation key too.
	HashIsolationKey bool `yaml:"hash_isolation_key" json:"hash_isolation_key"`
}

// Worker is one prefill or decode server; Count replicas share the configuration.
type Worker struct {
	Name  string `yaml:"name" json:"name"`
	Count int    `yaml:"count" json:"count"`
	// PoolTokens is max_total_num_tokens: the KV pool's capacity in tokens (required).
	PoolTokens    int    `yaml:"pool_tokens" json:"pool_tokens"`
	PageSize      int    `yaml:"page_size" json:"page_size"`
	KVDtype       string `yaml:"kv_dtype" json:"kv_dtype"`
	ContextLength int    `yaml:"context_length" json:"context_length"`
	// MaxRunningRequests bounds the decode batch; 0 means SGLang's automatic value.
	MaxRunningRequests int `yaml:"max_running_requests" json:"max_running_requests"`
	// ChunkedPrefillSize bounds the tokens of one prefill step; -1 disables chunking.
	ChunkedPrefillSize int `yaml:"chunked_prefill_size" json:"chunked_prefill_size"`
	MaxPrefillTokens   int `yaml:"max_prefill_tokens" json:"max_prefill_tokens"`
	// RadixCache switches the prefix cache on (prefill default true). SGLang forces it
	// off on PD decode servers, and so does this runtime.
	RadixCache     *bool  `yaml:"radix_cache" json:"radix_cache"`
	EvictionPolicy string `yaml:"eviction_policy" json:"eviction_policy"`
	// Isolation says what namespaces the radix cache: "cache_salt" (SGLang: the client's
	// cache_salt, default), "tenant" (enforced: the server derives it from the tenant),
	// or "none" (one namespace for everyone).
	Isolation string `yaml:"isolation" json:"isolation"`
	// CacheReport returns usage.prompt_tokens_details.cached_tokens (--enable-cache-report).
	CacheReport             bool `yaml:"cache_report" json:"cache_report"`
	NumReservedDecodeTokens int  `yaml:"num_reserved_decode_tokens" json:"num_reserved_decode_tokens"`
	// ZeroPagesOnAlloc clears a page's cells when it is handed out again.
	ZeroPagesOnAlloc bool `yaml:"zero_pages_on_alloc" json:"zero_pages_on_alloc"`
	// TestRetractInterval forces a retraction every N decode steps (SGLANG_TEST_RETRACT).
	TestRetractInterval int `yaml:"test_retract_interval" json:"test_retract_interval"`
}

// Timing is the virtual cost model, in microseconds; 0 means the default.
type Timing struct {
	// PrefillPerTokenUs is the cost of one uncached prompt token (default 20): a prefix
	// cache hit shows in TTFT, as on a real server.
	PrefillPerTokenUs float64 `yaml:"prefill_per_token_us" json:"prefill_per_token_us"`
	// PrefillStepUs is the fixed cost of one prefill batch (default 1000).
	PrefillStepUs float64 `yaml:"prefill_step_us" json:"prefill_step_us"`
	// PrefillAttentionUs is the attention cost of one uncached prompt token per token
	// before it in its prompt (default 0): attention work grows with the context, so a
	// long prompt's last chunk costs more than its first, cached prefix or not.
	PrefillAttentionUs float64 `yaml:"prefill_attention_us" json:"prefill_attention_us"`
	// DecodeStepUs plus DecodePerRequestUs per running request plus
	// DecodePerContextTokenUs per token of KV the step reads make one decode step
	// (defaults 10000, 20 and 0): decode is bound by reading weights and KV from memory.
	DecodeStepUs            float64 `yaml:"decode_step_us" json:"decode_step_us"`
	DecodePerRequestUs      float64 `yaml:"decode_per_request_us" json:"decode_per_request_us"`
	DecodePerContextTokenUs float64 `yaml:"decode_per_context_token_us" json:"decode_per_context_token_us"`
	// TransferPerPageUs is the cost of moving one KV page (default 5 µs per token of the
	// page); transfers from one prefill worker share one link.
	TransferPerPageUs float64 `yaml:"transfer_per_page_us" json:"transfer_per_page_us"`
	// RouterUs is the router's own latency (default 200).
	RouterUs float64 `yaml:"router_us" json:"router_us"`
	// Jitter is the relative spread of every cost, drawn from the seeded generator
	// (default 0.05).
	Jitter *float64 `yaml:"jitter" json:"jitter"`
	// BootstrapTimeoutSec and WaitingTimeoutSec are SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT
	// and SGLANG_DISAGGREGATION_WAITING_TIMEOUT (default 300 each).
	BootstrapTimeoutSec float64 `yaml:"bootstrap_timeout_s" json:"bootstrap_timeout_s"`
	WaitingTimeoutSec   float64 `yaml:"waiting_timeout_s" json:"waiting_timeout_s"`
}

// Workload is what the clients send: generated requests, scripted requests, cancellations
// and an optional extraction probe.
type Workload struct {
	Tenants []Tenant `yaml:"tenants" json:"tenants"`
	// Requests generated requests, spread over the tenants by weight.
	Requests int `yaml:"requests" json:"requests"`
	// SharedPrefixTokens is the length of a system prompt every tenant shares.
	SharedPrefixTokens int      `yaml:"shared_prefix_tokens" json:"shared_prefix_tokens"`
	PromptTokens       IntRange `yaml:"prompt_tokens" json:"prompt_tokens"`
	MaxTokens          int      `yaml:"max_tokens" json:"max_tokens"`
	// Lengths, when set, draws each generated request's prompt and max_tokens around a
	// median up to a maximum, instead of PromptTokens and MaxTokens.
	Lengths *Lengths `yaml:"lengths" json:"lengths"`
	Arrival Arrival  `yaml:"arrival" json:"arrival"`
	Cancel  Cancel   `yaml:"cancel" json:"cancel"`
	// Script lists exact requests, sent in addition to the generated ones.
	Script     []ScriptedRequest `yaml:"script" json:"script"`
	Extraction *Extraction       `yaml:"extraction" json:"extraction"`
}

// Tenant is one customer of the deployment.
type Tenant struct {
	Name string `yaml:"name" json:"name"`
	// Canary is a secret that appears in every prompt of this tenant; default
	// CANARY-<NAME>-<hex> derived from the seed.
	Canary string `yaml:"canary" json:"canary"`
	// CacheSalt is the cache_salt this tenant's client sends ("" sends none).
	CacheSalt string `yaml:"cache_salt" json:"cache_salt"`
	// Weight is this tenant's share of the generated requests (default 1; 0 sends none,
	// for a tenant that only probes).
	Weight *int `yaml:"weight" json:"weight"`
}

// Lengths are the medians and maxima of prompt and output lengths. A length is drawn from
// a log-normal distribution with that median whose 99th percentile is the maximum, and
// never above the maximum: most requests are near the median, a few are long.
type Lengths struct {
	PromptMedian int `yaml:"prompt_median" json:"prompt_median"`
	PromptMax    int `yaml:"prompt_max" json:"prompt_max"`
	OutputMedian int `yaml:"output_median" json:"output_median"`
	OutputMax    int `yaml:"output_max" json:"output_max"`
}

// IntRange is an inclusive range of integers.
type IntRange struct {
	Min int `yaml:"min" json:"min"`
	Max int `yaml:"max" json:"max"`
}

// Arrival says when generated requests arrive: "burst" (all at time 0), "rate" (Poisson at
// RatePerSec) or "closed" (Concurrency clients, each sending its next request when the
// previous one ends).
type Arrival struct {
	Mode        string  `yaml:"mode" json:"mode"`
	RatePerSec  float64 `yaml:"rate_per_s" json:"rate_per_s"`
	Concurrency int     `yaml:"concurrency" json:"concurrency"`
}

// Cancel cancels a fraction of the generated requests when they reach Stage ("queued",
// "prefill", "transfer", "decode", or "any": a uniform time within WithinMs of arrival),
// DelayMs after reaching it.
type Cancel struct {
	Fraction float64 `yaml:"fraction" json:"fraction"`
	Stage    string  `yaml:"stage" json:"stage"`
	DelayMs  float64 `yaml:"delay_ms" json:"delay_ms"`
	WithinMs float64 `yaml:"within_ms" json:"within_ms"`
}

// ScriptedRequest is one exact request.
type ScriptedRequest struct {
	AtMs      float64 `yaml:"at_ms" json:"at_ms"`
	Tenant    string  `yaml:"tenant" json:"tenant"`
	Prompt    string  `yaml:"prompt" json:"prompt"`
	MaxTokens int     `yaml:"max_tokens" json:"max_tokens"`
	// CacheSalt overrides the tenant's salt when set.
	CacheSalt *string `yaml:"cache_salt" json:"cache_salt"`
	// CancelAtMs cancels the request at that time (0: never).
	CancelAtMs float64 `yaml:"cancel_at_ms" json:"cancel_at_ms"`
	// Label is copied to the request's record, for the caller's bookkeeping.
	Label string `yaml:"label" json:"label"`
}

// Extraction is an attacker tenant that tries to read a victim's canary out of the shared
// prefix cache through the cached-token count (the telemetry oracle of vLLM #53795,
// leakage.md §5.4 items 6 and 10): it knows the shared system prompt and the "{" that
// opens the victim's secret, and probes one character at a time.
type Extraction struct {
	Attacker string `yaml:"attacker" json:"attacker"`
	Victim   string `yaml:"victim" json:"victim"`
	// AttackerSalt is the cache_salt the attacker sends (default: its own tenant's).
	AttackerSalt *string `yaml:"attacker_salt" json:"attacker_salt"`
	Alphabet     string  `yaml:"alphabet" json:"alphabet"`
	MaxLength    int     `yaml:"max_length" json:"max_length"`
	// PageSize is the page of the deployment the attack stands for (default: the
	// prefill worker's). The cache matches whole pages only, so a guess is confirmed only
	// when it completes a page: the attacker guesses every byte up to the next page
	// boundary at once, alphabet^k candidates for k bytes, and sees the reported count
	// rounded down to this page.
	PageSize int `yaml:"page_size" json:"page_size"`
	// MaxProbes bounds the attacker's requests (default 4096).
	MaxProbes int `yaml:"max_probes" json:"max_probes"`
	// StartMs is when the victim sends its primer request; the attack follows it.
	// Default: when the generated workload has drained.
	StartMs float64 `yaml:"start_ms" json:"start_ms"`
}
