# METADATA
# title: Prefill and decode TP sizes differ for a non-MLA model
# description: >-
#   Each KV head lives on one attention-TP rank, so when prefill and decode
#   shard the heads differently every page is split or gathered across ranks
#   during the transfer. For MLA models the latent cache is replicated on
#   every rank and the sizes may differ freely. For other models SGLang warns
#   "Performance is NOT guaranteed when using different TP sizes for non-MLA
#   models" (disaggregation/common/conn.py _resolve_rank_mapping), the
#   mooncake and NIXL backends refuse it for hybrid (SWA, Mamba) models ("PD
#   Disaggregation does NOT support PD different TP sizes for non-MLA …
#   hybrid models yet"), and users report crashes under load and hangs.
#   Severity medium: a degraded or unsupported path that works in a demo and
#   fails under production load. When the model is not in kvlint's catalog
#   the rule cannot tell MLA from not, and says so at low severity.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/common/conn.py
#     description: the warning for different TP sizes on non-MLA models
#   - ref: https://github.com/sgl-project/sglang/issues/15674
#     description: PD crashes under load with different TP sizes (non-MLA)
#   - ref: https://github.com/llm-d/llm-d/issues/2433
#     description: prefill TP1 / decode TP4 hangs on gpt-oss-120b
#   - ref: https://github.com/sgl-project/sglang/pull/6793
#     description: added different TP sizes for non-MLA models
# custom:
#   id: KV208
#   severity: medium
#   remediation: >-
#     Give prefill and decode the same --tp-size for a non-MLA model; if the
#     sizes must differ, set SGLANG_DISAGG_STAGING_BUFFER=1 on both sides
#     (mooncake or nixl) and load-test the pair.
package kvlint.rules.tp_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	tp_differs(p, q)
	not_mla(p, q)
	finding := {
		"msg": sprintf("decode --tp-size %d differs from %d on the prefill server %s, and %s is not an MLA model: SGLang transfers its KV heads between different shardings on a path it warns about (\"Performance is NOT guaranteed\") and refuses for hybrid models", [
			q.capacity.tp,
			p.capacity.tp,
			lib.where(p),
			q.capacity.model,
		]),
		"server": q.index,
		"arg": lib.first_given(q.args, ["--tp-size"]),
	}
}

deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	tp_differs(p, q)
	not p.mla == false
	not q.mla == false
	not p.mla == true
	not q.mla == true
	finding := {
		"msg": sprintf("cannot be checked: decode --tp-size %d differs from %d on the prefill server %s, which is fine for an MLA model and a degraded path otherwise, and whether the model uses MLA is not known to kvlint (map it in .kvlint.yaml models:)", [
			q.capacity.tp,
			p.capacity.tp,
			lib.where(p),
		]),
		"server": q.index,
		"arg": lib.first_given(q.args, ["--tp-size"]),
		"severity": "low",
	}
}

tp_differs(p, q) if {
	p.capacity.tp > 0
	q.capacity.tp > 0
	p.capacity.tp != q.capacity.tp
}

not_mla(p, q) if {
	p.mla == false
	not q.mla == true
}

not_mla(p, q) if {
	q.mla == false
	not p.mla == true
}
