# METADATA
# title: SGLang server without Prometheus metrics
# description: >-
#   An example of a team's own rule, loaded with --policy. The server does not
#   export Prometheus metrics: --enable-metrics is off unless given
#   (python/sglang/srt/server_args.py, add_cli_args: store_true), so the
#   KV-cache usage and queueing that show a pool running full never reach
#   the dashboards and alerts that would catch it before clients do.
#   Severity medium: nothing breaks, but capacity problems go unseen.
# custom:
#   id: ACME001
#   severity: medium
#   remediation: Add --enable-metrics to the launch command.
package kvlint.rules.require_metrics

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	not s.args["--enable-metrics"]

	# Words kvlint could not expand ($EXTRA_ARGS) may hold the flag.
	not s.opaque_args
	finding := {
		"msg": sprintf("%s does not export Prometheus metrics: add --enable-metrics", [lib.program(s.engine)]),
		"server": s.index,
		"arg": "",
	}
}
