package kvlint.rules.tp_mismatch_test

import data.kvlint.rules.tp_mismatch
import data.kvlint.test

tp4 := {"args": {"--tp-size": {"value": "4", "known": true, "typed": 4}}, "capacity": {"tp": 4}}

test_fires_for_a_non_mla_model if {
	p := test.prefill({"mla": false})
	d := test.decode(object.union(tp4, {"mla": false}))
	findings := tp_mismatch.deny with input as test.pd_input([p, d], {})
	findings == {{
		"msg": "decode --tp-size 4 differs from 1 on the prefill server prefill (prefill.yaml:20), and meta-llama/Llama-3.1-8B-Instruct is not an MLA model: SGLang transfers its KV heads between different shardings on a path it warns about (\"Performance is NOT guaranteed\") and refuses for hybrid models",
		"server": 1,
		"arg": "--tp-size",
	}}
}

test_fires_low_when_mla_is_unknown if {
	p := test.prefill({"mla": null})
	d := test.decode(object.union(tp4, {"mla": null}))
	some f in tp_mismatch.deny with input as test.pd_input([p, d], {})
	f.severity == "low"
	startswith(f.msg, "cannot be checked: ")
}

test_quiet_for_an_mla_model if {
	p := test.prefill({"mla": true})
	d := test.decode(object.union(tp4, {"mla": true}))
	count(tp_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}

test_quiet_for_equal_sizes if {
	p := test.prefill({"mla": false})
	count(tp_mismatch.deny) == 0 with input as test.pd_input([p, test.decode({"mla": false})], {})
}

test_quiet_when_a_size_is_unknown if {
	d := test.decode({"mla": false, "args": {"--tp-size": {"value": "$(TP)", "known": false, "typed": null}}, "capacity": {"tp": 0}})
	count(tp_mismatch.deny) == 0 with input as test.pd_input([test.prefill({"mla": false}), d], {})
}
