# METADATA
# title: Engine named, no launch recognised
# description: >-
#   A file names an engine the way a launch would (python -m
#   sglang.launch_server, a vllm.entrypoints module, python -m dynamo.vllm,
#   sglang serve or vllm serve, an engine's container image) but kvlint
#   found no server in it. The file is not passed as clean: the note says
#   what was seen and why no launch was recognised, so a run that checked
#   nothing does not look like a clean bill of health. Comments are not
#   mentions, and one note per file and kind is enough. A file that names no
#   engine is never noted: a container of an unknown image whose arguments
#   look like engine flags (--model, --tensor-parallel-size) is not taken
#   for a server, because those flags are not any one engine's. KServe's
#   huggingfaceserver run with --backend huggingface is noted too: it
#   serves through transformers, with no KV pool to size. So is a resource
#   whose controller builds the launch itself (a KAITO Workspace that
#   serves a model), which no file holds. Severity
#   info: it reports a gap in what kvlint saw, not a fault in the deployment.
# related_resources:
#   - ref: https://github.com/kvlint/kvlint/blob/main/README.md#configuration-kvlintyaml
#     description: images under .kvlint.yaml images:, which give an image's entrypoint
# custom:
#   id: KV501
#   severity: info
#   remediation: >-
#     If the file starts a server, write the launch where kvlint reads it (a
#     command line of the script, a container's command or args) or declare
#     the image's entrypoint under images: in .kvlint.yaml; if it starts
#     none, silence the note with "# kvlint:ignore KV501 -- reason".
package kvlint.coverage.engine_named

deny contains finding if {
	some m in input.mentions
	finding := {"msg": message(m), "mention": m.index}
}

message(m) := sprintf("%s runs the model with transformers, not vLLM: that backend keeps no paged KV cache, so kvlint finds no server to size here", [m.text]) if {
	m.kind == "no-kv-cache"
} else := sprintf("%s is served by vLLM with a command its controller builds at run time from the preset and the inference config; kvlint does not read that resource kind yet, so the server is not checked", [m.text]) if {
	m.kind == "controller"
} else := sprintf("%s appears in a string kvlint cannot read as a command (an echo, a variable's value, an eval'd string), and kvlint found no launch here", [seen(m)]) if {
	m.kind != "image"
	m.quoted
} else := sprintf("names %s but kvlint found no launch here: the command around it is not one kvlint can resolve (built at run time, behind a wrapper it does not know, or in a form it does not read yet)", [seen(m)]) if {
	m.kind != "image"
} else := sprintf("names %s but kvlint found no launch here: the image runs no server by itself, so the launch must be in the container's command or args, and none kvlint reads starts one", [m.text]) if {
	m.image_known
	m.engine == ""
} else := sprintf("names %s but kvlint found no launch here: nothing kvlint reads runs this image with its entrypoint (a docker run, a resource kind or a wrapper it does not read yet), or the command is built at run time", [m.text]) if {
	m.image_known
	m.image_entrypoint
} else := sprintf("names %s but kvlint found no launch here: the image's entrypoint is not known: declare it under images: in .kvlint.yaml", [m.text])

seen(m) := sprintf("python -m %s", [m.text]) if {
	m.kind == "module"
	not endswith(m.text, ".py")
} else := m.text
