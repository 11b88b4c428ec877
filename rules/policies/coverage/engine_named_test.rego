package kvlint.coverage.engine_named_test

import data.kvlint.coverage.engine_named

mention(overrides) := object.union(
	{
		"index": 0, "kind": "module", "text": "sglang.launch_server", "engine": "sglang",
		"quoted": false, "image_known": false, "image_entrypoint": false, "file": "run.sh", "line": 4,
	},
	overrides,
)

msg_of(m) := f.msg if {
	some f in engine_named.deny with input as {"mentions": [m]}
}

test_fires_on_a_module_in_a_string if {
	msg_of(mention({"quoted": true})) == "python -m sglang.launch_server appears in a string kvlint cannot read as a command (an echo, a variable's value, an eval'd string), and kvlint found no launch here"
}

test_fires_on_a_serve_command_kvlint_cannot_resolve if {
	msg_of(mention({"kind": "command", "text": "vllm serve", "engine": "vllm"})) == "names vllm serve but kvlint found no launch here: the command around it is not one kvlint can resolve (built at run time, behind a wrapper it does not know, or in a form it does not read yet)"
}

test_fires_on_an_image_with_an_unknown_entrypoint if {
	msg_of(mention({"kind": "image", "text": "lmsysorg/sglang:latest"})) == "names lmsysorg/sglang:latest but kvlint found no launch here: the image's entrypoint is not known: declare it under images: in .kvlint.yaml"
}

test_fires_on_an_image_that_runs_no_server if {
	m := mention({"kind": "image", "text": "lmsysorg/sglang:latest", "engine": "", "image_known": true})
	contains(msg_of(m), "the image runs no server by itself, so the launch must be in the container's command or args")
}

test_fires_on_a_known_server_image_nothing_runs if {
	m := mention({"kind": "image", "text": "vllm/vllm-openai:v0.8.5", "engine": "vllm", "image_known": true, "image_entrypoint": true})
	startswith(msg_of(m), "names vllm/vllm-openai:v0.8.5 but kvlint found no launch here: nothing kvlint reads runs this image")
}

test_fires_once_per_mention if {
	ms := [mention({}), mention({"index": 1, "kind": "image", "text": "lmsysorg/sglang:latest"})]
	count(engine_named.deny) == 2 with input as {"mentions": ms}
}

test_quiet_without_mentions if {
	count(engine_named.deny) == 0 with input as {"mentions": []}
}

test_fires_on_a_server_without_a_kv_cache if {
	m := mention({"kind": "no-kv-cache", "text": "python -m huggingfaceserver --backend huggingface", "engine": ""})
	msg_of(m) == "python -m huggingfaceserver --backend huggingface runs the model with transformers, not vLLM: that backend keeps no paged KV cache, so kvlint finds no server to size here"
}

test_fires_on_a_controller_launch if {
	m := mention({"kind": "controller", "text": "KAITO Workspace ws (preset llama-3.3-70b-instruct)", "engine": "vllm"})
	msg_of(m) == "KAITO Workspace ws (preset llama-3.3-70b-instruct) is served by vLLM with a command its controller builds at run time from the preset and the inference config; kvlint does not read that resource kind yet, so the server is not checked"
}
