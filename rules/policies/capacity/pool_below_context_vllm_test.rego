package kvlint.rules.pool_below_context_test

import data.kvlint.rules.pool_below_context
import data.kvlint.test

# The startup error capacity computes for Llama-3.1-8B on an L4 with
# --max-model-len 128K (capacity/vllm_test.go has the arithmetic).
vllm_l4_error := "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (5.74 GiB). Based on the available memory, the estimated maximum model length is 46992. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."

vllm_server(overrides) := object.union(
	test.server({
		"engine": "vllm",
		"args": {"--max-model-len": {"value": "128K", "known": true, "typed": 131072}},
		"capacity": {
			"engine": "vllm",
			"gpu": "L4",
			"page_size": 16,
			"mem_fraction_static": 0.92,
			"kv_budget_bytes": 6160145122,
			"pool_tokens": null,
			"context_length": 131072,
			"context_source": "flag",
			"max_request_tokens": null,
			"full_context_requests": null,
			"startup_error": vllm_l4_error,
		},
	}),
	overrides,
)

test_vllm_fires_with_its_startup_check_terms if {
	findings := pool_below_context.deny with input as test.input_with([vllm_server({})])
	findings == {{
		"msg": concat("", [
			"vLLM refuses to start: one request of max_model_len 131,072 tokens (--max-model-len) needs 16.00 GiB of KV cache per GPU, more than the 5.74 GiB available, so the longest request its cache holds (vLLM's estimated maximum model length) is 46,992 tokens; vLLM stops after loading the weights with \"",
			vllm_l4_error,
			"\"",
		]),
		"server": 0,
		"arg": "--max-model-len",
	}}
}

test_vllm_points_at_an_explicit_cap_first if {
	srv := vllm_server({"args": {
		"--max-model-len": {"value": "128K", "known": true, "typed": 131072},
		"--kv-cache-memory-bytes": {"value": "4G", "known": true, "typed": 4294967296},
	}})
	some f in pool_below_context.deny with input as test.input_with([srv])
	f.arg == "--kv-cache-memory-bytes"
}

test_vllm_model_context_and_no_estimate if {
	err := "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (0.00 GiB). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
	base := vllm_server({"capacity": {"context_source": "model", "startup_error": err}})
	srv := object.union(object.remove(base, ["args"]), {"args": {"--model-path": {"value": "m", "known": true, "typed": "m"}}})
	some f in pool_below_context.deny with input as test.input_with([srv])
	startswith(f.msg, "vLLM refuses to start: one request of the model's 131,072-token max_model_len needs 16.00 GiB")
	contains(f.msg, "(vLLM's estimated maximum model length) is no tokens")
	f.arg == ""
}

test_vllm_critical_in_a_multi_tenant_pd_deployment if {
	srv := vllm_server({"role": "prefill"})
	findings := pool_below_context.deny with input as test.pd_input([srv], {})
	some f in findings
	f.severity == "critical"
	contains(f.msg, "; critical because deployment pd is disaggregated and declared multi-tenant")
}

test_vllm_override_bound_without_a_model if {
	srv := vllm_server({
		"args": {
			"--num-gpu-blocks-override": {"value": "1000", "known": true, "typed": 1000},
			"--max-model-len": {"value": "32768", "known": true, "typed": 32768},
		},
		"capacity": object.union(test.unknown_capacity, {
			"engine": "vllm",
			"pool_upper_bound": 16000,
			"context_length": 32768,
			"context_source": "flag",
			"startup_error": "",
		}),
	})
	findings := pool_below_context.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--num-gpu-blocks-override caps vLLM's KV cache at 16,000 tokens, fewer than max_model_len 32,768 tokens (--max-model-len): vLLM refuses to start, its startup check raising ValueError \"To serve at least one request with the models's max seq len (32768) …\"",
		"server": 0,
		"arg": "--num-gpu-blocks-override",
	}}
}

test_vllm_quiet_when_the_cache_holds_the_context if {
	srv := vllm_server({"capacity": {"pool_tokens": 477728, "startup_error": "", "kv_budget_bytes": 62618622690}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_vllm_quiet_on_other_startup_errors if {
	srv := vllm_server({"capacity": {"startup_error": "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_vllm_quiet_when_the_override_holds_the_context if {
	srv := vllm_server({"capacity": object.union(test.unknown_capacity, {
		"engine": "vllm",
		"pool_upper_bound": 131072,
		"context_length": 131072,
		"context_source": "flag",
		"startup_error": "",
	})})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_sglang_clause_ignores_vllm_startup_errors if {
	# An SGLang server never gets vLLM's message.
	srv := test.server({"capacity": {"startup_error": vllm_l4_error}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

# The weights unknown, the GPU's memory alone proves the cache too small.
test_fires_on_a_vllm_memory_bound if {
	srv := test.server({
		"engine": "vllm",
		"args": {"--max-model-len": {"value": "1048576", "known": true, "typed": 1048576}},
		"capacity": object.union(test.unknown_capacity, {
			"engine": "vllm",
			"startup_error": "",
			"pool_upper_bound": 500000,
			"pool_bound_basis": "memory",
			"context_length": 1048576,
			"context_source": "flag",
			"missing": ["weights"],
		}),
	})
	findings := pool_below_context.deny with input as test.input_with([srv])
	count(findings) == 1
	some f in findings
	startswith(f.msg, "vLLM's KV cache holds at most 500,000 tokens (a bound: ")
	f.arg == "--max-model-len"
}

test_quiet_when_the_vllm_memory_bound_holds_the_context if {
	srv := test.server({
		"engine": "vllm",
		"capacity": object.union(test.unknown_capacity, {
			"engine": "vllm",
			"startup_error": "",
			"pool_upper_bound": 500000,
			"pool_bound_basis": "memory",
			"context_length": 131072,
			"missing": ["weights"],
		}),
	})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

# A release before V1 became the default: V0's error, in tokens, and the
# release named.
test_vllm_v0_release_quotes_v0s_error if {
	err := "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (40960). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."
	srv := object.union(vllm_server({"capacity": {"startup_error": err}}), {"release": {"version": "0.6.3"}})
	findings := pool_below_context.deny with input as test.input_with([srv])
	findings == {{
		"msg": concat("", [
			"vLLM refuses to start: one request of max_model_len 131,072 tokens (--max-model-len) needs more than the 40,960 tokens its KV cache holds; the V0 engine of vLLM v0.6.3 stops after profiling memory with \"",
			err,
			"\"",
		]),
		"server": 0,
		"arg": "--max-model-len",
	}}
}
