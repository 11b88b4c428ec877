package kvlint.rules.decode_pool_below_prefill_test

import data.kvlint.rules.decode_pool_below_prefill
import data.kvlint.test

small_decode := test.decode({
	"args": {
		"--context-length": {"value": "32768", "known": true, "typed": 32768},
		"--max-total-tokens": {"value": "40000", "known": true, "typed": 40000},
	},
	"capacity": {"pool_tokens": 40000, "context_length": 32768, "context_source": "flag", "max_request_tokens": 32767},
})

test_fires_when_prefill_admits_more_than_decode_holds if {
	findings := decode_pool_below_prefill.deny with input as test.pd_input([test.prefill({}), small_decode], {})
	findings == {{
		"msg": "KV pool holds 40,000 tokens per scheduler, fewer than the 131,071-token prompts its prefill server prefill (prefill.yaml:20) admits: such a prompt is prefilled, sent, and then aborted by the decode server (\"exceeds the maximum number of tokens\", disaggregation/decode.py), and prompts near the limit wait in the decode pre-allocation queue while the prefill side holds their KV",
		"server": 1,
		"arg": "--max-total-tokens",
	}}
}

test_quiet_when_decode_holds_the_longest_prompt if {
	count(decode_pool_below_prefill.deny) == 0 with input as test.pd_input([test.prefill({}), test.decode({})], {})
}

test_quiet_when_kv101_already_reports_the_decode_pool if {
	d := test.decode({"capacity": {"pool_tokens": 65536}})
	count(decode_pool_below_prefill.deny) == 0 with input as test.pd_input([test.prefill({}), d], {})
}

test_quiet_when_the_prefill_limit_is_unknown if {
	p := test.prefill({"capacity": object.union(test.unknown_capacity, {"context_length": null})})
	count(decode_pool_below_prefill.deny) == 0 with input as test.pd_input([p, small_decode], {})
}

# The prefill's GPU unknown: its pool is not sized, but its context window
# admits up to 131,071 tokens, more than the decode cap holds.
test_fires_on_the_cap_when_the_prefill_gpu_is_unknown if {
	p := test.prefill({"capacity": object.union(test.unknown_capacity, {
		"context_length": 131072,
		"context_source": "model",
		"missing": ["gpu"],
	})})
	some f in decode_pool_below_prefill.deny with input as test.pd_input([p, small_decode], {})
	f.server == 1
	f.arg == "--max-total-tokens"
	contains(f.msg, "fewer than the 131,071-token prompts its prefill server prefill (prefill.yaml:20) admits by its context window (kvlint cannot size its own pool, which may admit fewer): such a prompt")
}

# Both GPUs unknown: the decode cap (--max-total-tokens) is still compared.
test_fires_when_neither_gpu_is_known if {
	p := test.prefill({"capacity": object.union(test.unknown_capacity, {
		"context_length": 131072,
		"context_source": "model",
		"missing": ["gpu"],
	})})
	d := test.decode({
		"args": {"--max-total-tokens": {"value": "40000", "known": true, "typed": 40000}},
		"capacity": object.union(test.unknown_capacity, {
			"pool_upper_bound": 40000,
			"pool_bound_basis": "--max-total-tokens",
			"context_length": 32768,
			"context_source": "flag",
			"missing": ["gpu"],
		}),
	})
	some f in decode_pool_below_prefill.deny with input as test.pd_input([p, d], {})
	startswith(f.msg, "--max-total-tokens caps the KV pool at 40,000 tokens per scheduler, fewer than the 131,071-token prompts")
}

# A prefill that would not start admits nothing.
test_quiet_when_the_prefill_wont_start if {
	p := test.prefill({"capacity": object.union(test.unknown_capacity, {
		"context_length": 131072,
		"startup_error": "RuntimeError: Not enough memory.",
	})})
	count(decode_pool_below_prefill.deny) == 0 with input as test.pd_input([p, small_decode], {})
}

# By release: before 0.4.7.post1 the decode server has no capacity check and
# its pre-allocation queue stops at the prompt; from it on, the prompt is
# aborted.
test_decode_queue_stops_before_the_capacity_check if {
	d := object.union(small_decode, {"release": {"version": "0.4.7"}})
	some f in decode_pool_below_prefill.deny with input as test.pd_input([test.prefill({}), d], {})
	contains(f.msg, "admits: SGLang v0.4.7 has no decode capacity check (sglang#7196 came in 0.4.7.post1)")
	not contains(f.msg, "aborted by the decode server")
}

test_decode_aborts_from_the_capacity_check_on if {
	d := object.union(small_decode, {"release": {"version": "0.4.7.post1"}})
	some f in decode_pool_below_prefill.deny with input as test.pd_input([test.prefill({}), d], {})
	contains(f.msg, "then aborted by the decode server")
}
