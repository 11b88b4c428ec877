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

# A fake prefill by release: no such choice before 0.5.2rc0; accepted and
# silently sending nothing up to 0.5.6.post2; refused at startup after.
fake_prefill_on(version) := test.prefill({
	"args": {"--disaggregation-transfer-backend": {"value": "fake", "known": true, "typed": "fake"}},
	"release": {"version": version},
})

test_fake_prefill_is_no_choice_before_052 if {
	some f in transfer_backend_mismatch.deny with input as test.pd_input([fake_prefill_on("0.5.1.post3"), test.decode({})], {})
	f.server == 0
	contains(f.msg, "SGLang v0.5.1.post3 has no fake transfer backend (it joined the choices in 0.5.2rc0)")
}

test_fake_prefill_starts_up_to_0562 if {
	some f in transfer_backend_mismatch.deny with input as test.pd_input([fake_prefill_on("0.5.6.post2"), test.decode({})], {})
	f.server == 0
	contains(f.msg, "SGLang v0.5.6.post2 starts it (the refusal came after v0.5.6.post2, sglang#19208)")
}

test_fake_prefill_refused_when_the_release_is_unknown if {
	some f in transfer_backend_mismatch.deny with input as test.pd_input([fake_prefill_on(null), test.decode({})], {})
	f.server == 0
	contains(f.msg, "SGLang refuses it at startup")
}
