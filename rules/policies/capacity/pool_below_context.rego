# METADATA
# title: KV pool smaller than the context window
# description: >-
#   The KV-cache pool of one scheduler holds fewer tokens than the context
#   window the server advertises, so one request that uses the whole window can
#   never be served. SGLang does not refuse this at startup: it only logs
#   max_total_num_tokens and context_len side by side (managers/tp_worker.py
#   alloc_memory_pool, scheduler.py). Requests within the advertised context
#   are then aborted ("Input length (N tokens) exceeds the maximum allowed
#   length", managers/utils.py validate_input_length, because max_req_len =
#   min(context_len-1, pool-1)), or have max_new_tokens clipped without an
#   error (scheduler.py init_req_max_new_tokens). In PD disaggregation the
#   prefill-side abort has let decode generate from an incomplete KV cache
#   (sglang#30233). Severity high: clients that trust the advertised context
#   fail or get truncated output in production, and nothing at startup says
#   so. The pool is judged when kvlint could compute it, or when an explicit
#   --max-total-tokens (a cap the engine never exceeds) already proves it too
#   small. Raised to critical when the server belongs to a disaggregated
#   deployment declared multi-tenant: that is the incident's exact
#   combination.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/issues/4048
#     description: context-length 160k over a ~60k-token pool; inputs rejected
#   - ref: https://github.com/sgl-project/sglang/issues/30233
#     description: PD prefill aborts an over-long input; decode generates garbage
#   - ref: https://github.com/sgl-project/sglang/pull/33814
#     description: max_new_tokens clipped silently at the pool/context boundary
# custom:
#   id: KV101
#   severity: high
#   remediation: >-
#     Make the pool hold at least one full context: raise --mem-fraction-static,
#     remove or raise --max-total-tokens, store the KV cache in fp8
#     (--kv-cache-dtype fp8_e4m3), shard the KV heads over more GPUs
#     (--tp-size), or lower --context-length to what the pool holds so clients
#     are told the real limit.
package kvlint.rules.pool_below_context

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	ctx := lib.context_tokens(s.capacity)
	limit := lib.pool_limit(s.capacity)
	limit.tokens < ctx
	finding := object.union(
		{
			"msg": message(s, limit),
			"server": s.index,
			"arg": lib.pool_arg(s.args),
		},
		lib.incident_raise(s),
	)
}

message(s, limit) := sprintf("%s, smaller than %s: a single long request cannot fit; SGLang starts anyway and %s%s%s%s", [
	lib.pool_phrase(limit),
	lib.context_phrase(s.capacity),
	consequence(limit),
	pd_note(s),
	lib.incident_note(s),
	lib.opaque_note(s.opaque),
])

# max_req_input_len = min(context-1, pool-1) - 5 (tp_worker.py
# get_worker_info); prompts of that length or more are aborted.
consequence(limit) := sprintf("aborts prompts of %s tokens or more, and silently clips max_new_tokens so prompt plus output stays inside the pool", [lib.thousands(limit.tokens - 6)]) if {
	limit.exact
} else := sprintf("aborts prompts of %s tokens or more (fewer if the GPU holds less), and silently clips max_new_tokens so prompt plus output stays inside the pool", [lib.thousands(limit.tokens - 6)])

pd_note(s) := "; in PD disaggregation an aborted prefill has let decode answer from an incomplete KV cache (sglang#30233)" if {
	s.role in {"prefill", "decode"}
} else := ""
