package kvlint.rules.no_kv_memory_test

import data.kvlint.rules.no_kv_memory
import data.kvlint.test

# Llama-3.1-70B in bf16 (~141 GB) on two H100-80GB: ~70.6 GB of weights per GPU.
seventy_b_on_two := {
	"tp": 2,
	"weights_bytes_per_gpu": 70553706496,
	"gpu_memory_bytes": 85520809984,
	"mem_fraction_static": 0.8,
	"kv_budget_bytes": -2137058509,
	"pool_tokens": null,
	"cell_bytes_per_token": 163840,
}

test_fires_when_weights_exceed_the_static_budget if {
	srv := test.server({
		"args": {
			"--tp-size": {"value": "2", "known": true, "typed": 2},
			"--mem-fraction-static": {"value": "0.8", "known": true, "typed": 0.8},
		},
		"capacity": seventy_b_on_two,
	})
	findings := no_kv_memory.deny with input as test.input_with([srv])
	findings == {{
		"msg": "Weights take 65.7 GiB per GPU, but --mem-fraction-static 0.8 of the 79.6 GiB GPU, less what CUDA, NCCL and loading hold, leaves 63.7 GiB for weights and KV cache together (2.0 GiB short): SGLang would not start, it raises ValueError \"Loaded weights leave no GPU memory for the KV cache\" after loading the weights; raise --mem-fraction-static above about 0.825, or shard the weights over more GPUs",
		"server": 0,
		"arg": "--mem-fraction-static",
	}}
}

test_fires_pointing_at_tp_size_with_the_default_fraction if {
	srv := test.server({
		"args": {"--tp-size": {"value": "2", "known": true, "typed": 2}},
		"capacity": object.union(seventy_b_on_two, {"weights_bytes_per_gpu": 82000000000, "kv_budget_bytes": -11000000000}),
	})
	some f in no_kv_memory.deny with input as test.input_with([srv])
	f.arg == "--tp-size"
	contains(f.msg, "the default --mem-fraction-static 0.8")
	contains(f.msg, "would have to exceed about 0.959, so shard the weights over more GPUs or quantize them")
}

test_fires_with_only_the_budget_known if {
	srv := test.server({"capacity": {"kv_budget_bytes": 0, "gpu_memory_bytes": null}})
	some f in no_kv_memory.deny with input as test.input_with([srv])
	startswith(f.msg, "The weights leave no memory for the KV pool (0.0 GiB short): SGLang would not start")
	f.arg == ""
}

test_fires_on_a_predicted_startup_error if {
	srv := test.server({"capacity": {"pool_tokens": 0, "startup_error": "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: 0.3"}})
	findings := no_kv_memory.deny with input as test.input_with([srv])
	findings == {{
		"msg": "SGLang would not start: RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: 0.3",
		"server": 0,
		"arg": "",
	}}
}

test_fires_once_when_both_the_budget_and_the_error_say_so if {
	srv := test.server({"capacity": {"kv_budget_bytes": -1, "startup_error": "ValueError: Loaded weights leave no GPU memory for the KV cache"}})
	count(no_kv_memory.deny) == 1 with input as test.input_with([srv])
}

test_fires_without_advice_when_gpu_memory_is_zero if {
	srv := test.server({"capacity": {"kv_budget_bytes": -1, "gpu_memory_bytes": 0}})
	some f in no_kv_memory.deny with input as test.input_with([srv])
	endswith(f.msg, "after loading the weights")
}

test_quiet_when_the_budget_is_positive if {
	count(no_kv_memory.deny) == 0 with input as test.input_with([test.server({})])
}

test_quiet_when_the_budget_is_unknown if {
	srv := test.server({"capacity": test.unknown_capacity})
	count(no_kv_memory.deny) == 0 with input as test.input_with([srv])
}

# A parallelism that needs more GPUs than the server is given points at
# the flag capacity names, for SGLang and vLLM alike.
test_fires_at_the_parallelism_flag if {
	srv := test.server({
		"args": {"--tp-size": {"value": "8", "known": true, "typed": 8}},
		"capacity": {"startup_error": "its parallelism needs tp 8 × pp 1 = 8 GPUs but the deployment gives it 1 per node", "startup_arg": "--tp-size"},
	})
	some f in no_kv_memory.deny with input as test.input_with([srv])
	f.arg == "--tp-size"
	startswith(f.msg, "SGLang would not start: its parallelism needs tp 8")
}

test_fires_for_vllm_at_the_parallelism_flag if {
	srv := test.server({
		"engine": "vllm",
		"args": {"--tensor-parallel-size": {"value": "8", "known": true, "typed": 8}},
		"capacity": {"startup_error": "its parallelism needs tp 8 × pp 1 = 8 GPUs but the deployment gives it 1 per node", "startup_arg": "--tensor-parallel-size"},
	})
	findings := no_kv_memory.deny with input as test.input_with([srv])
	findings == {{
		"msg": "vLLM would not start: its parallelism needs tp 8 × pp 1 = 8 GPUs but the deployment gives it 1 per node",
		"server": 0,
		"arg": "--tensor-parallel-size",
	}}
}

# vLLM: the weights leave the cache no memory at all.
test_fires_on_vllm_with_no_memory_for_the_cache if {
	srv := test.server({
		"engine": "vllm",
		"args": {"--tensor-parallel-size": {"value": "8", "known": true, "typed": 8}},
		"capacity": {
			"weights_bytes_per_gpu": 84109972160,
			"kv_budget_bytes": -13928419770,
			"mem_fraction_static": 0.92,
			"pool_tokens": null,
			"startup_error": "ValueError: No available memory for the cache blocks.",
		},
	})
	findings := no_kv_memory.deny with input as test.input_with([srv])
	findings == {{
		"msg": "vLLM would not start: the weights take 78.3 GiB per GPU, and with the profile run's activations they leave the cache 13.0 GiB short of the 0.92 of the GPU that --gpu-memory-utilization grants; it raises ValueError: No available memory for the cache blocks.",
		"server": 0,
		"arg": "--tensor-parallel-size",
	}}
}

# Quiet: vLLM's error about one max_model_len request is KV101's.
test_quiet_on_vllm_short_of_one_request if {
	srv := test.server({
		"engine": "vllm",
		"capacity": {"pool_tokens": null, "startup_error": "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (5.67 GiB)."},
	})
	count(no_kv_memory.deny) == 0 with input as test.input_with([srv])
}
