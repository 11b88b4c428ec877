# METADATA
# title: Removed disaggregation flags, or an experimental decode radix cache shared by tenants
# description: >-
#   Two disaggregation settings that do not do what they say. A removed
#   --disaggregation-* flag (--disaggregation-decode-tp, -decode-dp and
#   --disaggregation-prefill-pp were removed by sglang#19618 on 2026-03-02,
#   --disaggregation-decode-enable-fake-auto by #18345) makes argparse stop
#   that server at startup, so the router has no pool on one side to pair
#   with: the decode side's parallelism is its own --tp-size/--dp-size. And
#   --disaggregation-decode-enable-radix-cache turns on a prefix cache on the
#   decode side that SGLang itself marks experimental ("EXPERIMENTAL: Radix
#   cache is enabled for decode server", arg_groups/pd_disaggregation_hook.py)
#   — without it the decode server runs a chunk cache that shares nothing —
#   in a deployment whose tenants then share a second prefix cache. Severity
#   high for a removed flag (the deployment does not start); the decode radix
#   cache is medium when the deployment is declared multi-tenant and low when
#   kvlint assumes it.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/pull/19618
#     description: removed --disaggregation-decode-tp, --disaggregation-decode-dp, --disaggregation-prefill-pp
#   - ref: https://github.com/sgl-project/sglang/pull/18345
#     description: removed --disaggregation-decode-enable-fake-auto
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/arg_groups/pd_disaggregation_hook.py
#     description: the decode radix cache is experimental; decode otherwise forces a chunk cache
# custom:
#   id: KV209
#   severity: high
#   stops_start: high
#   remediation: >-
#     Drop the removed flag (set the decode server's --tp-size and --dp-size
#     on the decode server itself); in a multi-tenant deployment leave the
#     decode radix cache off, or declare per-tenant deployments.
package kvlint.rules.pd_flag_hazards

import data.kvlint.lib

deny contains finding if {
	some s in lib.sglang_servers
	some issue in s.flag_issues
	issue.kind == "removed"
	startswith(issue.flag, "--disaggregation-")
	finding := {
		"msg": sprintf("%s was removed from sglang.launch_server: argparse stops this %s server at startup, so the router has no %s pool to pair requests with%s", [
			lib.written(issue),
			role_word(s.role),
			role_word(s.role),
			instead(issue),
		]),
		"server": s.index,
		"issue": issue.index,
	}
}

deny contains finding if {
	some s in lib.sglang_servers
	s.role == "decode"
	lib.flag_true(s.args, "--disaggregation-decode-enable-radix-cache")
	d := lib.deployment_of(s)
	lib.shares_tenants(d)
	finding := {
		"msg": sprintf("--disaggregation-decode-enable-radix-cache turns on SGLang's experimental decode-side radix cache (\"EXPERIMENTAL: Radix cache is enabled for decode server\") in a deployment shared by tenants: decode reuses cached prefixes across tenants%s%s", [
			salt_note(d),
			lib.tenancy_note(d),
		]),
		"server": s.index,
		"arg": "--disaggregation-decode-enable-radix-cache",
		"severity": lib.tenancy_severity(d, "medium", "low"),
	}
}

role_word(role) := role if {
	role in {"prefill", "decode"}
} else := "disaggregated"

instead(issue) := sprintf("; write %s instead", [issue.suggestion]) if {
	issue.suggestion != ""
} else := "; the decode server's parallelism is its own --tp-size and --dp-size" if {
	issue.flag in {"--disaggregation-decode-tp", "--disaggregation-decode-dp"}
} else := ""

salt_note(d) := ", and kvlint knows of no test that the gateway's cache_salt keeps that path apart" if {
	lib.salt_enforced(d)
} else := ""
