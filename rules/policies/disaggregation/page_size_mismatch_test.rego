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

pinned(release) := {"version": release, "source": concat("", ["image lmsysorg/sglang:v", release]), "floating": false, "judged": release, "judged_commit": "c", "upgrade": false, "from": null}

test_says_a_release_before_the_check_passes_silently if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	d := test.decode({"args": {"--page-size": {"value": "16", "known": true, "typed": 16}}, "capacity": {"page_size": 16}, "release": pinned("0.5.6.post2")})
	some f in page_size_mismatch.deny with input as test.pd_input([p, d], {})
	contains(f.msg, "SGLang v0.5.6.post2 has no page size check")
	not contains(f.msg, "raises")
}

test_newer_or_unknown_release_raises if {
	p := test.prefill({"args": {"--page-size": {"value": "64", "known": true, "typed": 64}}, "capacity": {"page_size": 64}})
	unknown := {"version": null, "source": null, "floating": false, "judged": "main", "judged_commit": "c", "upgrade": false, "from": null}
	every rel in [pinned("0.5.7"), pinned("0.6.0"), unknown] {
		d := test.decode({"args": {"--page-size": {"value": "16", "known": true, "typed": 16}}, "capacity": {"page_size": 16}, "release": rel})
		msgs := {f.msg | some f in page_size_mismatch.deny with input as test.pd_input([p, d], {})}
		count(msgs) == 1
		every m in msgs {
			contains(m, "raises \"Page size mismatch\"")
		}
	}
}
