# METADATA
# title: The server would not start (no memory for the KV pool, or too few GPUs)
# description: >-
#   SGLang sizes the KV pool at startup from the memory that
#   --mem-fraction-static grants to weights plus KV cache. When the weights
#   on each GPU take all of it, it raises ValueError("Loaded weights leave no
#   GPU memory for the KV cache under --mem-fraction-static=…",
#   mem_cache/kv_cache_configurator.py _profile_available_bytes); when what is
#   left rounds down to no tokens it raises RuntimeError("Not enough memory.
#   Please try to increase --mem-fraction-static",
#   model_executor/pool_configurator.py MemoryPoolConfig). kvlint reports the
#   first from its own arithmetic and any other startup error capacity
#   predicts. vLLM stops the same way when the weights and its profile run
#   leave no memory under --gpu-memory-utilization: ValueError("No available
#   memory for the cache blocks", v1/core/kv_cache_utils.py
#   _check_enough_kv_cache_memory); a cache too small for one max_model_len
#   request is KV101's. For SGLang and vLLM alike, a launch whose tp × pp
#   (× dp) needs more GPUs per node than the deployment gives it, where the
#   GPU count and the nodes are certain, does not start either: SGLang
#   starts tp × pp / nnodes ranks per node, each on its own GPU
#   (entrypoints/engine.py _calculate_rank_ranges), and vLLM raises "World
#   size … is larger than the number of available GPUs … in this node"
#   (config/parallel.py) or, under Ray, cannot place its placement group.
#   Severity critical: the server never serves; in Kubernetes the pod
#   crash-loops, loading the whole checkpoint each time.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/mem_cache/kv_cache_configurator.py
#     description: the startup check that raises "Loaded weights leave no GPU memory for the KV cache"
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/model_executor/pool_configurator.py
#     description: MemoryPoolConfig raises "Not enough memory" for an empty pool
#   - ref: https://github.com/sgl-project/sglang/issues/5372
#     description: out of memory with a high --mem-fraction-static
#   - ref: https://github.com/vllm-project/vllm/blob/main/vllm/config/parallel.py
#     description: ParallelConfig raises when the world size exceeds the node's GPUs
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/entrypoints/engine.py
#     description: _calculate_rank_ranges puts tp × pp / nnodes ranks on each node, one GPU each
# custom:
#   id: KV103
#   severity: critical
#   stops_start: true
#   remediation: >-
#     Give the weights fewer bytes per GPU or the pool more: shard the model
#     over more GPUs (--tp-size, or --pp-size), serve a quantized checkpoint,
#     or raise --mem-fraction-static (leaving room for activations and CUDA
#     graphs), or use a GPU with more memory. When the parallelism needs
#     more GPUs than the server is given, request as many (the pod's
#     nvidia.com/gpu, SkyPilot's accelerators count) or lower --tp-size.
package kvlint.rules.no_kv_memory

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	lib.no_kv_memory(s.capacity)
	finding := {
		"msg": sprintf("%s: SGLang would not start, it raises ValueError \"Loaded weights leave no GPU memory for the KV cache\" after loading the weights%s%s", [
			shortfall(s),
			advice(s.capacity),
			lib.opaque_note(s.opaque),
		]),
		"server": s.index,
		"arg": lib.memory_arg(s.args),
	}
}

deny contains finding if {
	some s in lib.sglang_servers
	not lib.no_kv_memory(s.capacity)
	err := lib.startup_error(s.capacity)
	err != ""
	finding := {
		"msg": sprintf("SGLang would not start: %s%s", [err, lib.opaque_note(s.opaque)]),
		"server": s.index,
		"arg": startup_arg(s),
	}
}

