package capacity

import "github.com/kvlint/kvlint/deploy"

// Estimate is what kvlint knows about one server's KV-cache pool: the numbers
// the engine will compute at startup, each with the inputs it came from.
// A nil pointer means "unknown"; Missing says what the user could declare to
// make it known.
type Estimate struct {
	Engine deploy.Engine `json:"engine"`
	Model  string        `json:"model"` // as resolved (catalog id or local path); "" if unknown
	GPU    string        `json:"gpu"`   // catalog name; "" if unknown
	// GPUSource says where GPU came from: the label, selector or instance
	// type at its file:line:col, or "--gpu (the files name none)".
	GPUSource string `json:"gpu_source,omitempty"`
	GPUCount  int    `json:"gpu_count"`
	TP        int    `json:"tp"`
	DP        int    `json:"dp"`
	PP        int    `json:"pp"`
	KVDtype   string `json:"kv_dtype"` // the torch dtype the pool stores: bfloat16, float16, fp8_e4m3, …

	PageSize          int      `json:"page_size"`
	MemFractionStatic *float64 `json:"mem_fraction_static"`
	// MemFractionStaticFrom is, under --engine-release, the default
	// mem_fraction_static the server got on the release it ran before the
	// move (SGLang's rule changed across releases); nil when the flag
	// is written, the server was not moved, or it is unknown.
	MemFractionStaticFrom *float64 `json:"mem_fraction_static_from"`
	GPUMemoryBytes        *int64   `json:"gpu_memory_bytes"`
	WeightsBytesPerGPU    *int64   `json:"weights_bytes_per_gpu"`
	// KVBudgetBytes is the memory per GPU left for the pool; ≤ 0 means the
	// weights leave nothing and the server fails at startup.
	KVBudgetBytes     *int64 `json:"kv_budget_bytes"`
	CellBytesPerToken *int64 `json:"cell_bytes_per_token"`
	// PoolTokens is max_total_num_tokens per scheduler (per DP/attention-DP rank).
	PoolTokens *int64 `json:"pool_tokens"`
	// PoolUpperBound is the explicit --max-total-tokens: the pool is never
	// larger, whatever the model and GPU, so it bounds the pool even when
	// PoolTokens is unknown.
	PoolUpperBound *int64 `json:"pool_upper_bound"`
	// PoolBoundBasis says what proves PoolUpperBound (capacity/bounds.go):
	// an explicit cap (--max-total-tokens, --num-gpu-blocks-override) or
	// "memory", the GPU memory × fraction ÷ cell when the weights are
	// unknown; "" when there is no bound.
	PoolBoundBasis string `json:"pool_bound_basis"`
	ContextLength  *int64 `json:"context_length"`
	// ContextSource is "flag" (--context-length), "model" (derived from the
	// model config as the engine derives it) or "" when unknown.
	ContextSource       string `json:"context_source"`
	MaxRequestTokens    *int64 `json:"max_request_tokens"`    // min(context-1, pool-1)
	FullContextRequests *int64 `json:"full_context_requests"` // pool / context, floored
	MaxRunningRequests  *int64 `json:"max_running_requests"`  // explicit flag only
	// SWAPoolTokens is the sliding-window pool of a hybrid SWA model (gpt-oss):
	// its SWA layers keep this many tokens while the full layers keep
	// PoolTokens. nil for other models.
	SWAPoolTokens *int64 `json:"swa_pool_tokens"`
	// KVBlocks is vLLM's num_blocks per worker: the blocks every KV cache
	// group draws from. RequestBlocks is what one max_model_len request
	// takes from them, summed over the groups (a sliding-window group takes
	// only its window's blocks). LoggedKVTokens is the "GPU KV cache size:
	// N tokens" the server's release logs. All three are vLLM's only and
	// absent when unknown.
	KVBlocks       *int64 `json:"kv_blocks,omitempty"`
	RequestBlocks  *int64 `json:"request_blocks,omitempty"`
	LoggedKVTokens *int64 `json:"logged_kv_tokens,omitempty"`
	// StartupError is the error SGLang would stop with at startup under this
	// configuration ("Not enough memory…"), "" when none is expected.
	StartupError string `json:"startup_error"`
	// StartupArg is the canonical flag StartupError is about when it is
	// one flag the user must change (--tp-size when the parallelism needs
	// more GPUs than the server is given); "" otherwise.
	StartupArg string `json:"startup_arg,omitempty"`
	// GPUCandidates are the GPUs (catalog names, else as written) that the
	// GPU the files name could be when they differ in memory (SkyPilot
	// accelerators {L4, A100}, an affinity In [a, b], a name of two
	// memory sizes): the GPU is then unknown until one is declared.
	GPUCandidates []string `json:"gpu_candidates,omitempty"`
	// NotSized says why the pool is unknown when no declaration would
	// make it known: a way of keeping the KV cache kvlint does not model
	// (context parallelism, a cache layout, a hybrid grouping), or a
	// value the engine decides from one kvlint cannot read. "" otherwise.
	NotSized string `json:"not_sized,omitempty"`

	Assumptions []string `json:"assumptions"` // inputs that were assumed, not read
	Missing     []string `json:"missing"`     // what to declare: "model", "gpu", …
	Derivation  []string `json:"derivation"`  // the steps, human-readable, in order

	// inputs are the server and options the estimate was computed from, so
	// that With can recompute it under changed flags.
	inputs *estimateInputs
}
