# METADATA
# title: kvlint rule library
# description: >-
#   Helpers shared by the kvlint rules: which servers a rule judges, what is
#   known about a server's KV pool, which flag a finding should point at, and
#   number formatting for messages. The input document is described in
#   rules/INPUT.md.
package kvlint.lib

# SGLang servers, the ones whose KV pool the KV10x rules judge (the router
# has no pool; vLLM sizes its cache differently). An array, not a set: a set
# of whole server objects would be hashed and sorted on every evaluation.
sglang_servers := [s | some s in input.servers; s.engine == "sglang"]

# program(engine) names the program an engine runs, as a user would write it.
# (Helpers take the parts of a server they need, not the server: function
# results are cached by argument, and comparing whole servers is slow.)
program(engine) := programs[engine] if {
	programs[engine]
} else := engine

programs := {
	"sglang": "sglang.launch_server",
	"sglang-router": "sglang_router.launch_router",
	"vllm": "vllm serve",
	"dynamo-frontend": "dynamo.frontend",
}

# first_given(args, flags) is the first of flags that a server's args set,
# or "" (the engine then points at the launch command).
first_given(args, flags) := given[0] if {
	given := [f | some f in flags; args[f]]
	count(given) > 0
} else := ""

# sizing_flags are the flags each engine sizes its pool and context from,
# in the order a user would look at them.
sizing_flags := {
	"sglang": [
		"--max-total-tokens", "--context-length", "--mem-fraction-static", "--tp-size",
		"--dp-size", "--pp-size", "--page-size", "--kv-cache-dtype", "--model-path",
	],
	"vllm": [
		"--num-gpu-blocks-override", "--kv-cache-memory-bytes", "--max-model-len",
		"--gpu-memory-utilization", "--tensor-parallel-size", "--pipeline-parallel-size",
		"--data-parallel-size", "--block-size", "--kv-cache-dtype", "--model",
	],
}

# unknown_sizing_flags(s) are the sizing flags a server writes with values
# kvlint cannot resolve: KV106 reports them.
unknown_sizing_flags(s) := [f | some f in sizing_flags[s.engine]; not s.args[f].known; s.args[f]]

# pool_arg is the flag to change for a pool that is too small: an explicit
# --max-total-tokens caps the pool, else --mem-fraction-static sizes it, else
# --context-length is the other side of the comparison.
pool_arg(args) := first_given(args, ["--max-total-tokens", "--mem-fraction-static", "--context-length"])

# memory_arg is the flag to change when the weights crowd out the pool.
memory_arg(args) := first_given(args, ["--mem-fraction-static", "--tp-size"])

# context_tokens(c) is the context length, when known (from --context-length
# or the model config).
context_tokens(c) := c.context_length if {
	is_number(c.context_length)
	c.context_length > 0
}

# pool_limit(c) is what is known about the pool's size per scheduler: the
# computed pool when model and GPU are known ("exact"), else an upper bound
# (basis: c.pool_bound_basis): the explicit --max-total-tokens, which the
# engine never exceeds (kv_cache_configurator.py _apply_token_constraints:
# tokens = min(profiled, max_total_tokens)), or, when only the weights are
# unknown, the GPU's memory × mem_fraction_static ÷ the cell
# (capacity/bounds.go), so it proves "at most".
# When the server would not start there is no pool to judge (KV103 reports
# that instead).
pool_limit(c) := {"tokens": c.pool_tokens, "exact": true} if {
	not wont_start(c)
	is_number(c.pool_tokens)
} else := {"tokens": c.pool_upper_bound, "exact": false, "basis": object.get(c, "pool_bound_basis", "")} if {
	not wont_start(c)
	is_number(c.pool_upper_bound)
}

# wont_start(c): capacity found that SGLang stops at startup while sizing the
# pool, for lack of memory or with the error it names in startup_error.
wont_start(c) if no_kv_memory(c)

wont_start(c) if startup_error(c) != ""

# startup_error(c) is the startup error capacity predicts, or "".
startup_error(c) := c.startup_error if {
	is_string(c.startup_error)
} else := ""

# no_kv_memory(c): the weights take all the memory --mem-fraction-static
# grants, so SGLang raises at startup (kv_cache_configurator.py
# _profile_available_bytes, "Loaded weights leave no GPU memory for the KV
# cache").
no_kv_memory(c) if {
	is_number(c.kv_budget_bytes)
	c.kv_budget_bytes <= 0
}

# pool_phrase describes the pool limit for a message.
pool_phrase(limit) := sprintf("KV pool holds %s tokens per scheduler", [thousands(limit.tokens)]) if {
	limit.exact
} else := sprintf("KV pool holds at most %s tokens per scheduler (a bound: the GPU's memory × mem_fraction_static ÷ the per-token cell, as if the weights, which kvlint does not know, took nothing)", [thousands(limit.tokens)]) if {
	limit.basis == "memory"
} else := sprintf("--max-total-tokens caps the KV pool at %s tokens per scheduler", [thousands(limit.tokens)])

# context_phrase describes the context window and where it came from.
context_phrase(c) := sprintf("the %s-token context window set by --context-length", [thousands(c.context_length)]) if {
	c.context_source == "flag"
} else := sprintf("the model's %s-token context window", [thousands(c.context_length)]) if {
	c.context_source == "model"
} else := sprintf("the %s-token context window", [thousands(c.context_length)])

# opaque_note(words) warns that words kvlint could not expand (a server's
# opaque list, "$EXTRA_ARGS") may set flags it cannot see.
opaque_note(words) := sprintf(" (the command line also expands %s, which may set flags kvlint cannot see)", [concat(" ", words)]) if {
	count(words) > 0
} else := ""

# thousands(n) renders an integer with comma separators: 131072 → "131,072".
thousands(n) := concat("", [sign(n), concat(",", groups)]) if {
	digits := format_int(abs(n), 10)
	l := count(digits)
	head := first_group_len(l)
	rest := [substring(digits, i, 3) |
		some i in numbers.range(head, l - 1)
		i >= head
		i < l
		(i - head) % 3 == 0
	]
	groups := array.concat([substring(digits, 0, head)], rest)
}

first_group_len(l) := 3 if {
	l % 3 == 0
} else := l % 3

sign(x) := "-" if {
	x < 0
} else := ""

# gib(bytes) renders a byte count in GiB with one decimal: "79.6 GiB".
gib(bytes) := sprintf("%s GiB", [one_decimal(bytes / 1073741824)])

# one_decimal(x) renders x rounded to one decimal. (sprintf's %.1f needs a
# float, and Rego hands it an integer when the value is whole.)
one_decimal(x) := sprintf("%s%d.%d", [sign(x), floor(tenths / 10), tenths % 10]) if {
	tenths := round(abs(x) * 10)
}

# written(issue) is a flag issue's option as the user typed it.
written(issue) := issue.written if {
	issue.written != ""
} else := issue.flag

# says(issue, fallback) is the parser's own explanation of a flag issue, which
# states the engine's behaviour for that exact spelling (the candidates of an
# ambiguous prefix, the PR that removed a flag), or fallback when it gave none.
says(issue, fallback) := issue.message if {
	issue.message != ""
} else := fallback

# unless_said(issue, needle, text) is text, unless the parser's message
# already mentions needle: advice is not repeated.
unless_said(issue, needle, _) := "" if {
	contains(issue.message, needle)
}

unless_said(issue, needle, text) := text if {
	not contains(issue.message, needle)
}
