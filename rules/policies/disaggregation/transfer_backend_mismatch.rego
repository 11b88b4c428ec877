# METADATA
# title: Transfer backends differ, or a prefill server uses the fake backend
# description: >-
#   The prefill and decode servers of a pair move KV through one transfer
#   engine (--disaggregation-transfer-backend: mooncake by default, nixl,
#   ascend, mori; mooncake_tcp is mooncake with TCP forced,
#   arg_groups/pd_disaggregation_hook.py). Each side builds the sender or
#   receiver of its own backend, so a pair with different backends never
#   completes a transfer: the prefill side waits for destination indices and
#   the decode side for KV until the bootstrap and waiting timeouts. The fake
#   backend only lets a decode server run without a prefill peer (for
#   testing); a prefill server refuses it at startup ("Prefill server does not
#   support 'fake' as the transfer backend"). Severity high: no request of
#   the deployment completes.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/arg_groups/pd_disaggregation_hook.py
#     description: mooncake_tcp rewriting and the prefill-side fake assertion
#   - ref: https://github.com/sgl-project/sglang/blob/main/docs_new/docs/advanced_features/pd_disaggregation.mdx
#     description: transfer backends, and the bootstrap and waiting timeouts
# custom:
#   id: KV206
#   severity: high
#   remediation: >-
#     Use one --disaggregation-transfer-backend on every prefill and decode
#     server of the deployment, and never fake on a prefill server.
package kvlint.rules.transfer_backend_mismatch

import data.kvlint.lib

deny contains finding if {
	some pair in lib.sglang_pd_pairs
	p := input.servers[pair[0]]
	q := input.servers[pair[1]]
	pb := backend(p)
	qb := backend(q)
	pb != qb
	finding := {
		"msg": sprintf("decode transfer backend %s differs from %s on the prefill server %s: the two sides never complete a KV transfer, and requests hang until the bootstrap and waiting timeouts", [
			qb,
			pb,
			lib.where(p),
		]),
		"server": q.index,
		"arg": "--disaggregation-transfer-backend",
	}
}

deny contains finding if {
	some s in lib.sglang_servers
	s.role == "prefill"
	backend(s) == "fake"
	finding := {
		"msg": "--disaggregation-transfer-backend fake on a prefill server: SGLang refuses it at startup (\"Prefill server does not support 'fake' as the transfer backend\", arg_groups/pd_disaggregation_hook.py); fake only lets a decode server run without a prefill peer",
		"server": s.index,
		"arg": "--disaggregation-transfer-backend",
	}
}

# backend is the transfer engine a server really uses: mooncake_tcp is
# mooncake with MC_FORCE_TCP=1. Undefined for a placeholder.
backend(s) := "mooncake" if {
	lib.arg_typed(s.args, "--disaggregation-transfer-backend", "mooncake") == "mooncake_tcp"
} else := lib.arg_typed(s.args, "--disaggregation-transfer-backend", "mooncake")
