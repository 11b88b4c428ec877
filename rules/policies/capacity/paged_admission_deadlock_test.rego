package kvlint.rules.paged_admission_deadlock_test

import data.kvlint.rules.paged_admission_deadlock
import data.kvlint.test

test_fires_with_page_size_flag if {
	srv := test.server({
		"args": {
			"--page-size": {"value": "64", "known": true, "typed": 64},
			"--max-total-tokens": {"value": "65536", "known": true, "typed": 65536},
		},
		"capacity": {"page_size": 64, "pool_tokens": 65536, "pool_upper_bound": 65536},
	})
	findings := paged_admission_deadlock.deny with input as test.input_with([srv])
	findings == {{
		"msg": "page size 64 with the model's 131,072-token context window over a pool of 65,536 tokens: a prompt that passes validation can still never be admitted (prefill needs input + clipped output + one 64-token page free at once), so it waits at the head of the queue with no error and stalls the requests behind it (sglang#28530, #29249)",
		"server": 0,
		"arg": "--page-size",
	}}
}

test_fires_on_a_backend_page_size_pointing_at_the_pool if {
	srv := test.server({
		"args": {"--max-total-tokens": {"value": "65536", "known": true, "typed": 65536}},
		"capacity": object.union(test.unknown_capacity, {
			"page_size": 64,
			"pool_upper_bound": 65536,
			"context_length": 131072,
			"context_source": "model",
		}),
	})
	some f in paged_admission_deadlock.deny with input as test.input_with([srv])
	f.arg == "--max-total-tokens"
	contains(f.msg, "over a pool of at most 65,536 tokens")
}

test_quiet_with_page_size_one if {
	srv := test.server({"capacity": {"page_size": 1, "pool_tokens": 65536}})
	count(paged_admission_deadlock.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_the_pool_holds_the_context if {
	srv := test.server({"capacity": {"page_size": 64}})
	count(paged_admission_deadlock.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_context_unknown if {
	srv := test.server({"capacity": {"page_size": 64, "pool_tokens": 65536, "context_length": null}})
	count(paged_admission_deadlock.deny) == 0 with input as test.input_with([srv])
}
