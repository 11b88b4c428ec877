# METADATA
# title: Prefill bootstrap port not registered with the router
# description: >-
#   The router pairs a prefill and a decode server for each request and
#   passes the prefill server's bootstrap address along. Its --prefill flag
#   takes the URL and, optionally, the bootstrap port ("--prefill URL
#   [BOOTSTRAP_PORT]", which "defaults to none", router_args.py). With no
#   port, the decode scheduler falls back to its own
#   --disaggregation-bootstrap-port (managers/scheduler.py: "Use default
#   bootstrap port"), default 8998. A prefill server that listens on another
#   port is then never reached: every transfer waits for a bootstrap server
#   that is not there until the timeouts. Severity high: no request through
#   that prefill server completes.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/scheduler.py
#     description: a request without bootstrap_port gets the decode server's own port
#   - ref: https://github.com/sgl-project/sglang/blob/main/sgl-model-gateway/bindings/python/src/sglang_router/router_args.py
#     description: --prefill URL [BOOTSTRAP_PORT], the port defaults to none
# custom:
#   id: KV207
#   severity: high
#   remediation: >-
#     Register the prefill server with its port (--prefill http://host:30000
#     9000), or run every prefill and decode server on the same
#     --disaggregation-bootstrap-port.
package kvlint.rules.bootstrap_port_unregistered

import data.kvlint.lib

deny contains finding if {
	some d in input.deployments
	some link in d.links
	link.role == "prefill"
	not link.discovery
	link.bootstrap_port in {"", "none"}
	some pi in link.servers
	p := input.servers[pi]
	p.engine == "sglang"
	pport := lib.arg_typed(p.args, "--disaggregation-bootstrap-port", 8998)
	mismatched := [q |
		some qi in d.decode
		q := input.servers[qi]
		q.engine == "sglang"
		lib.arg_typed(q.args, "--disaggregation-bootstrap-port", 8998) != pport
	]
	count(mismatched) > 0
	q := mismatched[0]
	finding := {
		"msg": sprintf("the router registers %s %s, so the decode server %s falls back to its own bootstrap port %v (managers/scheduler.py), but the prefill server %s listens on %v: transfers wait for a bootstrap server that is not there; write the port after the URL (--prefill %s %v)", [
			link.target,
			registered(link),
			lib.where(q),
			lib.arg_typed(q.args, "--disaggregation-bootstrap-port", 8998),
			lib.where(p),
			pport,
			link.target,
			pport,
		]),
		"server": link.router,
		"arg": "--prefill",
	}
}

registered(link) := "with bootstrap port none" if {
	link.bootstrap_port == "none"
} else := "without a bootstrap port"
