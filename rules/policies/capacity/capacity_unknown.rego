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
#   max_model_len. This finding names the one declaration that sizes the
#   server (the GPU, the model or its weights) and where to write it; when
#   more than one input is unknown it names the first of GPU, model,
#   weights, and `kvlint init` writes every one as an entry to fill in.
#   When nothing the user could declare would size it (the server keeps its
#   KV cache in a way kvlint does not model, such as decode context
#   parallelism), it says why instead.
#   --served-model-name is quoted as a hint, never read as the model: it
#   is only the name clients send. Severity info:
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
#     Declare what the finding names: the GPU with gpu: in .kvlint.yaml or
#     kvlint --gpu (for example H100-80GB); the model by mapping it, as
#     written in the launch command, to a catalog id or a config.json in
#     .kvlint.yaml (models: {"<as written>": <id or path>}); its weights by
#     mapping it to a checkpoint directory whose
#     model.safetensors.index.json gives total_size. `kvlint init` writes
#     these entries, commented, for every unsized server.
package kvlint.rules.capacity_unknown

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	c := s.capacity
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	count(c.missing) > 0
	not bound_proves_too_small(c)
	what := first_missing(c.missing)
	finding := object.union(
		{
			"msg": sprintf("kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it: %s%s", [declare(s, what, "sglang"), rest_note(c.missing, what)]),
			"server": s.index,
		},
		target(s, what),
	)
}

# vLLM servers: capacity sizes their cache too (capacity/vllm_pool.go), and
# KV101 judges it against max_model_len; an unsized cache is the same gap.
deny contains finding if {
	some s in input.servers
	s.engine == "vllm"
	c := s.capacity
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	count(c.missing) > 0
	not bound_proves_too_small(c)
	what := first_missing(c.missing)
	finding := object.union(
		{
			"msg": sprintf("kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits: %s%s", [declare(s, what, "vllm"), rest_note(c.missing, what)]),
			"server": s.index,
		},
		target(s, what),
	)
}

# Nothing to declare: kvlint does not model how this server keeps its KV
# cache. Said, so that the server is not passed in silence, unless KV101
# already judges it through a bound or KV106 names a value to resolve.
deny contains finding if {
	some s in input.servers
	s.engine in {"sglang", "vllm"}
	c := s.capacity
	not is_number(c.pool_tokens)
	not lib.wont_start(c)
	count(c.missing) == 0
	c.not_sized != ""
	not bound_proves_too_small(c)
	count(lib.unknown_sizing_flags(s)) == 0
	finding := {
		"msg": sprintf("%s: %s", [cannot_check[s.engine], c.not_sized]),
		"server": s.index,
	}
}

cannot_check := {
	"sglang": "kvlint cannot size this server's KV pool, so KV101–KV104 cannot check it",
	"vllm": "kvlint cannot size this vLLM server's KV cache, so KV101 cannot check that one max_model_len request fits",
}

# KV101 already judges the server through the bound.
bound_proves_too_small(c) if {
	limit := lib.pool_limit(c)
	limit.tokens < lib.context_tokens(c)
}

# The one declaration a finding names: the GPU first (one line of
# .kvlint.yaml declares it for every server whose files name none), then
# the model, then its weights, then whatever else capacity lists.
order := ["gpu", "model", "weights"]

first_missing(missing) := [m | some m in order; m in missing][0] if {
	some m in order
	m in missing
} else := sort(missing)[0]

# rest_note says that the declaration alone will not size the server.
rest_note(missing, what) := "" if {
	count(missing) == 1
} else := sprintf(" (the %s %s unknown too: `kvlint init` writes an entry to fill in for each)", [concat(" and ", others), verb(others)]) if {
	others := [label(m) | some m in sort(missing); m != what]
}

# The weights are plural whatever their number: "the weights are unknown".
verb(others) := "is" if {
	count(others) == 1
	not "weights" in others
}

verb(others) := "are" if count(others) > 1

verb(others) := "are" if others == ["weights"]

label("gpu") := "GPU"

label("model") := "model"

label("weights") := "weights"

label(m) := m if not m in {"gpu", "model", "weights"}

# A GPU the files allow several of (a name of two memory sizes, an affinity
# or a SkyPilot task with alternatives) is no catalog gap: capacity names
# the candidates, and the user pins the one the server runs on.
declare(s, "gpu", _) := sprintf("declare the GPU: the files allow any of %s, which differ in memory; set gpu: in .kvlint.yaml or pass kvlint --gpu with the one it runs on", [concat(", ", s.capacity.gpu_candidates)]) if {
	count(object.get(s.capacity, "gpu_candidates", [])) > 0
} else := sprintf("declare the GPU: the GPU %q is not in kvlint's catalog; set gpu: in .kvlint.yaml or pass kvlint --gpu with a catalog name (for example H100-80GB)", [s.gpu.value]) if {
	s.gpu.known
} else := "declare the GPU: set gpu: in .kvlint.yaml or pass kvlint --gpu (for example H100-80GB)"

declare(s, "model", _) := sprintf("declare the model: %q is not in kvlint's catalog; map it in .kvlint.yaml (models: {%q: <catalog id or path to its config.json>})%s", [s.model.value, s.model.value, served_hint(s)]) if {
	s.model.known
} else := sprintf("declare the model: it is written %q, which kvlint cannot resolve; map it in .kvlint.yaml (models: {%q: <catalog id or path to its config.json>})%s", [s.model.value, s.model.value, served_hint(s)]) if {
	s.model.value != ""
} else := sprintf("declare the model: no model is named on the command line; name it (vllm serve MODEL)%s", [served_hint(s)]) if {
	s.engine == "vllm"
} else := sprintf("declare the model: no model is named on the command line; pass --model-path%s", [served_hint(s)])

declare(s, "weights", _) := sprintf("declare the weights: kvlint reads the model's shape but not its size; map %q in .kvlint.yaml (models:) to its checkpoint directory, whose model.safetensors.index.json gives total_size", [s.model.value]) if {
	s.model.value != ""
} else := "declare the weights: map the model in .kvlint.yaml (models:) to its checkpoint directory, whose model.safetensors.index.json gives total_size"

declare(_, m, _) := sprintf("%s is unknown", [m]) if not m in {"model", "gpu", "weights"}

# served_hint quotes --served-model-name: the name clients send, which
# often is the model's id but need not be (an alias, a tenant's name), so
# it is never read as the model.
served_hint(s) := sprintf(" (--served-model-name says %q: a hint only, not read as the model)", [s.args["--served-model-name"].value]) if {
	s.args["--served-model-name"].known
	s.args["--served-model-name"].value != ""
} else := ""

# target points at the model as written when the model or its weights are
# what to declare, else at the launch command.
# An SGLang model written with --model-path keeps that flag as the
# finding's arg; one a CRD names elsewhere (KServe's storageUri) is pointed
# at where it is written.
target(s, what) := {"arg": "--model-path"} if {
	s.engine != "vllm"
	what in {"model", "weights"}
	s.args["--model-path"].value == s.model.value
} else := {"at": "model"} if {
	what in {"model", "weights"}
	s.model.value != ""
} else := {"arg": ""} if {
	s.engine != "vllm"
} else := {}
