# METADATA
# title: Prefill and decode context lengths differ
# description: >-
#   Each side of a PD pair validates a request against its own context
#   length: the prefill server admits inputs up to its own
#   --context-length, and the decode server clips or aborts by its own
#   (managers/utils.py validate_input_length, scheduler.py
#   init_req_max_new_tokens). When they differ, clients see the smaller limit
#   on some requests and the larger one on others, and a request the prefill
#   side accepted and computed can be refused after its KV was sent. The
#   handshake does not compare them (disaggregation/common/conn.py).
#   Severity medium: requests near the limit fail or are cut short
#   depending on which side judges them, and the advertised limit is wrong.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/common/conn.py
#     description: the handshake compares page size and KV dtype, not the context length
#   - ref: https://github.com/sgl-project/sglang/issues/30233
#     description: aborted prefill requests have let decode generate from incomplete KV
# custom:
#   id: KV204
#   severity: medium
#   remediation: >-
#     Give prefill and decode the same --context-length (or --max-model-len
#     for vLLM), the one clients are told.
package kvlint.rules.context_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	pc := lib.context_tokens(p.capacity)
	qc := lib.context_tokens(q.capacity)
	pc != qc
	finding := {
		"msg": sprintf("decode context length %s differs from %s on the prefill server %s: requests between the two limits are admitted by one side and refused or clipped by the other", [
			lib.thousands(qc),
			lib.thousands(pc),
			lib.where(p),
		]),
		"server": q.index,
		"arg": lib.first_given(q.args, ["--context-length", "--max-model-len"]),
	}
}
