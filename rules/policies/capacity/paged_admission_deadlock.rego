# METADATA
# title: Paged KV pool smaller than the context window can stall the queue
# description: >-
#   With --page-size above 1 and a context window larger than the pool, a
#   request can pass input validation and still never be admitted: prefill
#   admission needs the whole input, the clipped output and one more page free
#   at once (managers/schedule_policy.py PrefillAdder add_one_req, NO_TOKEN),
#   which such a request can never get. It stays at the head of the waiting
#   queue with no error and requests behind it wait too. This is the admission
#   deadlock of sglang#28530; #25126 clipped max_new_tokens to the pool, and
#   #29249 (open) shows validation and admission still disagree. Severity
#   high: one long prompt can stall a server for every tenant, and nothing is
#   logged as an error. KV101 reports the undersized pool itself; this finding
#   points at the page size that turns it into a stall.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/issues/28530
#     description: NO_TOKEN admission deadlock when page_size > 1 and context_len > max_total_num_tokens
#   - ref: https://github.com/sgl-project/sglang/pull/29249
#     description: admission validation still mismatched (open)
#   - ref: https://github.com/sgl-project/sglang/pull/25126
#     description: scheduler admission fix for near-full KV requests
# custom:
#   id: KV104
#   severity: high
#   remediation: >-
#     Make the pool hold the whole context window (see KV101: raise
#     --mem-fraction-static, remove or raise --max-total-tokens, fp8 KV cache,
#     more GPUs), or lower --context-length below the pool size minus one page
#     so the tokenizer rejects what the scheduler could never admit.
package kvlint.rules.paged_admission_deadlock

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	page := s.capacity.page_size
	is_number(page)
	page > 1
	ctx := lib.context_tokens(s.capacity)
	limit := lib.pool_limit(s.capacity)
	limit.tokens < ctx
	finding := {
		"msg": sprintf("page size %d with %s over a pool of %s%s tokens: a prompt that passes validation can still never be admitted (prefill needs input + clipped output + one %d-token page free at once), so it waits at the head of the queue with no error and stalls the requests behind it (sglang#28530, #29249)%s", [
			page,
			lib.context_phrase(s.capacity),
			at_most(limit),
			lib.thousands(limit.tokens),
			page,
			lib.opaque_note(s.opaque),
		]),
		"server": s.index,
		"arg": page_arg(s),
	}
}

at_most(limit) := "" if {
	limit.exact
} else := "at most "

# The page size may come from the attention backend rather than the flag
# (arg_groups/overrides.py _page_size_default); then the pool is what to fix.
page_arg(s) := "--page-size" if {
	s.args["--page-size"]
} else := lib.pool_arg(s.args)
