package kvlint.lib_test

import data.kvlint.lib
import data.kvlint.test

test_thousands if {
	lib.thousands(0) == "0"
	lib.thousands(7) == "7"
	lib.thousands(999) == "999"
	lib.thousands(1000) == "1,000"
	lib.thousands(61440) == "61,440"
	lib.thousands(131072) == "131,072"
	lib.thousands(1048576) == "1,048,576"
	lib.thousands(-2048) == "-2,048"
}

test_one_decimal_and_gib if {
	lib.one_decimal(0) == "0.0"
	lib.one_decimal(0.04) == "0.0"
	lib.one_decimal(2.25) == "2.3"
	lib.one_decimal(79) == "79.0"
	lib.one_decimal(-1.5) == "-1.5"
	lib.gib(85520809984) == "79.6 GiB"
	lib.gib(-3221225472) == "-3.0 GiB"
}

test_first_given_prefers_the_earliest_flag if {
	args := {"--tp-size": {"value": "2", "known": true, "typed": 2}, "--mem-fraction-static": {"value": "0.9", "known": true, "typed": 0.9}}
	lib.memory_arg(args) == "--mem-fraction-static"
	lib.first_given(args, ["--tp-size", "--mem-fraction-static"]) == "--tp-size"
	lib.first_given(args, ["--page-size"]) == ""
	lib.pool_arg({}) == ""
}

test_pool_limit_prefers_the_computed_pool if {
	lib.pool_limit({"pool_tokens": 1000, "pool_upper_bound": 4096}) == {"tokens": 1000, "exact": true}
	lib.pool_limit({"pool_tokens": null, "pool_upper_bound": 4096}) == {"tokens": 4096, "exact": false, "basis": ""}
	lib.pool_limit({"pool_tokens": null, "pool_upper_bound": 4096, "pool_bound_basis": "memory"}) == {"tokens": 4096, "exact": false, "basis": "memory"}
	not lib.pool_limit({"pool_tokens": null, "pool_upper_bound": null})
}

test_sglang_servers_skip_other_engines if {
	servers := lib.sglang_servers with input as test.input_with([
		test.server({"index": 0}),
		test.server({"index": 1, "engine": "sglang-router"}),
		test.server({"index": 2, "engine": "vllm"}),
	])
	{s.index | some s in servers} == {0}
}

test_program_names if {
	lib.program("vllm") == "vllm serve"
	lib.program("sglang") == "sglang.launch_server"
	lib.program("other") == "other"
}

test_opaque_note if {
	lib.opaque_note([]) == ""
	lib.opaque_note(["$EXTRA_ARGS", "$MORE"]) == " (the command line also expands $EXTRA_ARGS $MORE, which may set flags kvlint cannot see)"
}

test_pool_limit_undefined_when_weights_leave_no_memory if {
	not lib.pool_limit({"pool_tokens": 0, "pool_upper_bound": 4096, "kv_budget_bytes": -1})
	lib.no_kv_memory({"kv_budget_bytes": 0})
	not lib.no_kv_memory({"kv_budget_bytes": null})
	not lib.pool_limit({"pool_tokens": 64, "startup_error": "Not enough memory."})
	lib.pool_limit({"pool_tokens": 64, "startup_error": ""}) == {"tokens": 64, "exact": true}
	lib.startup_error({}) == ""
}