# vLLM: its startup check finds no memory at all for the cache; the error
# about one max_model_len request ("max seq len") is KV101's, and one about
# a flag (startup_arg) is reported below.
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	err := lib.startup_error(s.capacity)
	err != ""
	not contains(err, "max seq len")
	object.get(s.capacity, "startup_arg", "") == ""
	finding := {
		"msg": sprintf("vLLM would not start: %s%s%s", [vllm_shortfall(s.capacity), err, lib.opaque_note(s.opaque)]),
		"server": s.index,
		"arg": lib.first_given(s.args, ["--gpu-memory-utilization", "--tensor-parallel-size"]),
	}
}

# vllm_shortfall(c) states the arithmetic when kvlint knows it.
vllm_shortfall(c) := sprintf("the weights take %s per GPU, and with the profile run's activations they leave the cache %s short of the %v of the GPU that --gpu-memory-utilization grants; it raises ", [
	lib.gib(c.weights_bytes_per_gpu),
	lib.gib(0 - c.kv_budget_bytes),
	c.mem_fraction_static,
]) if {
	is_number(c.weights_bytes_per_gpu)
	is_number(c.kv_budget_bytes)
	c.kv_budget_bytes <= 0
	is_number(c.mem_fraction_static)
} else := "it raises "

# vLLM: a startup error about one flag (its parallelism needs more GPUs than
# the server is given), reported at that flag.
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	err := lib.startup_error(s.capacity)
	err != ""
	arg := object.get(s.capacity, "startup_arg", "")
	arg != ""
	finding := {
		"msg": sprintf("vLLM would not start: %s%s", [err, lib.opaque_note(s.opaque)]),
		"server": s.index,
		"arg": arg,
	}
}

# startup_arg is the flag capacity says the error is about, else the
# memory flag.
startup_arg(s) := s.capacity.startup_arg if {
	s.capacity.startup_arg != ""
} else := lib.memory_arg(s.args)

# shortfall(s) states the memory arithmetic when every term is known.
# What the fraction leaves for weights and KV cache is the weights plus the
# budget kvlint computed (negative here): the budget already takes off what
# CUDA and NCCL hold at start-up and what loading leaves allocated, so the
# three numbers agree.
shortfall(s) := sprintf("Weights take %s per GPU, but %s of the %s GPU, less what CUDA, NCCL and loading hold, leaves %s for weights and KV cache together (%s short)", [
	lib.gib(c.weights_bytes_per_gpu),
	fraction_phrase(s),
	lib.gib(c.gpu_memory_bytes),
	lib.gib(c.weights_bytes_per_gpu + c.kv_budget_bytes),
	lib.gib(0 - c.kv_budget_bytes),
]) if {
	c := s.capacity
	is_number(c.weights_bytes_per_gpu)
	is_number(c.gpu_memory_bytes)
	is_number(c.mem_fraction_static)
} else := sprintf("The weights leave no memory for the KV pool (%s short)", [lib.gib(0 - s.capacity.kv_budget_bytes)])

fraction_phrase(s) := sprintf("--mem-fraction-static %v", [s.capacity.mem_fraction_static]) if {
	s.args["--mem-fraction-static"]
} else := sprintf("the default --mem-fraction-static %v", [s.capacity.mem_fraction_static])

# SGLang's own hint is "raise --mem-fraction-static above 1 - available/pre";
# before loading, "pre" is about the whole GPU, so weights / GPU memory is the
# estimate kvlint can make statically.
advice(c) := sprintf("; --mem-fraction-static would have to exceed about %v, so shard the weights over more GPUs or quantize them", [need]) if {
	is_number(c.weights_bytes_per_gpu)
	is_number(c.gpu_memory_bytes)
	c.gpu_memory_bytes > 0
	need := ceil((1000 * c.weights_bytes_per_gpu) / c.gpu_memory_bytes) / 1000
	need >= 0.95
} else := sprintf("; raise --mem-fraction-static above about %v, or shard the weights over more GPUs", [need]) if {
	is_number(c.weights_bytes_per_gpu)
	is_number(c.gpu_memory_bytes)
	c.gpu_memory_bytes > 0
	need := ceil((1000 * c.weights_bytes_per_gpu) / c.gpu_memory_bytes) / 1000
} else := ""
