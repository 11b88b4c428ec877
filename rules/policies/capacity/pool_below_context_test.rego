package kvlint.rules.pool_below_context_test

import data.kvlint.rules.pool_below_context
import data.kvlint.test

test_fires_when_pool_smaller_than_context if {
	srv := test.server({
		"args": {"--mem-fraction-static": {"value": "0.5", "known": true, "typed": 0.5}},
		"capacity": {"pool_tokens": 61440, "mem_fraction_static": 0.5},
	})
	findings := pool_below_context.deny with input as test.input_with([srv])
	findings == {{
		"msg": "KV pool holds 61,440 tokens per scheduler, smaller than the model's 131,072-token context window: a single long request cannot fit; SGLang starts anyway and aborts prompts of 61,434 tokens or more, and silently clips max_new_tokens so prompt plus output stays inside the pool",
		"server": 0,
		"arg": "--mem-fraction-static",
	}}
}

test_fires_on_max_total_tokens_bound_without_model_or_gpu if {
	srv := test.server({
		"args": {
			"--max-total-tokens": {"value": "32k", "known": true, "typed": 32000},
			"--context-length": {"value": "65536", "known": true, "typed": 65536},
		},
		"capacity": object.union(test.unknown_capacity, {
			"pool_upper_bound": 32000,
			"context_length": 65536,
			"context_source": "flag",
			"missing": ["model", "gpu"],
		}),
	})
	some f in pool_below_context.deny with input as test.input_with([srv])
	f.arg == "--max-total-tokens"
	startswith(f.msg, "--max-total-tokens caps the KV pool at 32,000 tokens per scheduler, smaller than the 65,536-token context window set by --context-length")
	contains(f.msg, "31,994 tokens or more (fewer if the GPU holds less)")
}

# The weights unknown, the GPU's memory alone bounds the pool below the
# context: KV101 says it is a bound.
test_fires_on_memory_bound_without_weights if {
	srv := test.server({
		"args": {"--mem-fraction-static": {"value": "0.8", "known": true, "typed": 0.8}},
		"capacity": object.union(test.unknown_capacity, {
			"pool_upper_bound": 58944,
			"pool_bound_basis": "memory",
			"cell_bytes_per_token": 327680,
			"context_length": 131072,
			"context_source": "model",
			"missing": ["weights"],
		}),
	})
	some f in pool_below_context.deny with input as test.input_with([srv])
	f.arg == "--mem-fraction-static"
	startswith(f.msg, "KV pool holds at most 58,944 tokens per scheduler (a bound: the GPU's memory × mem_fraction_static ÷ the per-token cell, as if the weights, which kvlint does not know, took nothing), smaller than the model's 131,072-token context window")
	contains(f.msg, "58,938 tokens or more (fewer, once the weights take their share of the memory)")
}

# A memory bound above the context proves nothing: quiet.
test_quiet_when_memory_bound_holds_the_context if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {
		"pool_upper_bound": 900000,
		"pool_bound_basis": "memory",
		"context_length": 131072,
		"context_source": "model",
		"missing": ["weights"],
	})})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_fires_with_pd_note_and_opaque_note if {
	srv := test.server({
		"role": "prefill",
		"opaque_args": true,
		"opaque": ["$EXTRA_ARGS"],
		"capacity": {"pool_tokens": 100000},
	})
	some f in pool_below_context.deny with input as test.input_with([srv])
	contains(f.msg, "(sglang#30233)")
	endswith(f.msg, "(the command line also expands $EXTRA_ARGS, which may set flags kvlint cannot see)")
}

test_fires_pointing_at_context_length_when_nothing_else_given if {
	srv := test.server({
		"args": {"--context-length": {"value": "200000", "known": true, "typed": 200000}},
		"capacity": {"pool_tokens": 100000, "context_length": 200000, "context_source": "flag"},
	})
	some f in pool_below_context.deny with input as test.input_with([srv])
	f.arg == "--context-length"
}

test_fires_pointing_at_the_server_when_no_flag_given if {
	srv := test.server({"capacity": {"pool_tokens": 100000}})
	some f in pool_below_context.deny with input as test.input_with([srv])
	f.arg == ""
}

test_quiet_when_pool_holds_the_context if {
	count(pool_below_context.deny) == 0 with input as test.input_with([test.server({})])
}

test_quiet_when_pool_equals_the_context if {
	srv := test.server({"capacity": {"pool_tokens": 131072}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_context_unknown if {
	srv := test.server({"capacity": {"pool_tokens": 61440, "context_length": null, "context_source": ""}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_bound_is_above_context_and_pool_unknown if {
	srv := test.server({"capacity": object.union(test.unknown_capacity, {
		"pool_upper_bound": 262144,
		"context_length": 131072,
		"context_source": "model",
	})})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_quiet_for_other_engines if {
	srv := test.server({"engine": "vllm", "capacity": {"pool_tokens": 61440}})
	count(pool_below_context.deny) == 0 with input as test.input_with([srv])
}

test_fires_critical_in_a_declared_multi_tenant_pd_deployment if {
	d := test.decode({"args": {"--max-total-tokens": {"value": "65536", "known": true, "typed": 65536}}, "capacity": {"pool_tokens": null, "pool_upper_bound": 65536}})
	some f in pool_below_context.deny with input as test.pd_input([test.prefill({}), d], {"name": "llama"})
	f.severity == "critical"
	contains(f.msg, "; critical because deployment llama is disaggregated and declared multi-tenant")
}

test_fires_high_when_tenancy_is_assumed_or_single if {
	d := test.decode({"capacity": {"pool_tokens": 65536}})
	some f in pool_below_context.deny with input as test.pd_input([test.prefill({}), d], {"tenancy_declared": false})
	not f.severity
	some g in pool_below_context.deny with input as test.pd_input([test.prefill({}), d], {"tenancy": "single"})
	not g.severity
}

# The PD note by release: before 0.4.7 the prefill scheduler swaps the
# prompt for a placeholder that is still transferred; up to 0.5.6.post2
# there is no bootstrap-room check; an unknown release gets the plain note.
pd_server(version) := test.server({
	"role": "prefill",
	"capacity": {"pool_tokens": 100000},
	"release": {"version": version},
})

test_pd_note_before_the_abort if {
	some f in pool_below_context.deny with input as test.input_with([pd_server("0.4.6.post5")])
	contains(f.msg, "in PD disaggregation SGLang v0.4.6.post5 still sends such a prompt on: the prefill scheduler swaps it for a one-token placeholder")
}

test_pd_note_without_the_room_check if {
	some f in pool_below_context.deny with input as test.input_with([pd_server("0.5.6.post2")])
	contains(f.msg, "(sglang#30233), and SGLang v0.5.6.post2 has no bootstrap-room check on decode")
	not contains(f.msg, "placeholder")
}

test_pd_note_plain_when_the_release_is_unknown_or_newer if {
	some v in [null, "0.5.9"]
	some f in pool_below_context.deny with input as test.input_with([pd_server(v)])
	endswith(f.msg, "let decode answer from an incomplete KV cache (sglang#30233)")
}
