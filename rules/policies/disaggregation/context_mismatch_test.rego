package kvlint.rules.context_mismatch_test

import data.kvlint.rules.context_mismatch
import data.kvlint.test

test_fires_when_contexts_differ if {
	d := test.decode({
		"args": {"--context-length": {"value": "32768", "known": true, "typed": 32768}},
		"capacity": {"context_length": 32768, "context_source": "flag"},
	})
	findings := context_mismatch.deny with input as test.pd_input([test.prefill({}), d], {})
	findings == {{
		"msg": "decode context length 32,768 differs from 131,072 on the prefill server prefill (prefill.yaml:20): requests between the two limits are admitted by one side and refused or clipped by the other",
		"server": 1,
		"arg": "--context-length",
	}}
}

test_quiet_when_equal if {
	count(context_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), test.decode({})], {})
}

test_quiet_when_unknown if {
	d := test.decode({"capacity": {"context_length": null, "context_source": ""}})
	count(context_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), d], {})
}
