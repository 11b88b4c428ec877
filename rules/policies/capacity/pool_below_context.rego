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
#   (sglang#30233); the note follows the release the server runs: before
#   0.4.7 (sglang#6803) the prefill scheduler swaps the prompt for a
#   one-token placeholder that still goes through the transfer, and up to
#   0.5.6.post2 the decode server has no bootstrap-room check (sglang#17430),
#   so a stray transfer can surface in another request. Severity high: clients that trust the advertised context
#   fail or get truncated output in production, and nothing at startup says
#   so. The pool is judged when kvlint could compute it, or when an explicit
#   --max-total-tokens (a cap the engine never exceeds) already proves it too
#   small, or when the GPU's memory × mem_fraction_static ÷ the cell does
#   (the weights unknown, the pool can only be smaller). Raised to critical when the server belongs to a disaggregated
#   deployment declared multi-tenant: that is the incident's exact
#   combination.
#   vLLM checks the same thing itself and refuses to start: each worker's KV
#   cache must hold one request of max_model_len tokens, or it raises
#   ValueError("To serve at least one request with the models's max seq len
#   (…), (… GiB KV cache is needed, which is larger than the available KV
#   cache memory (… GiB). Based on the available memory, the estimated
#   maximum model length is …", vllm/v1/core/kv_cache_utils.py
#   _check_enough_kv_cache_memory). Releases before V1 became the default
#   (v0.8.0, vllm#13726) run the V0 engine, whose check says the same in
#   tokens: ValueError("The model's max seq len (…) is larger than the
#   maximum number of tokens that can be stored in KV cache (…)",
#   vllm/worker/worker.py raise_if_cache_size_invalid); kvlint quotes the
#   error of the release the server runs. For vLLM servers kvlint reports, before
#   the pod crash-loops, what vLLM would report after loading the weights, in
#   the same terms; capacity computes the numbers (needed and available GiB,
#   the estimated maximum model length) and the error text.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/issues/4048
#     description: context-length 160k over a ~60k-token pool; inputs rejected
#   - ref: https://github.com/sgl-project/sglang/issues/30233
#     description: PD prefill aborts an over-long input; decode generates garbage
#   - ref: https://github.com/sgl-project/sglang/pull/6803
#     description: from 0.4.7 an over-long prompt is aborted, no longer swapped for a placeholder
#   - ref: https://github.com/sgl-project/sglang/pull/17430
#     description: the decode bootstrap-room check, not in any release up to 0.5.6.post2
#   - ref: https://github.com/sgl-project/sglang/pull/33814
#     description: max_new_tokens clipped silently at the pool/context boundary
#   - ref: https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_utils.py
#     description: vLLM's startup check (_check_enough_kv_cache_memory) and its ValueError
#   - ref: https://docs.vllm.ai/en/latest/configuration/conserving_memory/
#     description: vLLM's advice for a KV cache too small for max_model_len
# custom:
#   id: KV101
#   severity: high
#   remediation: >-
#     Make the pool hold at least one full context: raise --mem-fraction-static,
#     remove or raise --max-total-tokens, store the KV cache in fp8
#     (--kv-cache-dtype fp8_e4m3), shard the KV heads over more GPUs
#     (--tp-size), or lower --context-length to what the pool holds so clients
#     are told the real limit. For vLLM: lower --max-model-len to the estimated
#     maximum model length or below, raise --gpu-memory-utilization or
#     --kv-cache-memory-bytes, store the KV cache in fp8 (--kv-cache-dtype
#     fp8), or shard over more GPUs (--tensor-parallel-size).
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
} else := sprintf("aborts prompts of %s tokens or more (fewer, once the weights take their share of the memory), and silently clips max_new_tokens so prompt plus output stays inside the pool", [lib.thousands(limit.tokens - 6)]) if {
	limit.basis == "memory"
} else := sprintf("aborts prompts of %s tokens or more (fewer if the GPU holds less), and silently clips max_new_tokens so prompt plus output stays inside the pool", [lib.thousands(limit.tokens - 6)])

