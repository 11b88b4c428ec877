# METADATA
# title: Decode pool smaller than the longest request prefill admits
# description: >-
#   The prefill server admits a prompt by its own limits (max_req_input_len
#   = min(context-1, pool-1), managers/tp_worker.py), computes its KV and
#   sends it; the decode server then checks the prompt against its own pool
#   and aborts it with HTTP 400 "Request … exceeds the maximum number of
#   tokens" (disaggregation/decode.py _check_if_req_exceed_kv_capacity) —
#   after the prefill GPUs did the work. Shorter prompts that still need most
#   of the pool wait in the pre-allocation queue while the prefill side holds
#   their KV, up to SGLANG_DISAGGREGATION_WAITING_TIMEOUT. Reported when the
#   decode pool is not already reported smaller than the decode server's own
#   context window (KV101). Severity high: long requests fail after their
#   prefill, and the pair stalls under load.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/decode.py
#     description: _check_if_req_exceed_kv_capacity aborts inputs larger than the decode pool
#   - ref: https://github.com/sgl-project/sglang/issues/30233
#     description: PD with a small max_total_num_tokens generates garbage after aborts
# custom:
#   id: KV205
#   severity: high
#   remediation: >-
#     Size the decode pool for the longest prompt the prefill side admits
#     (raise its --mem-fraction-static, drop or raise --max-total-tokens, add
#     GPUs), or lower the prefill server's --context-length to what the decode
#     pool holds.
package kvlint.rules.decode_pool_below_prefill

import data.kvlint.lib

deny contains finding if {
	some pair in lib.pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	admitted := p.capacity.max_request_tokens
	is_number(admitted)
	limit := lib.pool_limit(q.capacity)
	limit.tokens < admitted
	not own_context_too_big(q.capacity, limit)
	finding := {
		"msg": sprintf("%s, fewer than the %s-token prompts its prefill server %s admits: such a prompt is prefilled, sent, and then aborted by the decode server (\"exceeds the maximum number of tokens\", disaggregation/decode.py), and prompts near the limit wait in the decode pre-allocation queue while the prefill side holds their KV", [
			lib.pool_phrase(limit),
			lib.thousands(admitted),
			lib.where(p),
		]),
		"server": q.index,
		"arg": lib.pool_arg(q.args),
	}
}

# own_context_too_big: KV101 already reports the decode pool against the
# decode server's own context window.
own_context_too_big(c, limit) if limit.tokens < lib.context_tokens(c)
