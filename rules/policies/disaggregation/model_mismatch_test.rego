package kvlint.rules.model_mismatch_test

import data.kvlint.rules.model_mismatch
import data.kvlint.test

other_model := {
	"args": {"--model-path": {"value": "meta-llama/Llama-3.1-70B-Instruct", "known": true, "typed": "meta-llama/Llama-3.1-70B-Instruct"}},
	"model": {"value": "meta-llama/Llama-3.1-70B-Instruct", "known": true, "typed": null},
	"capacity": {"model": "meta-llama/Llama-3.1-70B-Instruct"},
}

test_fires_when_models_differ if {
	findings := model_mismatch.deny with input as test.pd_input([test.prefill({}), test.decode(other_model)], {})
	findings == {{
		"msg": "the decode server serves meta-llama/Llama-3.1-70B-Instruct but its prefill server prefill (prefill.yaml:20) serves meta-llama/Llama-3.1-8B-Instruct: decode continues from KV computed by other weights, and nothing in the transfer checks the model",
		"server": 1,
		"arg": "--model-path",
	}}
}

test_fires_when_the_quantization_differs if {
	d := test.decode({"args": {"--quantization": {"value": "fp8", "known": true, "typed": "fp8"}}})
	some f in model_mismatch.deny with input as test.pd_input([test.prefill({}), d], {})
	f.arg == "--quantization"
	startswith(f.msg, "decode --quantization fp8 differs from (unset) on the prefill server")
}

test_fires_when_the_revision_differs if {
	p := test.prefill({"args": {"--revision": {"value": "abc123", "known": true, "typed": "abc123"}}})
	d := test.decode({"args": {"--revision": {"value": "def456", "known": true, "typed": "def456"}}})
	some f in model_mismatch.deny with input as test.pd_input([p, d], {})
	f.arg == "--revision"
}

test_quiet_for_the_same_model if {
	count(model_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), test.decode({})], {})
}

test_quiet_when_a_mapped_path_resolves_to_the_same_model if {
	d := test.decode({"model": {"value": "/models/llama", "known": true, "typed": null}})
	count(model_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), d], {})
}

test_quiet_for_a_placeholder if {
	d := test.decode({"model": {"value": "$MODEL", "known": false, "typed": null}, "capacity": {"model": ""}})
	count(model_mismatch.deny) == 0 with input as test.pd_input([test.prefill({}), d], {})
}

test_quiet_across_deployments if {
	count(model_mismatch.deny) == 0 with input as test.colocated_input([test.prefill({}), test.decode(other_model)], {"mode": "disaggregated"})
}
