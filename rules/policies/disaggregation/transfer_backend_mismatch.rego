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
#   support 'fake' as the transfer backend"). By release: before 0.5.2rc0
#   there is no fake backend (argparse exits), and up to 0.5.6.post2 a fake
#   prefill starts, sends no KV and reports every transfer done (the refusal
#   came with sglang#19208). Severity high: no request of the deployment
#   completes, or none correctly.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/arg_groups/pd_disaggregation_hook.py
#     description: mooncake_tcp rewriting and the prefill-side fake assertion
#   - ref: https://github.com/sgl-project/sglang/pull/19208
#     description: added the prefill-side fake assertion (after 0.5.6.post2)
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
		"msg": sprintf("--disaggregation-transfer-backend fake on a prefill server: %s", [fake_prefill(s)]),
		"server": s.index,
		"arg": "--disaggregation-transfer-backend",
	}
}

# fake_prefill(s) is what a fake prefill does on the release s runs, read in
# the modal-projects/sglang mirror: "fake" joined
# DISAGG_TRANSFER_BACKEND_CHOICES in 0.5.2rc0 (server_args.py at 16e56ea6;
# no release before it lists it); the startup refusal came with feb041f4e
# (sglang#19208, 2026-02-23), not an ancestor of 0.5.6.post2's 5c8bd8b5. In
# between, FakeKVSender (disaggregation/fake/conn.py at 5c8bd8b5) sends
# nothing and polls Success once send is called.
fake_prefill(s) := sprintf("SGLang v%s has no fake transfer backend (it joined the choices in 0.5.2rc0), so argparse exits with \"invalid choice: 'fake'\"", [s.release.version]) if {
	lib.sglang_release_before(s.engine, s.release, "0.5.2rc0")
} else := sprintf("SGLang v%s starts it (the refusal came after v0.5.6.post2, sglang#19208), and its fake sender sends no KV yet reports every transfer done (disaggregation/fake/conn.py), so the decode server answers from KV it never received", [s.release.version]) if {
	lib.sglang_release_before(s.engine, s.release, "0.5.7")
} else := "SGLang refuses it at startup (\"Prefill server does not support 'fake' as the transfer backend\", arg_groups/pd_disaggregation_hook.py); fake only lets a decode server run without a prefill peer"

# backend is the transfer engine a server really uses: mooncake_tcp is
# mooncake with MC_FORCE_TCP=1. Undefined for a placeholder.
backend(s) := "mooncake" if {
	lib.arg_typed(s.args, "--disaggregation-transfer-backend", "mooncake") == "mooncake_tcp"
} else := lib.arg_typed(s.args, "--disaggregation-transfer-backend", "mooncake")
