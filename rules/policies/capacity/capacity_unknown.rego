# METADATA
# title: KV pool size unknown
# description: >-
#   kvlint could not compute this server's KV pool because an input of the
#   computation is unknown: usually the model (a local path, a private id, or
#   a template value kvlint cannot resolve) or the GPU (no node selector or
#   label names it). Without them KV101–KV104 cannot judge an SGLang server,
#   unless an explicit --max-total-tokens already proves the pool smaller
#   than the context window, and KV101 cannot judge a vLLM server, unless
#   --num-gpu-blocks-override already proves its cache smaller than
#   max_model_len. This finding says exactly what to declare. Severity info:
#   it reports a gap in what kvlint knows, not a fault in the deployment; a
#   silent pass would look like a clean bill of health.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/mem_cache/kv_cache_configurator.py
#     description: how SGLang sizes the pool from GPU memory, weights and the per-token cell
#   - ref: https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_utils.py
#     description: how vLLM sizes its KV cache from the memory left after the weights
# custom:
#   id: KV105
#   severity: info
#   remediation: >-
#     Tell kvlint what the server runs on: map the model as written in the
#     launch command to a catalog id or a config.json in .kvlint.yaml
#     (models: {"<as written>": <id or path>}), and name the GPU with gpu: in
#     .kvlint.yaml or kvlint --gpu (for example H100-80GB).
package kvlint.rules.capacity_unknown

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	c := s.capacity
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	count(c.missing) > 0
	not bound_proves_too_small(c)
	finding := {
		"msg": sprintf("kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it: %s", [concat("; ", [what_to_declare(s, m) | some m in c.missing])]),
		"server": s.index,
		"arg": target_arg(s),
	}
}

# vLLM servers: capacity sizes their cache too (capacity/vllm_pool.go), and
# KV101 judges it against max_model_len; an unsized cache is the same gap.
# The model of `vllm serve MODEL` is a positional, not a flag: the finding
# points at it ("at": "model").
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	c := s.capacity
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	count(c.missing) > 0
	not bound_proves_too_small(c)
	finding := object.union(
		{
			"msg": sprintf("kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits: %s", [concat("; ", [vllm_what_to_declare(s, m) | some m in c.missing])]),
			"server": s.index,
		},
		vllm_target(s),
	)
}

# KV101 already judges the server through the bound.
bound_proves_too_small(c) if {
	limit := lib.pool_limit(c)
	limit.tokens < lib.context_tokens(c)
}

what_to_declare(s, "model") := sprintf("the model %q is not in kvlint's catalog; map it in .kvlint.yaml (models: {%q: <catalog id or path to its config.json>})", [s.model.value, s.model.value]) if {
	s.model.known
} else := sprintf("the model is %q, which kvlint could not resolve; give the value or map it in .kvlint.yaml models:", [s.model.value]) if {
	s.model.value != ""
} else := "no model is named on the command line; pass --model-path or map it in .kvlint.yaml models:"

what_to_declare(s, "gpu") := sprintf("the GPU %q is not in kvlint's catalog; set gpu: in .kvlint.yaml or pass kvlint --gpu with a catalog name (for example H100-80GB)", [s.gpu.value]) if {
	s.gpu.known
} else := "the GPU is unknown; set gpu: in .kvlint.yaml or pass kvlint --gpu (for example H100-80GB)"

what_to_declare(_, m) := sprintf("%s is unknown", [m]) if not m in {"model", "gpu"}

vllm_what_to_declare(s, "model") := sprintf("the model %q is not in kvlint's catalog; map it in .kvlint.yaml (models: {%q: <catalog id or path to its config.json>})", [s.model.value, s.model.value]) if {
	s.model.known
} else := sprintf("the model is %q, which kvlint could not resolve; give the value or map it in .kvlint.yaml models:", [s.model.value]) if {
	s.model.value != ""
} else := "no model is named on the command line; name it (vllm serve MODEL) or map it in .kvlint.yaml models:"

vllm_what_to_declare(s, "gpu") := what_to_declare(s, "gpu")

vllm_what_to_declare(_, m) := sprintf("%s is unknown", [m]) if not m in {"model", "gpu"}

# vllm_target points at the model when it is what is missing and was
# written, else at the launch command.
vllm_target(s) := {"at": "model"} if {
	"model" in s.capacity.missing
	s.model.value != ""
} else := {}

target_arg(s) := "--model-path" if {
	"model" in s.capacity.missing
	s.args["--model-path"]
} else := ""
