package kvlint.rules.capacity_unknown_test

import data.kvlint.rules.capacity_unknown
import data.kvlint.test

test_fires_naming_the_gpu_first if {
	srv := test.server({
		"args": {"--model-path": {"value": "/models/llama", "known": true, "typed": "/models/llama"}},
		"model": {"value": "/models/llama", "known": true, "typed": null},
		"gpu": null,
		"capacity": test.unknown_capacity,
	})
	findings := capacity_unknown.deny with input as test.input_with([srv])
	findings == {{
		"msg": "kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it: declare the GPU: set gpu: in .kvlint.yaml or pass kvlint --gpu (for example H100-80GB) (the model is unknown too: `kvlint init` writes an entry to fill in for each)",
		"server": 0,
		"arg": "",
	}}
}

test_fires_naming_the_model_when_only_it_is_missing if {
	srv := test.server({
		"args": {
			"--model-path": {"value": "/models/llama", "known": true, "typed": "/models/llama"},
			"--served-model-name": {"value": "llama-3-70b", "known": true, "typed": "llama-3-70b"},
		},
		"model": {"value": "/models/llama", "known": true, "typed": null},
		"capacity": object.union(test.unknown_capacity, {"missing": ["model"]}),
	})
	findings := capacity_unknown.deny with input as test.input_with([srv])
	findings == {{
		"msg": "kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it: declare the model: \"/models/llama\" is not in kvlint's catalog; map it in .kvlint.yaml (models: {\"/models/llama\": <catalog id or path to its config.json>}) (--served-model-name says \"llama-3-70b\": a hint only, not read as the model)",
		"server": 0,
		"arg": "--model-path",
	}}
}

