# METADATA
# title: Prefill and decode KV-cache dtypes differ
# description: >-
#   The prefill server sends its KV pages byte for byte into the decode
#   server's pool, so both must store the same dtype. Since sglang#19407
#   (2026-02-26) the decode server compares the two --kv-cache-dtype strings
#   when it first contacts the prefill server and raises "KV cache dtype
#   mismatch … Both servers must use the same --kv-cache-dtype value."
#   (disaggregation/common/conn.py try_ensure_parallel_info). The comparison
#   is of the strings as written (server_args.kv_cache_dtype), so "auto" on
#   one side and "bfloat16" on the other is refused even when both store
#   bfloat16; releases before the check decode fp8 bytes as bf16 or the other
#   way round. Severity high: no request completes, or every answer is
#   computed from misread KV. The check (27fd01472) is in no release up
#   to 0.5.6.post2 (5c8bd8b5, the last version bump the modal-projects/sglang
#   mirror of main names): a decode server that runs such a release starts,
#   different spellings of one stored dtype are harmless there, and a
#   different stored dtype passes silently, which the finding says.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/disaggregation/common/conn.py
#     description: try_ensure_parallel_info compares kv_cache_dtype
#   - ref: https://github.com/sgl-project/sglang/pull/19407
#     description: added the KV cache dtype check (2026-02-26)
#   - ref: https://github.com/sgl-project/sglang/issues/38362
#     description: different --kv-cache-dtype values collide in a shared KV store
# custom:
#   id: KV202
#   severity: high
#   remediation: >-
#     Write the same --kv-cache-dtype on every prefill and decode server of the
#     deployment, spelled the same way (fp8_e4m3 on both, or leave both unset).
package kvlint.rules.kv_dtype_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	pv := lib.arg_typed(p.args, "--kv-cache-dtype", "auto")
	qv := lib.arg_typed(q.args, "--kv-cache-dtype", "auto")
	pv != qv
	not lib.sglang_release_before(q.engine, object.get(q, "release", {}), "0.5.7")
	finding := {
		"msg": sprintf("decode --kv-cache-dtype %s differs from %s on the prefill server %s: the decode side raises \"KV cache dtype mismatch\" when it first contacts the prefill server (disaggregation/common/conn.py try_ensure_parallel_info)%s", [
			qv,
			pv,
			lib.where(p),
			same_dtype_note(p, q),
		]),
		"server": q.index,
		"arg": "--kv-cache-dtype",
	}
}

# same_dtype_note explains a refusal between spellings of one dtype.
same_dtype_note(p, q) := sprintf("; both store %s, but the check compares the flag strings", [p.capacity.kv_dtype]) if {
	p.capacity.kv_dtype != ""
	p.capacity.kv_dtype == q.capacity.kv_dtype
} else := ""

# A decode server on a release without the check: only a different stored
# dtype matters, and nothing stops it.
deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	pv := lib.arg_typed(p.args, "--kv-cache-dtype", "auto")
	qv := lib.arg_typed(q.args, "--kv-cache-dtype", "auto")
	pv != qv
	lib.sglang_release_before(q.engine, object.get(q, "release", {}), "0.5.7")
	not same_stored(p, q)
	finding := {
		"msg": sprintf("decode --kv-cache-dtype %s differs from %s on the prefill server %s: SGLang v%s has no KV cache dtype check (sglang#19407 came after v0.5.6.post2), so both servers start and the mismatch passes silently: the decode side reads the transferred KV bytes as its own dtype", [
			qv,
			pv,
			lib.where(p),
			q.release.version,
		]),
		"server": q.index,
		"arg": "--kv-cache-dtype",
	}
}

same_stored(p, q) if {
	p.capacity.kv_dtype != ""
	p.capacity.kv_dtype == q.capacity.kv_dtype
}
