package kvlint.rules.cache_hit_report_test

import data.kvlint.rules.cache_hit_report
import data.kvlint.test

report := {"args": {"--enable-cache-report": {"value": "true", "known": true, "typed": true}}}

test_fires_on_a_colocated_server if {
	findings := cache_hit_report.deny with input as test.colocated_input([test.server(report)], {})
	findings == {{
		"msg": "--enable-cache-report returns each request's cached-token count to the client, in deployment d0 whose tenants share a prefix cache with no enforced isolation key: a tenant reads directly how much of its prompt another tenant already sent",
		"server": 0,
		"arg": "--enable-cache-report",
		"severity": "high",
	}}
}

test_fires_on_a_decode_server_whose_prefill_caches if {
	some f in cache_hit_report.deny with input as test.pd_input([test.prefill({}), test.decode(report)], {"tenancy_declared": false})
	f.server == 1
	f.severity == "medium"
}

test_fires_for_vllm if {
	v := test.server({"engine": "vllm", "args": {"--enable-prompt-tokens-details": {"value": "true", "known": true, "typed": true}}})
	some f in cache_hit_report.deny with input as test.colocated_input([v], {})
	f.arg == "--enable-prompt-tokens-details"
}

test_quiet_with_a_gateway_salt if {
	iso := {"isolation": {"cache_salt": "gateway", "per_tenant_deployments": false, "external_kv": "shared"}}
	count(cache_hit_report.deny) == 0 with input as test.colocated_input([test.server(report)], iso)
}

test_quiet_without_a_prefix_cache if {
	s := test.server({"args": {
		"--enable-cache-report": {"value": "true", "known": true, "typed": true},
		"--disable-radix-cache": {"value": "true", "known": true, "typed": true},
	}})
	count(cache_hit_report.deny) == 0 with input as test.colocated_input([s], {})
}

test_quiet_for_single_tenancy if {
	count(cache_hit_report.deny) == 0 with input as test.colocated_input([test.server(report)], {"tenancy": "single"})
}

test_quiet_without_the_flag if {
	count(cache_hit_report.deny) == 0 with input as test.colocated_input([test.server({})], {})
}
