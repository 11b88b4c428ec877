package kvlint.rules.sizing_value_unknown_test

import data.kvlint.rules.sizing_value_unknown
import data.kvlint.test

test_fires_on_an_unknown_pool_cap if {
	srv := test.server({
		"args": {
			"--context-length": {"value": "131072", "known": true, "typed": 131072},
			"--max-total-tokens": {"value": "$POOL", "known": false, "typed": null},
		},
		"capacity": {"pool_tokens": null, "pool_upper_bound": null, "context_length": 131072},
	})
	findings := sizing_value_unknown.deny with input as test.input_with([srv])
	findings == {{
		"msg": "cannot be checked: --max-total-tokens is \"$POOL\", which is not known statically, so kvlint cannot tell whether the KV pool holds the context window",
		"server": 0,
		"arg": "--max-total-tokens",
	}}
}

test_fires_once_naming_the_others if {
	srv := test.server({
		"args": {
			"--context-length": {"value": "{{ .Values.ctx }}", "known": false, "typed": null},
			"--tp-size": {"value": "$(TP)", "known": false, "typed": null},
		},
		"capacity": {"pool_tokens": null, "pool_upper_bound": null, "context_length": null},
	})
	findings := sizing_value_unknown.deny with input as test.input_with([srv])
	count(findings) == 1
	some f in findings
	f.arg == "--context-length"
	contains(f.msg, "(nor are --tp-size)")
}

test_quiet_when_pool_and_context_are_known if {
	srv := test.server({
		"args": {"--mem-fraction-static": {"value": "$MEM", "known": false, "typed": null}},
		"capacity": {"pool_tokens": 400000, "context_length": 131072},
	})
	count(sizing_value_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_a_bound_already_proves_kv101 if {
	srv := test.server({
		"args": {"--context-length": {"value": "131072", "known": true, "typed": 131072}, "--tp-size": {"value": "$TP", "known": false, "typed": null}},
		"capacity": {"pool_tokens": null, "pool_upper_bound": 4096, "context_length": 131072},
	})
	count(sizing_value_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_on_routers if {
	srv := test.server({
		"engine": "sglang-router",
		"args": {"--port": {"value": "$PORT", "known": false, "typed": null}},
		"capacity": {"pool_tokens": null, "context_length": null},
	})
	count(sizing_value_unknown.deny) == 0 with input as test.input_with([srv])
}
