package kvlint.rules.vllm_kv_transfer_test

import data.kvlint.rules.vllm_kv_transfer
import data.kvlint.test

# vllm(role, connector, kv_role) is a vLLM server with a --kv-transfer-config
# spread into dotted keys, as the flags parser gives it.
vllm(role, connector, kv_role) := test.server({
	"engine": "vllm",
	"role": role,
	"name": sprintf("%s-vllm", [role]),
	"file": sprintf("%s.yaml", [role]),
	"line": 20,
	"args": {
		"--kv-transfer-config": {"value": "{}", "known": true, "typed": {}},
		"--kv-transfer-config.kv_connector": {"value": connector, "known": true, "typed": connector},
		"--kv-transfer-config.kv_role": {"value": kv_role, "known": true, "typed": kv_role},
	},
	"capacity": {"engine": "vllm"},
})

test_fires_when_connectors_differ if {
	servers := [vllm("prefill", "NixlConnector", "kv_producer"), vllm("decode", "LMCacheConnectorV1", "kv_consumer")]
	findings := vllm_kv_transfer.deny with input as test.pd_input(servers, {})
	findings == {{
		"msg": "kv_connector LMCacheConnectorV1 (kv_role kv_consumer) differs from NixlConnector on prefill-vllm (prefill.yaml:20) (kv_role kv_producer) in deployment pd: the two sides never exchange a KV block, so this server recomputes or fails every request it should have received KV for (kv_load_failure_policy, fail by default)",
		"server": 1,
		"arg": "--kv-transfer-config.kv_connector",
	}}
}

test_fires_once_for_two_kv_both_servers if {
	servers := [vllm("colocated", "NixlConnector", "kv_both"), vllm("colocated", "P2pNcclConnector", "kv_both")]
	findings := vllm_kv_transfer.deny with input as test.pd_input(servers, {})
	count(findings) == 1
	some f in findings
	f.server == 1
	contains(f.msg, "cannot hand KV over in either direction")
}

test_fires_on_producers_without_a_consumer if {
	servers := [vllm("prefill", "NixlConnector", "kv_producer"), vllm("prefill", "NixlConnector", "kv_producer")]
	findings := vllm_kv_transfer.deny with input as test.pd_input(servers, {})
	count(findings) == 2
	some f in findings
	f.arg == "--kv-transfer-config.kv_role"
	startswith(f.msg, "every vLLM server of deployment pd that sets a kv_connector is a producer (kv_role kv_producer): none consumes")
}

test_fires_on_consumers_without_a_producer if {
	servers := [vllm("decode", "NixlConnector", "kv_consumer"), vllm("decode", "NixlConnector", "kv_consumer")]
	some f in vllm_kv_transfer.deny with input as test.pd_input(servers, {})
	contains(f.msg, "none produces (kv_producer or kv_both), so decode waits for KV that never comes")
}

test_quiet_for_a_matched_pair if {
	servers := [vllm("prefill", "NixlConnector", "kv_producer"), vllm("decode", "NixlConnector", "kv_consumer")]
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input(servers, {})
}

test_quiet_for_kv_both_pairs if {
	servers := [vllm("colocated", "NixlConnector", "kv_both"), vllm("colocated", "NixlConnector", "kv_both")]
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input(servers, {})
}

test_quiet_for_a_lone_producer if {
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input([vllm("prefill", "NixlConnector", "kv_producer")], {})
}

test_quiet_when_a_role_is_a_placeholder if {
	p := vllm("prefill", "NixlConnector", "kv_producer")
	q := object.union(vllm("decode", "NixlConnector", ""), {"args": {"--kv-transfer-config.kv_role": {"value": "$ROLE", "known": false, "typed": null}}})
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input([p, q], {})
}

test_quiet_when_a_connector_is_a_placeholder if {
	p := vllm("prefill", "NixlConnector", "kv_producer")
	q := object.union(vllm("decode", "", "kv_consumer"), {"args": {"--kv-transfer-config.kv_connector": {"value": "{{ .Values.connector }}", "known": false, "typed": null}}})
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input([p, q], {})
}

test_quiet_for_sglang_servers if {
	count(vllm_kv_transfer.deny) == 0 with input as test.pd_input([test.prefill({}), test.decode({})], {})
}
