package kvlint.rules.shared_prefix_cache_test

import data.kvlint.rules.shared_prefix_cache
import data.kvlint.test

salt(kind) := {"isolation": {"cache_salt": kind, "per_tenant_deployments": false, "external_kv": "shared"}}

test_fires_on_the_prefill_radix_cache if {
	findings := shared_prefix_cache.deny with input as test.pd_input([test.prefill({}), test.decode({})], {})
	findings == {{
		"msg": "SGLang's radix cache (on by default) keeps a prefix cache shared by every tenant of deployment pd with no isolation key enforced (no gateway sets cache_salt): a tenant can tell from time to first token whether another tenant sent the same prefix, and recover prompts prefix by prefix",
		"server": 0,
		"arg": "",
		"severity": "high",
	}}
}

test_fires_medium_when_tenancy_is_assumed if {
	some f in shared_prefix_cache.deny with input as test.colocated_input([test.server({})], {"tenancy_declared": false})
	f.severity == "medium"
	endswith(f.msg, "(kvlint assumes tenants share this deployment: declare tenancy and isolation in .kvlint.yaml)")
}

test_fires_for_a_client_salt if {
	some f in shared_prefix_cache.deny with input as test.colocated_input([test.server({})], salt("client"))
	contains(f.msg, "only a cache_salt clients choose")
}

test_fires_for_vllm if {
	v := test.server({"engine": "vllm"})
	some f in shared_prefix_cache.deny with input as test.colocated_input([v], {})
	startswith(f.msg, "vLLM's automatic prefix caching")
}

test_fires_on_a_decode_radix_cache if {
	d := test.decode({"args": {"--disaggregation-decode-enable-radix-cache": {"value": "true", "known": true, "typed": true}}})
	some f in shared_prefix_cache.deny with input as test.pd_input([test.prefill({"args": {"--disable-radix-cache": {"value": "true", "known": true, "typed": true}}}), d], {})
	f.server == 1
	f.arg == "--disaggregation-decode-enable-radix-cache"
}

test_quiet_with_a_gateway_salt if {
	count(shared_prefix_cache.deny) == 0 with input as test.colocated_input([test.server({})], salt("gateway"))
}

test_quiet_for_single_tenancy if {
	count(shared_prefix_cache.deny) == 0 with input as test.colocated_input([test.server({})], {"tenancy": "single"})
}

test_quiet_for_per_tenant_deployments if {
	iso := {"isolation": {"cache_salt": "none", "per_tenant_deployments": true, "external_kv": "shared"}}
	count(shared_prefix_cache.deny) == 0 with input as test.colocated_input([test.server({})], iso)
}

test_quiet_with_the_radix_cache_off if {
	s := test.server({"args": {"--disable-radix-cache": {"value": "true", "known": true, "typed": true}}})
	count(shared_prefix_cache.deny) == 0 with input as test.colocated_input([s], {})
}

test_quiet_for_a_pd_decode_server if {
	count(shared_prefix_cache.deny) == 0 with input as test.pd_input([test.decode({})], {})
}

test_quiet_for_vllm_without_prefix_caching if {
	v := test.server({"engine": "vllm", "args": {"--enable-prefix-caching": {"value": "false", "known": true, "typed": false}}})
	count(shared_prefix_cache.deny) == 0 with input as test.colocated_input([v], {})
}

test_quiet_without_deployments if {
	count(shared_prefix_cache.deny) == 0 with input as test.input_with([test.server({})])
}
