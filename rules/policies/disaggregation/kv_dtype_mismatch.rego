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
#   computed from misread KV.
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
