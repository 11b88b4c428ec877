# METADATA
# title: Prefill and decode page sizes differ
# description: >-
#   The decode side receives KV pages into pages it pre-allocated, so both
#   sides must use the same page size. Since sglang#14474 (2026-01-05) the
#   decode server checks it when it first fetches the prefill server's
#   parallel info and raises "Page size mismatch: … Both servers must use the
#   same --page-size value." (disaggregation/common/conn.py
#   try_ensure_parallel_info), so no request completes; releases before that
#   transfer into pages of the wrong shape. That check (4397cda7d) is in no
#   release up to 0.5.6.post2 (5c8bd8b5, the last version bump the
#   modal-projects/sglang mirror of main names), so a decode server that
#   runs such a release starts, and the finding says the mismatch passes
#   silently there. Severity high: the deployment
#   serves nothing, or serves garbage on older releases. The page size compared is the one
#   SGLang resolves: --page-size, or the default the attention backend forces
#   (1 on CUDA, 64 for DeepSeek DSA, 64 or more for the Blackwell backends).
#   A side whose page size depends on a GPU kvlint does not know is not judged.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/common/conn.py
#     description: try_ensure_parallel_info raises on a page size mismatch
#   - ref: https://github.com/sgl-project/sglang/pull/14474
#     description: added the page size check (2026-01-05)
#   - ref: https://github.com/sgl-project/sglang/issues/5450
#     description: maintainers advise --page-size 32 or more for PD transfer speed
# custom:
#   id: KV201
#   severity: high
#   remediation: >-
#     Pass the same --page-size to every prefill and decode server of the
#     deployment (the same attention backend too, when it forces a page size).
package kvlint.rules.page_size_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	page_known(p)
	page_known(q)
	p.capacity.page_size != q.capacity.page_size
	finding := {
		"msg": sprintf("decode page size %d differs from prefill page size %d on %s: %s", [
			q.capacity.page_size,
			p.capacity.page_size,
			lib.where(p),
			consequence(q),
		]),
		"server": q.index,
		"arg": lib.first_given(q.args, ["--page-size", "--attention-backend", "--decode-attention-backend"]),
	}
}

# consequence(q) is what the mismatch does on the release decode server q
# runs: the check raises from sglang#14474 on, and before it nothing does.
consequence(q) := sprintf("SGLang v%s has no page size check (sglang#14474 came after v0.5.6.post2), so both servers start and the mismatch passes silently: KV pages are transferred into pages of the wrong shape and answers are computed from misplaced KV", [q.release.version]) if {
	lib.sglang_release_before(q.engine, object.get(q, "release", {}), "0.5.7")
} else := "the decode side raises \"Page size mismatch\" when it first contacts the prefill server, so no request completes (disaggregation/common/conn.py try_ensure_parallel_info)"

# page_known(s): SGLang's page size for s is known: resolved by capacity, and
# either written or resolved on a known GPU (the default differs on
# Blackwell).
page_known(s) if {
	s.capacity.page_size > 0
	is_number(s.args["--page-size"].typed)
}

page_known(s) if {
	s.capacity.page_size > 0
	not s.args["--page-size"]
	s.capacity.gpu != ""
}
