# METADATA
# title: Per-request cache-hit reporting in a multi-tenant deployment
# description: >-
#   SGLang's --enable-cache-report returns the number of prompt tokens served
#   from the prefix cache in every response (usage.prompt_tokens_details
#   .cached_tokens); vLLM's --enable-prompt-tokens-details does the same. In
#   a deployment whose tenants share a prefix cache with no enforced
#   isolation key, that number tells a tenant exactly how much of its prompt
#   another tenant already sent: no timing statistics needed. SGLang's own
#   reproduction of the cache-salt bug used this field to show cross-salt
#   hits (sglang#23300); vLLM's cached-token telemetry proposal warns it is a
#   direct hit oracle unless an unpredictable, tenant-scoped salt is set.
#   Severity high when the deployment is declared multi-tenant; medium when
#   kvlint assumes it.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/pull/23300
#     description: reproduces cross-salt cache hits with --enable-cache-report
#   - ref: https://github.com/vllm-project/vllm/pull/53795
#     description: per-request cached-token counts are a hit oracle without a tenant salt
# custom:
#   id: KV302
#   severity: high
#   assumes: tenancy
#   remediation: >-
#     Drop --enable-cache-report (--enable-prompt-tokens-details), or strip
#     the cached-token count at the gateway, or enforce a per-tenant
#     cache_salt at the gateway and declare it (isolation.cache_salt gateway).
package kvlint.rules.cache_hit_report

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	flag := report_flag(s)
	d := lib.deployment_of(s)
	lib.shares_tenants(d)
	not lib.salt_enforced(d)
	some i in d.servers
	lib.prefix_cache(input.servers[i])
	finding := {
		"msg": sprintf("%s returns each request's cached-token count to the client, in deployment %s whose tenants share a prefix cache with no enforced isolation key: a tenant reads directly how much of its prompt another tenant already sent%s", [
			flag,
			d.name,
			lib.tenancy_note(d),
		]),
		"server": s.index,
		"arg": flag,
		"severity": lib.tenancy_severity(d, "high", "medium"),
	}
}

report_flag(s) := "--enable-cache-report" if {
	s.engine == "sglang"
	lib.flag_true(s.args, "--enable-cache-report")
}

report_flag(s) := "--enable-prompt-tokens-details" if {
	s.engine == "vllm"
	lib.flag_true(s.args, "--enable-prompt-tokens-details")
}
