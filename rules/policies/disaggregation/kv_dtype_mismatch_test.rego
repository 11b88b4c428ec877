package kvlint.rules.kv_dtype_mismatch_test

import data.kvlint.rules.kv_dtype_mismatch
import data.kvlint.test

test_fires_when_one_side_stores_fp8 if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "fp8_e4m3", "known": true, "typed": "fp8_e4m3"}}, "capacity": {"kv_dtype": "fp8_e4m3"}})
	d := test.decode({})
	findings := kv_dtype_mismatch.deny with input as test.pd_input([p, d], {})
	findings == {{
		"msg": "decode --kv-cache-dtype auto differs from fp8_e4m3 on the prefill server prefill (prefill.yaml:20): the decode side raises \"KV cache dtype mismatch\" when it first contacts the prefill server (disaggregation/common/conn.py try_ensure_parallel_info)",
		"server": 1,
		"arg": "--kv-cache-dtype",
	}}
}

test_fires_on_two_spellings_of_one_dtype if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "bfloat16", "known": true, "typed": "bfloat16"}}})
	d := test.decode({})
	some f in kv_dtype_mismatch.deny with input as test.pd_input([p, d], {})
	endswith(f.msg, "; both store bfloat16, but the check compares the flag strings")
}

test_quiet_when_equal if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "fp8_e4m3", "known": true, "typed": "fp8_e4m3"}}})
	d := test.decode({"args": {"--kv-cache-dtype": {"value": "fp8_e4m3", "known": true, "typed": "fp8_e4m3"}}})
	count(kv_dtype_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}

test_quiet_when_both_default if {
	count(kv_dtype_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), test.decode({})], {})
}

test_quiet_for_a_placeholder if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "${KV_DTYPE}", "known": false, "typed": null}}})
	count(kv_dtype_mismatch.deny) == 0 with input as test.pd_input([p, test.decode({})], {})
}

test_quiet_for_vllm if {
	p := test.prefill({"engine": "vllm", "args": {"--kv-cache-dtype": {"value": "fp8", "known": true, "typed": "fp8"}}})
	count(kv_dtype_mismatch.deny) == 0 with input as test.pd_input([p, test.decode({})], {})
}

old_release := {"version": "0.5.6", "source": "image lmsysorg/sglang:v0.5.6", "floating": false, "judged": "0.5.6", "judged_commit": "c", "upgrade": false, "from": null}

test_old_release_passes_silently if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "fp8_e4m3", "known": true, "typed": "fp8_e4m3"}}, "capacity": {"kv_dtype": "fp8_e4m3"}})
	d := test.decode({"capacity": {"kv_dtype": "bfloat16"}, "release": old_release})
	findings := kv_dtype_mismatch.deny with input as test.pd_input([p, d], {})
	count(findings) == 1
	some f in findings
	contains(f.msg, "SGLang v0.5.6 has no KV cache dtype check")
	not contains(f.msg, "raises")
}

test_old_release_quiet_for_spellings_of_one_dtype if {
	p := test.prefill({"args": {"--kv-cache-dtype": {"value": "bfloat16", "known": true, "typed": "bfloat16"}}, "capacity": {"kv_dtype": "bfloat16"}})
	d := test.decode({"capacity": {"kv_dtype": "bfloat16"}, "release": old_release})
	count(kv_dtype_mismatch.deny) == 0 with input as test.pd_input([p, d], {})
}
