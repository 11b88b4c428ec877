# METADATA
# title: KV pool smaller than context × concurrency
# description: >-
#   The pool holds at least one full context, but not as many full-context
#   requests as the server lets run at once (--max-running-requests) or as the
#   deployment declares it must serve (.kvlint.yaml expected_concurrency,
#   shared over the server's schedulers: replicas × data-parallel ranks). When
#   long requests arrive together, SGLang's prefill admission finds no free
#   tokens and leaves new requests waiting in the queue without an error
#   (managers/schedule_policy.py PrefillAdder, NO_TOKEN), and decode retracts
#   running requests, frees their KV and recomputes them from scratch later
#   ("KV cache pool is full. Retract requests", scheduler.py
#   update_running_batch). Severity medium: requests still complete, but
#   latency and throughput collapse exactly at the load the configuration
#   promises to carry (sglang#26248), and the last request that does not fit
#   is aborted (sglang#19881). KV101 covers a pool below one context. Raised
#   to critical when the server belongs to a disaggregated deployment
#   declared multi-tenant, where retraction and aborts hit every tenant.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/issues/26248
#     description: decode throughput collapse after KV cache retraction
#   - ref: https://github.com/sgl-project/sglang/pull/19881
#     description: the last request is aborted when retraction frees too little
#   - ref: https://github.com/sgl-project/sglang/issues/14972
#     description: overlap schedule plus retraction fails allocation
# custom:
#   id: KV102
#   severity: medium
#   remediation: >-
#     Size the pool for context × concurrency: raise --mem-fraction-static,
#     remove or raise --max-total-tokens, use an fp8 KV cache
#     (--kv-cache-dtype fp8_e4m3) or more GPUs; or lower --max-running-requests
#     (or expected_concurrency, with more replicas) to the number of
#     full-context requests the pool holds; or lower --context-length.
package kvlint.rules.pool_below_concurrency

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	concurrency_declared(s) # cheap, and false for most servers
	ctx := lib.context_tokens(s.capacity)
	limit := lib.pool_limit(s.capacity)
	limit.tokens >= ctx
	demand := concurrency(s)
	limit.tokens < ctx * demand.per_scheduler
	finding := object.union(
		{
			"msg": sprintf("%s: room for %s%d full-context requests at %s, but %s; when long requests arrive together, new ones wait in the queue with no error (prefill admission finds no free tokens) and running ones are retracted mid-decode and recomputed from scratch (\"KV cache pool is full. Retract requests\")%s%s", [
				lib.pool_phrase(limit),
				at_most(limit),
				floor(limit.tokens / ctx),
				lib.context_phrase(s.capacity),
				demand.phrase,
				lib.incident_note(s),
				lib.opaque_note(s.opaque),
			]),
			"server": s.index,
			"arg": demand.arg,
		},
		lib.incident_raise(s),
	)
}

# concurrency_declared holds when concurrency(s) may be defined.
concurrency_declared(s) if is_number(s.capacity.max_running_requests)

concurrency_declared(_) if is_number(input.settings.expected_concurrency)

at_most(limit) := "" if {
	limit.exact
} else := "at most "

# concurrency(s) is how many requests one scheduler must hold at once: the
# explicit --max-running-requests first, else the deployment's declared
# concurrency shared over its schedulers.
concurrency(s) := {
	"per_scheduler": n,
	"arg": "--max-running-requests",
	"phrase": running_phrase(s, mrr, n),
} if {
	mrr := s.capacity.max_running_requests
	is_number(mrr)
	n := per_worker_running(s, mrr)
} else := {
	"per_scheduler": n,
	"arg": lib.pool_arg(s.args),
	"phrase": expected_phrase(expected, n, schedulers(s)),
} if {
	expected := input.settings.expected_concurrency
	is_number(expected)
	expected > 0
	n := ceil(expected / schedulers(s))
}

# With DP attention each attention-DP rank gets --max-running-requests // dp;
# without it every data-parallel replica gets the full value
# (mem_cache/kv_cache_configurator.py resolve_max_num_reqs, value //
# attn_dp_size).
per_worker_running(s, mrr) := floor(mrr / dp(s)) if {
	dp_attention(s)
} else := mrr

running_phrase(s, mrr, n) := sprintf("--max-running-requests %d over %d attention-DP ranks lets %d run at once on each", [mrr, dp(s), n]) if {
	dp_attention(s)
} else := sprintf("--max-running-requests lets %d run at once", [n])

expected_phrase(expected, n, count_) := sprintf("the deployment expects %d concurrent full-context requests (expected_concurrency), %d for each of its %d schedulers", [expected, n, count_]) if {
	count_ > 1
} else := sprintf("the deployment expects %d concurrent full-context requests (expected_concurrency)", [expected])

dp_attention(s) if {
	s.args["--enable-dp-attention"].typed == true
	dp(s) > 1
}

dp(s) := s.capacity.dp if {
	is_number(s.capacity.dp)
	s.capacity.dp > 0
} else := 1

# Every replica and every data-parallel rank runs its own scheduler with its
# own pool (managers/data_parallel_controller.py).
schedulers(s) := dp(s) * replicas(s)

replicas(s) := s.replicas if {
	is_number(s.replicas)
	s.replicas > 0
} else := 1
