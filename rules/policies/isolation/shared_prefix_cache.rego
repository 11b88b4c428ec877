# METADATA
# title: Prefix cache shared across tenants with no enforced isolation key
# description: >-
#   A server that reuses cached prefixes across requests answers a prompt
#   whose prefix another request already sent measurably faster. When
#   tenants share the server and nothing keys the cache by tenant, any
#   tenant can test whether another tenant sent a given prefix — the timing
#   side channel the prompt-caching audits measured in production APIs — and
#   against SGLang's radix cache and longest-prefix-first scheduling, recover
#   other users' prompts token by token (PROMPTPEEK). SGLang's radix cache is
#   on by default, one tree per scheduler shared by every request
#   (mem_cache/radix_cache.py); vLLM's automatic prefix caching is on by
#   default. The isolation key is the cache_salt request field; only a
#   gateway that derives it from the authenticated tenant enforces it — a
#   salt the client chooses can be copied by another client. Severity high
#   when the deployment is declared multi-tenant; medium when kvlint assumes
#   it (multi is the default), so declare it either way.
# related_resources:
#   - ref: https://arxiv.org/abs/2502.07776
#     description: Gu et al., Auditing Prompt Caching in Language Model APIs (ICML 2025)
#   - ref: https://github.com/sgl-project/sglang/issues/9163
#     description: SGLang feature request for cache salting (prefix cache side channels)
#   - ref: https://github.com/vllm-project/vllm/pull/17045
#     description: vLLM cache_salt, injected into the first block's hash
#   - ref: https://github.com/vllm-project/vllm/pull/53347
#     description: the salt must be set server-side; a client-chosen salt can be copied
# custom:
#   id: KV301
#   severity: high
#   assumes: tenancy
#   remediation: >-
#     Have the gateway in front of the deployment set cache_salt from the
#     authenticated tenant on every request (overwriting any client value) and
#     declare isolation.cache_salt gateway in .kvlint.yaml; or give each tenant
#     its own deployment (isolation.per_tenant_deployments true); or turn the
#     prefix cache off (--disable-radix-cache, --no-enable-prefix-caching);
#     or declare tenancy single if one tenant uses it.
package kvlint.rules.shared_prefix_cache

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	lib.prefix_cache(s)
	d := lib.deployment_of(s)
	lib.shares_tenants(d)
	not lib.salt_enforced(d)
	finding := {
		"msg": sprintf("%s keeps a prefix cache shared by every tenant of deployment %s with %s: a tenant can tell from time to first token whether another tenant sent the same prefix, and recover prompts prefix by prefix%s%s", [
			cache_name(s),
			d.name,
			salt_phrase(d),
			lib.opaque_note(s.opaque),
			lib.tenancy_note(d),
		]),
		"server": s.index,
		"arg": cache_arg(s),
		"severity": lib.tenancy_severity(d, "high", "medium"),
	}
}

cache_name(s) := "this decode server's experimental radix cache" if {
	s.engine == "sglang"
	s.role == "decode"
} else := "SGLang's radix cache (on by default)" if {
	s.engine == "sglang"
} else := "vLLM's automatic prefix caching (on by default)"

salt_phrase(d) := "only a cache_salt clients choose, which any client can copy" if {
	d.isolation.cache_salt == "client"
} else := "no isolation key enforced (no gateway sets cache_salt)"

cache_arg(s) := lib.first_given(s.args, ["--disaggregation-decode-enable-radix-cache", "--enable-prefix-caching"])