# pd_note(s) is what an over-long prompt does to the PD pair on the release
# s runs:
#   - before 0.4.7 the prefill scheduler, after validate_input_length set
#     FINISH_ABORT, swapped the prompt for a one-token placeholder
#     (origin_input_ids = [0], max_new_tokens = 0) and queued it like any
#     other request, into the prefill bootstrap queue that feeds the KV
#     transfer (managers/scheduler.py handle_generate_request →
#     _add_request_to_queue), and the inflight queue set FINISH_LENGTH over
#     the abort once the transfer succeeded (disaggregation/prefill.py
#     process_disagg_prefill_inflight_queue), read at 0.4.4.post2 1099f6c9
#     and 0.4.6.post5 7e257cd6;
#     sglang#6803 (20fd53b8f, first in 0.4.7) made it set_finish_with_abort
#     instead;
#   - from 0.4.7 the aborted request is still queued for transfer, and
#     decode has answered from an incomplete KV cache (sglang#30233, no fix
#     merged in the mirror);
#   - up to 0.5.6.post2 the decode server does not compare the metadata
#     buffer's bootstrap room with the request's (the check, 8ed35df20,
#     sglang#17430, is not an ancestor of 0.5.6.post2's version bump
#     5c8bd8b5), so such a transfer can surface in another request's answer
#     (PR #34208). The first release with the check is not known here, so
#     an unknown or newer release gets the plain note.
pd_note(s) := sprintf("; in PD disaggregation SGLang v%s still sends such a prompt on: the prefill scheduler swaps it for a one-token placeholder that is queued for the KV transfer like any other request and marked finished when the transfer completes (scheduler.py handle_generate_request, disaggregation/prefill.py; sglang#6803 changed this in 0.4.7), so decode is sent the placeholder's KV instead of the prompt's, and with no bootstrap-room check on decode (sglang#17430 came after v0.5.6.post2) it can land in another request", [s.release.version]) if {
	s.role in {"prefill", "decode"}
	lib.sglang_release_before(s.engine, s.release, "0.4.7")
} else := sprintf("; in PD disaggregation an aborted prefill has let decode answer from an incomplete KV cache (sglang#30233), and SGLang v%s has no bootstrap-room check on decode (sglang#17430 came after v0.5.6.post2), so the answer can even be another request's (sglang PR #34208)", [s.release.version]) if {
	s.role in {"prefill", "decode"}
	lib.sglang_release_before(s.engine, s.release, "0.5.7")
} else := "; in PD disaggregation an aborted prefill has let decode answer from an incomplete KV cache (sglang#30233)" if {
	s.role in {"prefill", "decode"}
} else := ""

# vLLM: capacity found that vLLM's startup check fails (its error text is the
# estimate's startup_error; the stable part is "max seq len").
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	err := lib.startup_error(s.capacity)
	contains(err, "max seq len")
	finding := object.union(
		{
			"msg": vllm_message(s, err),
			"server": s.index,
			"arg": vllm_arg(s.args),
		},
		lib.incident_raise(s),
	)
}

# vLLM with --num-gpu-blocks-override proving the cache too small while the
# model is unknown: the check plans with the override
# (kv_cache_utils.py get_kv_cache_configs), so no memory figure is needed.
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	c := s.capacity
	lib.startup_error(c) == ""
	not is_number(c.pool_tokens)
	ctx := lib.context_tokens(c)
	is_number(c.pool_upper_bound)
	c.pool_upper_bound < ctx
	not object.get(c, "pool_bound_basis", "") == "memory"
	finding := object.union(
		{
			"msg": sprintf("--num-gpu-blocks-override caps vLLM's KV cache at %s tokens, fewer than %s: vLLM refuses to start, its startup check raising ValueError \"To serve at least one request with the models's max seq len (%d) …\"%s%s", [
				lib.thousands(c.pool_upper_bound),
				vllm_context_phrase(c),
				ctx,
				vllm_incident_note(s),
				lib.opaque_note(s.opaque),
			]),
			"server": s.index,
			"arg": "--num-gpu-blocks-override",
		},
		lib.incident_raise(s),
	)
}

