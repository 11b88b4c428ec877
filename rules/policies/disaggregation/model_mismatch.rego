# METADATA
# title: Prefill and decode serve different models, revisions or quantizations
# description: >-
#   The decode server continues generation from the KV cache the prefill
#   server computed. SGLang's transfer handshake checks the page size and the
#   KV dtype but not the model, its revision or its quantization: the prefill
#   server's bootstrap info carries no model identity (PrefillServerInfo in
#   disaggregation/common/conn.py), so a decode pool loaded with other weights
#   accepts KV it cannot interpret and answers with fluent garbage, with no
#   error anywhere. Severity high: every answer of the deployment is wrong.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/common/conn.py
#     description: PrefillServerInfo and the handshake checks (page size, KV dtype only)
#   - ref: https://github.com/sgl-project/sglang/blob/main/docs_new/docs/advanced_features/pd_disaggregation.mdx
#     description: PD launch examples use the same --model-path on both sides
# custom:
#   id: KV203
#   severity: high
#   remediation: >-
#     Launch prefill and decode with the same --model-path, --revision and
#     --quantization (roll them out together when the model changes).
package kvlint.rules.model_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	pm := model_id(p)
	qm := model_id(q)
	pm != qm
	finding := {
		"msg": sprintf("the decode server serves %s but its prefill server %s serves %s: decode continues from KV computed by other weights, and nothing in the transfer checks the model%s", [
			qm,
			lib.where(p),
			pm,
			lib.opaque_note(array.concat(p.opaque, q.opaque)),
		]),
		"server": q.index,
		"arg": model_arg(q),
	}
}

deny contains finding if {
	some pair in lib.pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	model_id(p) == model_id(q)
	some flag in ["--revision", "--quantization"]
	pv := lib.arg_value(p.args, flag, "(unset)")
	qv := lib.arg_value(q.args, flag, "(unset)")
	pv != qv
	finding := {
		"msg": sprintf("decode %s %s differs from %s on the prefill server %s: decode continues from KV computed by differently loaded weights, and nothing in the transfer checks it", [
			flag,
			qv,
			pv,
			lib.where(p),
		]),
		"server": q.index,
		"arg": lib.first_given(q.args, [flag, "--model-path"]),
	}
}

# model_id is what the server loads: the catalog id capacity resolved (so a
# local path mapped in .kvlint.yaml compares equal to the id), else the
# model as written; undefined when it is a placeholder or absent.
model_id(s) := s.capacity.model if {
	s.capacity.model != ""
} else := s.model.value if {
	s.model.known
}

model_arg(s) := lib.first_given(s.args, ["--model-path", "--model"])
