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
#   their KV, up to SGLANG_DISAGGREGATION_WAITING_TIMEOUT. That check came
#   in 0.4.7.post1 (sglang#7196); on an older release the decode
#   pre-allocation queue stops at such a prompt and everything queued
#   behind it waits, and the finding says so. Reported when the
#   decode pool is not already reported smaller than the decode server's own
#   context window (KV101). When the prefill pool cannot be sized (its GPU
#   or model unknown), its context window is what it admits at most, and a
#   decode cap below it is still reported. Severity high: long requests fail after their
#   prefill, and the pair stalls under load.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/decode.py
#     description: _check_if_req_exceed_kv_capacity aborts inputs larger than the decode pool
#   - ref: https://github.com/sgl-project/sglang/issues/30233
#     description: PD with a small max_total_num_tokens generates garbage after aborts
#   - ref: https://github.com/sgl-project/sglang/pull/7196
#     description: added the decode capacity check (first in 0.4.7.post1)
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
	admitted := admits(p.capacity)
	limit := lib.pool_limit(q.capacity)
	limit.tokens < admitted.tokens
	not own_context_too_big(q.capacity, limit)
	finding := {
		"msg": sprintf("%s, fewer than the %s-token prompts its prefill server %s admits%s: %s", [
			lib.pool_phrase(limit),
			lib.thousands(admitted.tokens),
			lib.where(p),
			admitted_note(admitted),
			consequence(q),
		]),
		"server": q.index,
		"arg": lib.pool_arg(q.args),
	}
}

# admits(c) is the longest prompt the prefill server admits: max_req_len =
# min(context-1, pool-1) when its pool is sized; when it is not (its GPU or
# model unknown), its context window still admits up to context-1, and a
# decode cap below that is a fault whichever side is smaller: either the
# prefill's own pool is below its context too, or the decode aborts what
# prefill admitted.
admits(c) := {"tokens": c.max_request_tokens, "exact": true} if {
	is_number(c.max_request_tokens)
} else := {"tokens": ctx - 1, "exact": false} if {
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	ctx := lib.context_tokens(c)
}

# consequence(q) is what the decode server q does with such a prompt on the
# release it runs. The capacity check that aborts it
# (_check_if_req_exceed_kv_capacity) came with db0cc57e7 (sglang#7196,
# 2025-06-14), first in 0.4.7.post1 (f9dc9dd2; not an ancestor of 0.4.7's
# 4f723edd). Before it, DecodePreallocQueue.pop_preallocated stops at the
# first request that needs more tokens than the pool has free ("if
# required_tokens_for_request > allocatable_tokens: break", read at
# 0.4.4.post2 1099f6c9, 0.4.6.post5 7e257cd6 and 0.4.7 4f723edd), and a
# prompt larger than the whole pool never fits: the queue stops there.
consequence(q) := sprintf("SGLang v%s has no decode capacity check (sglang#7196 came in 0.4.7.post1), so such a prompt is prefilled and sent, and the decode pre-allocation queue stops at it for good (disaggregation/decode.py pop_preallocated breaks on a request larger than the free pool): it and every request queued behind it wait while the prefill side holds their KV", [q.release.version]) if {
	lib.sglang_release_before(q.engine, q.release, "0.4.7.post1")
} else := "such a prompt is prefilled, sent, and then aborted by the decode server (\"exceeds the maximum number of tokens\", disaggregation/decode.py), and prompts near the limit wait in the decode pre-allocation queue while the prefill side holds their KV"

admitted_note(a) := "" if {
	a.exact
} else := " by its context window (kvlint cannot size its own pool, which may admit fewer)"

# own_context_too_big: KV101 already reports the decode pool against the
# decode server's own context window.
own_context_too_big(c, limit) if limit.tokens < lib.context_tokens(c)