# vLLM whose weights are unknown, with the GPU's memory alone proving the
# cache too small for max_model_len (capacity/bounds.go memoryBoundVLLM):
# the startup check fails whatever the weights.
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	c := s.capacity
	lib.startup_error(c) == ""
	not is_number(c.pool_tokens)
	ctx := lib.context_tokens(c)
	c.pool_bound_basis == "memory"
	c.pool_upper_bound < ctx
	finding := object.union(
		{
			"msg": sprintf("vLLM's KV cache holds at most %s tokens (a bound: the GPU's memory × gpu_memory_utilization ÷ the per-token cell, as if the weights, which kvlint does not know, took nothing), fewer than %s: vLLM refuses to start, its startup check raising ValueError \"To serve at least one request with the models's max seq len (%d) …\"%s%s", [
				lib.thousands(c.pool_upper_bound),
				vllm_context_phrase(c),
				ctx,
				vllm_incident_note(s),
				lib.opaque_note(s.opaque),
			]),
			"server": s.index,
			"arg": vllm_arg(s.args),
		},
		lib.incident_raise(s),
	)
}

vllm_message(s, err) := sprintf("vLLM refuses to start: one request of %s needs %s GiB of KV cache per GPU, more than the %s GiB available, so the longest request its cache holds (vLLM's estimated maximum model length) is %s tokens; vLLM stops after loading the weights with \"%s\"%s%s", [
	vllm_context_phrase(s.capacity),
	gib[0],
	gib[1],
	vllm_estimate(err),
	err,
	vllm_incident_note(s),
	lib.opaque_note(s.opaque),
]) if {
	gib := [m[1] | some m in regex.find_all_string_submatch_n(`\(([0-9.]+) GiB`, err, -1)]
	count(gib) == 2
} else := sprintf("vLLM refuses to start: one request of %s needs more than the %s tokens its KV cache holds; the V0 engine of %s stops after profiling memory with \"%s\"%s%s", [
	vllm_context_phrase(s.capacity),
	lib.thousands(to_number(held[0][1])),
	release_phrase(s),
	err,
	vllm_incident_note(s),
	lib.opaque_note(s.opaque),
]) if {
	# V0's error (releases before V1 became the default) counts tokens:
	# "… stored in KV cache (N)" (worker.py raise_if_cache_size_invalid).
	held := regex.find_all_string_submatch_n(`stored in KV cache \(([0-9]+)\)`, err, 1)
	count(held) == 1
} else := sprintf("vLLM refuses to start: its KV cache cannot hold one request of %s; it stops with \"%s\"%s%s", [
	vllm_context_phrase(s.capacity),
	err,
	vllm_incident_note(s),
	lib.opaque_note(s.opaque),
])

# release_phrase names the release the server runs.
release_phrase(s) := sprintf("vLLM v%s", [s.release.version]) if {
	is_string(s.release.version)
} else := "this vLLM release"

# vllm_estimate is the length vLLM's message estimates, with separators, or
# "no" when the cache holds less than one block.
vllm_estimate(err) := lib.thousands(to_number(m[0][1])) if {
	m := regex.find_all_string_submatch_n(`estimated maximum model length is ([0-9]+)`, err, 1)
	count(m) == 1
} else := "no"

vllm_context_phrase(c) := sprintf("max_model_len %s tokens (--max-model-len)", [lib.thousands(c.context_length)]) if {
	c.context_source == "flag"
} else := sprintf("the model's %s-token max_model_len", [lib.thousands(c.context_length)])

# vllm_arg: an explicit cap first, then the two flags vLLM's own message
# names (max_model_len, gpu_memory_utilization).
vllm_arg(args) := lib.first_given(args, ["--num-gpu-blocks-override", "--kv-cache-memory-bytes", "--max-model-len", "--gpu-memory-utilization"])

vllm_incident_note(s) := sprintf("; critical because deployment %s is disaggregated and declared multi-tenant", [lib.deployment_of(s).name]) if {
	lib.incident_raise(s).severity == "critical"
} else := ""
