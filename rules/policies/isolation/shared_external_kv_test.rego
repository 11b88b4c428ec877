package kvlint.rules.shared_external_kv_test

import data.kvlint.rules.shared_external_kv
import data.kvlint.test

hicache := {"args": {
	"--enable-hierarchical-cache": {"value": "true", "known": true, "typed": true},
	"--hicache-storage-backend": {"value": "mooncake", "known": true, "typed": "mooncake"},
}}

iso(salt, per_tenant, external) := {"isolation": {"cache_salt": salt, "per_tenant_deployments": per_tenant, "external_kv": external}}

test_fires_on_a_hicache_storage_backend_even_with_a_gateway_salt if {
	findings := shared_external_kv.deny with input as test.colocated_input([test.server(hicache)], iso("gateway", false, "shared"))
	findings == {{
		"msg": "HiCache storage backend mooncake (its L3 keys hash tokens only) keeps prefixes in an external tier whose keys are token hashes with no tenant namespace: tenants of deployment d0 (and of any deployment sharing the store) read each other's cached prefixes, whatever cache_salt says",
		"server": 0,
		"arg": "--hicache-storage-backend",
		"severity": "high",
	}}
}

test_fires_for_per_tenant_deployments_sharing_a_store if {
	count(shared_external_kv.deny) == 1 with input as test.colocated_input([test.server(hicache)], iso("none", true, "shared"))
}

test_fires_on_sglang_lmcache if {
	s := test.server({"args": {"--enable-lmcache": {"value": "true", "known": true, "typed": true}}})
	some f in shared_external_kv.deny with input as test.colocated_input([s], {"tenancy_declared": false})
	f.arg == "--enable-lmcache"
	f.severity == "medium"
}

test_fires_on_a_decode_offload if {
	d := test.decode({"args": {
		"--disaggregation-decode-enable-offload-kvcache": {"value": "true", "known": true, "typed": true},
		"--hicache-storage-backend": {"value": "file", "known": true, "typed": "file"},
	}})
	count(shared_external_kv.deny) == 1 with input as test.pd_input([test.prefill({}), d], {})
}

test_fires_on_a_vllm_lmcache_connector if {
	v := test.server({"engine": "vllm", "args": {"--kv-transfer-config": {"value": "{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}", "known": true, "typed": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}}})
	some f in shared_external_kv.deny with input as test.colocated_input([v], {})
	f.arg == "--kv-transfer-config"
	startswith(f.msg, "LMCacheConnector (vLLM --kv-transfer-config)")
}

test_quiet_when_declared_namespaced if {
	count(shared_external_kv.deny) == 0 with input as test.colocated_input([test.server(hicache)], iso("none", false, "namespaced"))
}

test_quiet_for_single_tenancy if {
	count(shared_external_kv.deny) == 0 with input as test.colocated_input([test.server(hicache)], {"tenancy": "single"})
}

test_quiet_without_the_hierarchical_cache if {
	s := test.server({"args": {"--hicache-storage-backend": {"value": "mooncake", "known": true, "typed": "mooncake"}}})
	count(shared_external_kv.deny) == 0 with input as test.colocated_input([s], {})
}

test_quiet_for_a_nixl_transfer if {
	v := test.server({"engine": "vllm", "args": {"--kv-transfer-config": {"value": "{\"kv_connector\":\"NixlConnector\"}", "known": true, "typed": {"kv_connector": "NixlConnector"}}}})
	count(shared_external_kv.deny) == 0 with input as test.colocated_input([v], {})
}

test_fires_once_on_a_spread_vllm_connector if {
	v := test.server({"engine": "vllm", "args": {
		"--kv-transfer-config": {"value": "{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}", "known": true, "typed": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}},
		"--kv-transfer-config.kv_connector": {"value": "LMCacheConnectorV1", "known": true, "typed": "LMCacheConnectorV1"},
		"--kv-transfer-config.kv_role": {"value": "kv_both", "known": true, "typed": "kv_both"},
	}})
	findings := shared_external_kv.deny with input as test.colocated_input([v], {})
	count(findings) == 1
	some f in findings
	f.arg == "--kv-transfer-config.kv_connector"
}

test_quiet_for_a_mooncake_store_with_a_cache_prefix if {
	v := test.server({"engine": "vllm", "args": {
		"--kv-transfer-config.kv_connector": {"value": "MooncakeStoreConnector", "known": true, "typed": "MooncakeStoreConnector"},
		"--kv-transfer-config.kv_connector_extra_config": {"value": "{\"cache_prefix\":\"tenant-a\"}", "known": true, "typed": {"cache_prefix": "tenant-a"}},
	}})
	count(shared_external_kv.deny) == 0 with input as test.colocated_input([v], {})
}
