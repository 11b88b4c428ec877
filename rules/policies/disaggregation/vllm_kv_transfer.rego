# METADATA
# title: vLLM KV-transfer roles or connectors do not pair up
# description: >-
#   vLLM disaggregates prefill from decode with --kv-transfer-config: a
#   kv_connector names the transfer implementation (NixlConnector,
#   P2pNcclConnector, LMCacheConnectorV1, MooncakeConnector, MultiConnector…)
#   and kv_role says which way KV flows — kv_producer sends, kv_consumer
#   receives, kv_both does either (KVTransferConfig.is_kv_producer /
#   is_kv_consumer, vllm/config/kv_transfer.py). Every producer needs a
#   consumer that speaks the same connector: two connectors never exchange a
#   block, so the consumer recomputes or fails each request
#   (kv_load_failure_policy, "fail" by default), and a deployment whose vLLM
#   servers all produce (or all consume) has no one on the other end — the
#   usual slip is copying the prefill manifest to the decode one. kvlint
#   compares the vLLM servers of one deployment that set a kv_connector;
#   a lone server, whose peer may be outside the checked files, is not
#   judged. Severity high: no request of the deployment completes as
#   intended.
# related_resources:
#   - ref: https://github.com/vllm-project/vllm/blob/main/vllm/config/kv_transfer.py
#     description: KVTransferConfig, kv_role and is_kv_producer / is_kv_consumer
#   - ref: https://docs.vllm.ai/en/latest/features/disagg_prefill.html
#     description: vLLM's disaggregated prefilling, producer and consumer instances
# custom:
#   id: KV210
#   severity: high
#   remediation: >-
#     Give every prefill server kv_role kv_producer and every decode server
#     kv_role kv_consumer (or kv_both on both sides, as llm-d runs NixlConnector),
#     with the same kv_connector on both sides of the deployment.
package kvlint.rules.vllm_kv_transfer

import data.kvlint.lib

# transfer(s) is a vLLM server's connector and role when it is a KV-transfer
# instance (a kv_connector that is not null); the values may be placeholders.
transfer(s) := {"connector": s.args["--kv-transfer-config.kv_connector"], "role": role(s.args)} if {
	s.engine == "vllm"
	c := s.args["--kv-transfer-config.kv_connector"]
	not null_value(c)
}

# transfers maps the index of every server that sets a kv_connector to its
# transfer settings; worked out once per evaluation, so the rules below look
# servers up instead of computing transfer() for every pair of servers.
transfers[i] := t if {
	some i, s in input.servers
	t := transfer(s)
}

# transfer_deployments are the deployments with such a server: only these
# can hold a mismatch, and most deployments have none.
transfer_deployments contains lib.deployment_of(input.servers[i]) if some i, _ in transfers

role(args) := args["--kv-transfer-config.kv_role"] if {
	args["--kv-transfer-config.kv_role"]
} else := {"value": "", "known": true, "typed": ""}

null_value(v) if {
	v.known
	v.typed in {null, ""}
}

produces(t) if t.role.typed in {"kv_producer", "kv_both"}

consumes(t) if t.role.typed in {"kv_consumer", "kv_both"}

# maybe_produces / maybe_consumes: a placeholder role may be either.
maybe_produces(t) if produces(t)

maybe_produces(t) if not t.role.known

maybe_consumes(t) if consumes(t)

maybe_consumes(t) if not t.role.known

# A producer and a consumer of one deployment name different connectors.
deny contains finding if {
	some d in transfer_deployments
	some p in d.servers
	tp := transfers[p]
	produces(tp)
	some q in d.servers
	p != q
	tq := transfers[q]
	consumes(tq)
	tp.connector.known
	tq.connector.known
	tp.connector.typed != tq.connector.typed
	not reported_the_other_way(tp, tq, p, q)
	finding := {
		"msg": sprintf("kv_connector %s (kv_role %s) differs from %s on %s (kv_role %s) in deployment %s: the two sides never exchange a KV block, so this server %s", [
			tq.connector.value,
			tq.role.value,
			tp.connector.value,
			lib.where(input.servers[p]),
			tp.role.value,
			d.name,
			outcome(tq),
		]),
		"server": q,
		"arg": "--kv-transfer-config.kv_connector",
	}
}

# Two kv_both servers would be reported twice: keep the one on the higher
# index.
reported_the_other_way(tp, tq, p, q) if {
	produces(tq)
	consumes(tp)
	q < p
}

outcome(t) := "recomputes or fails every request it should have received KV for (kv_load_failure_policy, fail by default)" if {
	consumes(t)
	not produces(t)
} else := "and its peer cannot hand KV over in either direction"

# The vLLM transfer servers of a deployment all produce, or all consume.
deny contains finding if {
	some d in transfer_deployments
	members := [i | some i in d.servers; transfers[i]]
	count(members) >= 2
	ts := [transfers[i] | some i in members]
	not any_maybe(ts, "consume")
	some i in members
	finding := {
		"msg": sprintf("every vLLM server of deployment %s that sets a kv_connector is a producer (kv_role %s): none consumes (kv_consumer or kv_both), so the KV the prefill side computes is never used", [d.name, transfers[i].role.value]),
		"server": i,
		"arg": "--kv-transfer-config.kv_role",
	}
}

deny contains finding if {
	some d in transfer_deployments
	members := [i | some i in d.servers; transfers[i]]
	count(members) >= 2
	ts := [transfers[i] | some i in members]
	not any_maybe(ts, "produce")
	some i in members
	finding := {
		"msg": sprintf("every vLLM server of deployment %s that sets a kv_connector is a consumer (kv_role %s): none produces (kv_producer or kv_both), so decode waits for KV that never comes", [d.name, transfers[i].role.value]),
		"server": i,
		"arg": "--kv-transfer-config.kv_role",
	}
}

any_maybe(ts, "consume") if {
	some t in ts
	maybe_consumes(t)
}

any_maybe(ts, "produce") if {
	some t in ts
	maybe_produces(t)
}