# A model a CRD names elsewhere than --model-path is pointed at as written.
test_fires_at_a_model_named_outside_the_command_line if {
	srv := test.server({
		"args": {"--model-path": {"value": "/mnt/models", "known": true, "typed": "/mnt/models"}},
		"model": {"value": "org/private-model", "known": true, "typed": null},
		"capacity": object.union(test.unknown_capacity, {"missing": ["model"]}),
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	f.at == "model"
	not f.arg
}

test_fires_on_a_template_model if {
	srv := test.server({
		"model": {"value": "{{ .Values.model }}", "known": false, "typed": null},
		"capacity": object.union(test.unknown_capacity, {"missing": ["model"]}),
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	contains(f.msg, "declare the model: it is written \"{{ .Values.model }}\", which kvlint cannot resolve; map it in .kvlint.yaml (models: {\"{{ .Values.model }}\":")
}

test_fires_on_an_unknown_gpu_name if {
	srv := test.server({
		"model": {"value": "{{ .Values.model }}", "known": false, "typed": null},
		"gpu": {"value": "B300", "known": true, "typed": null},
		"capacity": test.unknown_capacity,
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	contains(f.msg, "declare the GPU: the GPU \"B300\" is not in kvlint's catalog")
	not contains(f.msg, "Values")
}

# A GPU the files allow several of is named by its candidates, not called
# a catalog gap.
test_fires_naming_the_gpu_candidates if {
	srv := test.server({
		"gpu": {"value": "L4,A100", "known": false, "typed": null},
		"capacity": object.union(test.unknown_capacity, {"missing": ["gpu"], "gpu_candidates": ["L4", "A100-SXM4-40GB"]}),
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "declare the GPU: the files allow any of L4, A100-SXM4-40GB, which differ in memory; set gpu: in .kvlint.yaml or pass kvlint --gpu with the one it runs on")
	not contains(f.msg, "not in kvlint's catalog")
}

test_fires_naming_the_weights if {
	srv := test.server({
		"args": {"--model-path": {"value": "./model", "known": true, "typed": "./model"}},
		"model": {"value": "./model", "known": true, "typed": null},
		"capacity": object.union(test.unknown_capacity, {"missing": ["weights"], "cell_bytes_per_token": 327680}),
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "declare the weights: kvlint reads the model's shape but not its size; map \"./model\" in .kvlint.yaml (models:) to its checkpoint directory, whose model.safetensors.index.json gives total_size")
	f.arg == "--model-path"
}

test_fires_when_a_bound_proves_nothing if {
	srv := test.server({"gpu": null, "capacity": object.union(test.unknown_capacity, {
		"pool_upper_bound": 262144,
		"context_length": 131072,
		"missing": ["gpu"],
	})})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "declare the GPU: set gpu: in .kvlint.yaml or pass kvlint --gpu (for example H100-80GB)")
	f.arg == ""
}

test_fires_on_other_missing_inputs if {
	srv := test.server({"model": null, "capacity": object.union(test.unknown_capacity, {"missing": ["kv_dtype"]})})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "kv_dtype is unknown")
}

test_quiet_when_the_bound_already_proves_the_pool_too_small if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {
		"pool_upper_bound": 32000,
		"context_length": 131072,
	})})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_capacity_is_known if {
	count(capacity_unknown.deny) == 0 with input as test.input_with([test.server({})])
}

test_quiet_for_the_router if {
	srv := test.server({"engine": "sglang-router", "capacity": test.unknown_capacity})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

vllm_server(overrides) := test.server(object.union(
	{
		"engine": "vllm",
		"args": {},
		"model": {"value": "/models/private", "known": true, "typed": null},
		"gpu": null,
		"capacity": object.union(test.unknown_capacity, {"engine": "vllm", "startup_error": ""}),
	},
	overrides,
))

test_fires_for_an_unsized_vllm_server_at_its_model if {
	findings := capacity_unknown.deny with input as test.input_with([vllm_server({"capacity": {"missing": ["model"]}})])
	findings == {{
		"msg": "kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits: declare the model: \"/models/private\" is not in kvlint's catalog; map it in .kvlint.yaml (models: {\"/models/private\": <catalog id or path to its config.json>})",
		"server": 0,
		"at": "model",
	}}
}

test_fires_for_a_vllm_server_without_a_model_at_its_command if {
	srv := vllm_server({"model": null, "capacity": {"missing": ["model"]}})
	findings := capacity_unknown.deny with input as test.input_with([srv])
	findings == {{
		"msg": "kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits: declare the model: no model is named on the command line; name it (vllm serve MODEL)",
		"server": 0,
	}}
}

test_fires_for_a_vllm_server_on_an_unknown_gpu_only if {
	srv := vllm_server({"gpu": {"value": "B300", "known": true, "typed": null}, "capacity": {"missing": ["gpu"]}})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "declare the GPU: the GPU \"B300\" is not in kvlint's catalog; set gpu: in .kvlint.yaml or pass kvlint --gpu with a catalog name (for example H100-80GB)")
	not f.at
}

test_quiet_for_a_sized_vllm_server if {
	srv := test.server({"engine": "vllm", "capacity": object.union(test.base_capacity, {"engine": "vllm"})})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_for_a_vllm_server_that_would_not_start if {
	srv := vllm_server({"capacity": {"startup_error": "ValueError: To serve at least one request with the models's max seq len (131072) …"}})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_for_a_vllm_server_whose_override_proves_the_cache_too_small if {
	srv := vllm_server({"capacity": {"pool_upper_bound": 8192, "context_length": 131072}})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

# "the weights are unknown", not "is": the noun is plural.
test_the_weights_are_plural if {
	srv := test.server({
		"args": {"--model-path": {"value": "/models/llama", "known": true, "typed": "/models/llama"}},
		"model": {"value": "/models/llama", "known": true, "typed": null},
		"gpu": null,
		"capacity": object.union(test.unknown_capacity, {"missing": ["gpu", "weights"]}),
	})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	endswith(f.msg, "(the weights are unknown too: `kvlint init` writes an entry to fill in for each)")
}

# Nothing to declare: kvlint does not model how the server keeps its
# cache, and says so rather than passing it.
test_fires_when_kvlint_does_not_model_the_cache if {
	srv := test.server({
		"engine": "vllm",
		"capacity": object.union(test.unknown_capacity, {
			"missing": [],
			"not_sized": "context parallelism (-dcp 8, -pcp 1) spreads each request's KV over ranks; kvlint does not model it, so the cache is not sized",
		}),
	})
	findings := capacity_unknown.deny with input as test.input_with([srv])
	findings == {{
		"msg": "kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits: context parallelism (-dcp 8, -pcp 1) spreads each request's KV over ranks; kvlint does not model it, so the cache is not sized",
		"server": 0,
	}}
}

# Quiet twins: no reason given (nothing kvlint does not model: the
# estimate always gives one when it leaves the pool unsized), or a server
# that will not start.
test_quiet_when_unsized_with_no_reason if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {"missing": []})})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_the_server_will_not_start if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {
		"missing": [],
		"not_sized": "kvlint does not model it",
		"startup_error": "ValueError: No available memory for the cache blocks.",
	})})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

# Quiet: KV101 already judges the server through --num-gpu-blocks-override.
test_quiet_when_a_bound_already_judges_it if {
	srv := test.server({
		"engine": "vllm",
		"capacity": object.union(test.unknown_capacity, {
			"missing": [],
			"not_sized": "kvlint does not model it",
			"pool_upper_bound": 1600,
			"pool_bound_basis": "--num-gpu-blocks-override",
			"context_length": 131072,
		}),
	})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

# Quiet: a sizing flag kvlint cannot resolve is KV106's to name.
test_quiet_when_a_sizing_flag_is_unknown if {
	srv := test.server({
		"engine": "vllm",
		"args": {"--block-size": {"value": "$(BS)", "known": false, "typed": null}},
		"capacity": object.union(test.unknown_capacity, {"missing": [], "not_sized": "the block size is unknown"}),
	})
	count(capacity_unknown.deny) == 0 with input as test.input_with([srv])
}

# SGLang: a model whose cache kvlint does not model is reported too.
test_fires_on_sglang_when_kvlint_does_not_model_the_model if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {
		"missing": [],
		"not_sized": "Qwen/Qwen3-Next: a hybrid linear-attention/Mamba model: the engine keeps a recurrent-state pool beside the KV cache, which kvlint does not model, so the pool is not computed",
	})})
	some f in capacity_unknown.deny with input as test.input_with([srv])
	startswith(f.msg, "kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it: Qwen/Qwen3-Next")
}
