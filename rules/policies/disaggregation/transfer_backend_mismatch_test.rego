package kvlint.rules.transfer_backend_mismatch_test

import data.kvlint.rules.transfer_backend_mismatch
import data.kvlint.test

nixl := {"args": {"--disaggregation-transfer-backend": {"value": "nixl", "known": true, "typed": "nixl"}}}

test_fires_when_backends_differ if {
	findings := transfer_backend_mismatch.deny with input as test.pd_input([test.prefill({}), test.decode(nixl)], {})
	findings == {{
		"msg": "decode transfer backend nixl differs from mooncake on the prefill server prefill (prefill.yaml:20): the two sides never complete a KV transfer, and requests hang until the bootstrap and waiting timeouts",
		"server": 1,
		"arg": "--disaggregation-transfer-backend",
	}}
}

test_fires_on_a_fake_prefill_even_alone if {
	p := test.prefill({"args": {"--disaggregation-transfer-backend": {"value": "fake", "known": true, "typed": "fake"}}})
	some f in transfer_backend_mismatch.deny with input as test.colocated_input([p], {"mode": "disaggregated"})
	contains(f.msg, "refuses it at startup")
}

test_quiet_when_equal if {
	count(transfer_backend_mismatch.deny) == 0 with input as test.pd_input([test.prefill(nixl), test.decode(nixl)], {})
}

test_quiet_for_mooncake_tcp_against_mooncake if {
	p := test.prefill({"args": {"--disaggregation-transfer-backend": {"value": "mooncake_tcp", "known": true, "typed": "mooncake_tcp"}}})
	count(transfer_backend_mismatch.deny) == 0 with input as test.pd_input([p, test.decode({})], {})
}

test_quiet_for_a_fake_decode if {
	d := test.decode({"args": {"--disaggregation-transfer-backend": {"value": "fake", "known": true, "typed": "fake"}}})
	count(transfer_backend_mismatch.deny) == 0 with input as test.colocated_input([d], {"mode": "disaggregated"})
}
