package kvlint.rules.pool_below_concurrency_test

import data.kvlint.rules.pool_below_concurrency
import data.kvlint.test

# 262,144 tokens: two full 131,072-token contexts.
two_contexts := {"pool_tokens": 262144}

test_fires_on_max_running_requests if {
	srv := test.server({
		"args": {"--max-running-requests": {"value": "16", "known": true, "typed": 16}},
		"capacity": object.union(two_contexts, {"max_running_requests": 16}),
	})
	findings := pool_below_concurrency.deny with input as test.input_with([srv])
	findings == {{
		"msg": "KV pool holds 262,144 tokens per scheduler: room for 2 full-context requests at the model's 131,072-token context window, but --max-running-requests lets 16 run at once; when long requests arrive together, new ones wait in the queue with no error (prefill admission finds no free tokens) and running ones are retracted mid-decode and recomputed from scratch (\"KV cache pool is full. Retract requests\")",
		"server": 0,
		"arg": "--max-running-requests",
	}}
}

test_fires_on_expected_concurrency_shared_over_schedulers if {
	srv := test.server({"replicas": 2, "capacity": object.union(two_contexts, {"dp": 2})})
	inp := object.union(test.input_with([srv]), {"settings": {"expected_concurrency": 12}})
	some f in pool_below_concurrency.deny with input as inp
	contains(f.msg, "expects 12 concurrent full-context requests (expected_concurrency), 3 for each of its 4 schedulers")
	f.arg == ""
}

test_fires_on_a_max_total_tokens_bound if {
	srv := test.server({
		"args": {"--max-total-tokens": {"value": "200000", "known": true, "typed": 200000}},
		"capacity": {"pool_tokens": null, "pool_upper_bound": 200000, "max_running_requests": 8, "context_length": 32768},
	})
	some f in pool_below_concurrency.deny with input as test.input_with([srv])
	startswith(f.msg, "--max-total-tokens caps the KV pool at 200,000 tokens per scheduler: room for at most 6 full-context requests")
}

test_quiet_with_dp_attention_splitting_the_running_requests if {
	# 16 // 8 attention-DP ranks = 2 per scheduler: exactly what the pool holds.
	srv := test.server({
		"args": {"--enable-dp-attention": {"value": "true", "known": true, "typed": true}},
		"capacity": object.union(two_contexts, {"max_running_requests": 16, "dp": 8}),
	})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_fires_with_dp_attention_when_the_share_is_too_big if {
	srv := test.server({
		"args": {"--enable-dp-attention": {"value": "true", "known": true, "typed": true}},
		"capacity": object.union(two_contexts, {"max_running_requests": 64, "dp": 8}),
	})
	some f in pool_below_concurrency.deny with input as test.input_with([srv])
	contains(f.msg, "--max-running-requests 64 over 8 attention-DP ranks lets 8 run at once on each")
}

test_quiet_when_pool_holds_the_concurrency if {
	srv := test.server({"capacity": object.union(two_contexts, {"max_running_requests": 2})})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_no_concurrency_is_declared if {
	srv := test.server({"capacity": two_contexts})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_pool_is_below_one_context if {
	# KV101's case: not repeated here.
	srv := test.server({"capacity": {"pool_tokens": 61440, "max_running_requests": 8}})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_context_unknown if {
	srv := test.server({"capacity": {"pool_tokens": 1000, "context_length": null, "max_running_requests": 8}})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_context_is_zero if {
	srv := test.server({"capacity": {"pool_tokens": 1000, "context_length": 0, "max_running_requests": 8}})
	count(pool_below_concurrency.deny) == 0 with input as test.input_with([srv])
}

test_fires_critical_in_a_declared_multi_tenant_pd_deployment if {
	d := test.decode({
		"args": {"--max-running-requests": {"value": "64", "known": true, "typed": 64}},
		"capacity": {"pool_tokens": 200000, "max_running_requests": 64},
	})
	some f in pool_below_concurrency.deny with input as test.pd_input([test.prefill({}), d], {})
	f.severity == "critical"
	contains(f.msg, "; critical because deployment pd is disaggregated and declared multi-tenant")
}
