package kvlint.rules.page_size_mismatch_test

import data.kvlint.rules.page_size_mismatch
import data.kvlint.test

test_fires_when_written_page_sizes_differ if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"args": {"--page-size": {"value": "16", "known": true, "typed": 16}}, "capacity": {"page_size": 16}})
	findings := page_size_mismatch.deny with input as test.pd_input([p, d], {})
	findings == {{
		"msg": "decode page size 16 differs from prefill page size 64 on prefill (prefill.yaml:20): the decode side raises \"Page size mismatch\" when it first contacts the prefill server, so no request completes (disaggregation/common/conn.py try_ensure_parallel_info)",
		"server": 1,
		"arg": "--page-size",
	}}
}

test_fires_against_a_default_on_a_known_gpu if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"capacity": {"page_size": 1}})
	some f in page_size_mismatch.deny with input as test.pd_input([p, d], {})
	f.server == 1
	f.arg == ""
}

test_quiet_when_equal if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	count(page_size_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}

test_quiet_when_the_default_depends_on_an_unknown_gpu if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"capacity": {"page_size": 1, "gpu": ""}})
	count(page_size_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}

test_quiet_for_a_placeholder if {
	p := test.prefill({"args": {"--page-size": {"value": "$PAGE", "known": false, "typed": null}}, "capacity": {"page_size": 0}})
	d := test.decode({"capacity": {"page_size": 1}})
	count(page_size_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}

test_quiet_in_separate_deployments if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"capacity": {"page_size": 1}})
	count(page_size_mismatch.deny) == 0 with input as test.colocated_input([p, d], {"mode": "disaggregated"})
}
