package kvlint.rules.pd_flag_hazards_test

import data.kvlint.rules.pd_flag_hazards
import data.kvlint.test

decode_radix := test.decode({"args": {"--disaggregation-decode-enable-radix-cache": {"value": "true", "known": true, "typed": true}}})

test_fires_on_a_removed_disaggregation_flag if {
	d := test.decode({"flag_issues": [test.flag_issue("removed", {
		"flag": "--disaggregation-decode-tp",
		"written": "--disaggregation-decode-tp",
		"message": "--disaggregation-decode-tp was removed from SGLang (2026-03-02, #19618)",
	})]})
	findings := pd_flag_hazards.deny with input as test.pd_input([test.prefill({}), d], {})
	findings == {{
		"msg": "--disaggregation-decode-tp was removed from sglang.launch_server: argparse stops this decode server at startup, so the router has no decode pool to pair requests with; the decode server's parallelism is its own --tp-size and --dp-size",
		"server": 1,
		"issue": 0,
	}}
}

test_fires_on_the_decode_radix_cache_when_declared_multi_tenant if {
	some f in pd_flag_hazards.deny with input as test.pd_input([test.prefill({}), decode_radix], {})
	f.severity == "medium"
	f.arg == "--disaggregation-decode-enable-radix-cache"
	endswith(f.msg, "decode reuses cached prefixes across tenants")
}

test_fires_low_when_tenancy_is_assumed if {
	some f in pd_flag_hazards.deny with input as test.pd_input([test.prefill({}), decode_radix], {"tenancy_declared": false})
	f.severity == "low"
	contains(f.msg, "kvlint assumes tenants share this deployment")
}

test_quiet_for_single_tenancy if {
	count(pd_flag_hazards.deny) == 0 with input as test.pd_input([test.prefill({}), decode_radix], {"tenancy": "single"})
}

test_quiet_for_per_tenant_deployments if {
	iso := {"isolation": {"cache_salt": "none", "per_tenant_deployments": true, "external_kv": "shared"}}
	count(pd_flag_hazards.deny) == 0 with input as test.pd_input([test.prefill({}), decode_radix], iso)
}

test_quiet_for_other_removed_flags if {
	d := test.decode({"flag_issues": [test.flag_issue("removed", {"flag": "--enable-flashinfer-mla"})]})
	count(pd_flag_hazards.deny) == 0 with input as test.pd_input([test.prefill({}), d], {})
}
