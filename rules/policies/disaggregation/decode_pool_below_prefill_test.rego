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
	p := test.prefill({"capacity": {"max_request_tokens": null}})
	count(decode_pool_below_prefill.deny) == 0 with input as test.pd_input([p, small_decode], {})
}
