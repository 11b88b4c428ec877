# Test fixtures shared by the rules' tests (never compiled into the engine:
# files named *_test.rego are loaded only by the Rego test run).
package kvlint.test

# input_with(servers) is an input document with default settings.
input_with(servers) := {
	"settings": {"tenancy": "single", "expected_concurrency": null},
	"servers": servers,
}

# server(overrides) is a fully resolved SGLang server, deep-merged with
# overrides: Llama-3.1-8B-Instruct, bf16 KV, on one H100-80GB at the default
# --mem-fraction-static, as a launch script at serve.sh:3 would give it.
server(overrides) := object.union(base_server, overrides)

base_server := {
	"index": 0,
	"engine": "sglang",
	"role": "colocated",
	"name": "serve.sh:3",
	"file": "serve.sh",
	"line": 3,
	"args": {"--model-path": {"value": "meta-llama/Llama-3.1-8B-Instruct", "known": true, "typed": "meta-llama/Llama-3.1-8B-Instruct"}},
	"opaque_args": false,
	"opaque": [],
	"model": {"value": "meta-llama/Llama-3.1-8B-Instruct", "known": true, "typed": null},
	"gpu": {"value": "H100-80GB", "known": true, "typed": null},
	"flag_issues": [],
	"capacity": base_capacity,
}

base_capacity := {
	"engine": "sglang",
	"model": "meta-llama/Llama-3.1-8B-Instruct",
	"gpu": "H100-80GB",
	"gpu_count": 1,
	"tp": 1,
	"dp": 1,
	"pp": 1,
	"kv_dtype": "bfloat16",
	"page_size": 1,
	"mem_fraction_static": 0.83,
	"mem_fraction_static_from": null,
	"gpu_memory_bytes": 85520809984,
	"weights_bytes_per_gpu": 16060522496,
	"kv_budget_bytes": 54921749811,
	"cell_bytes_per_token": 131072,
	"pool_tokens": 419019,
	"pool_upper_bound": null,
	"pool_bound_basis": "",
	"context_length": 131072,
	"context_source": "model",
	"max_request_tokens": 131071,
	"full_context_requests": 3,
	"max_running_requests": null,
	"assumptions": [],
	"missing": [],
	"derivation": [],
}

# unknown_capacity is what capacity knows when neither model nor GPU resolved.
unknown_capacity := {
	"gpu_memory_bytes": null,
	"weights_bytes_per_gpu": null,
	"kv_budget_bytes": null,
	"cell_bytes_per_token": null,
	"pool_tokens": null,
	"context_length": null,
	"context_source": "",
	"max_request_tokens": null,
	"full_context_requests": null,
	"missing": ["model", "gpu"],
}

# flag_issue(kind, overrides) is the first flag issue of a server.
flag_issue(kind, overrides) := object.union(
	{"index": 0, "kind": kind, "flag": "", "written": "", "message": "", "suggestion": ""},
	overrides,
)
