# METADATA
# title: Shared external KV tier whose keys carry no tenant namespace
# description: >-
#   An external KV tier keeps prefixes beyond one server's GPU memory and is
#   meant to be shared: SGLang's HiCache L3 storage backend (the L3 tier "is
#   shared by all instances", hicache_design.mdx), LMCache, and vLLM's
#   Mooncake store connector. Their keys are token hashes: SGLang's L3 keys
#   hash tokens only (mem_cache/utils.py get_hash_str, RadixKey.hash_page),
#   so a salted prefix is still shared through L3 until sglang#38577
#   (2026-09-08); SGLang's LMCache path drops cache_salt (sglang#37160,
#   LMCache#4825: a cross-tenant hit measured at 1198 ms against a 3430 ms
#   recompute through a gateway); vLLM's LMCache key omits the salt
#   (LMCache#2878) and its Mooncake store keys carry no tenant unless
#   cache_prefix is set. A gateway-enforced salt does not help, nor do
#   per-tenant deployments that share the store. Severity high when the
#   deployment is declared multi-tenant; medium when kvlint assumes it.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/issues/37160
#     description: SGLang's LMCache integration ignores cache_salt
#   - ref: https://github.com/LMCache/LMCache/issues/4825
#     description: measured cross-tenant prefix hit through LMCache with SGLang
#   - ref: https://github.com/sgl-project/sglang/pull/38577
#     description: HiCache storage pages isolated by extra key (L3 was token-only)
#   - ref: https://github.com/LMCache/LMCache/issues/2878
#     description: cache_salt is not part of LMCache's CacheEngineKey
#   - ref: https://github.com/vllm-project/vllm/pull/45767
#     description: Mooncake store connector keys, opt-in cache_prefix
# custom:
#   id: KV303
#   severity: high
#   assumes: tenancy
#   remediation: >-
#     Give each tenant its own store (or Mooncake tenant_id / cache_prefix per
#     tenant) and declare isolation.external_kv namespaced; or turn the
#     external tier off in multi-tenant deployments.
package kvlint.rules.shared_external_kv

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	may_have_tier(s) # cheap, and false for most servers
	some tier in tiers(s)
	d := lib.deployment_of(s)
	d.tenancy == "multi"
	d.isolation.external_kv != "namespaced"
	finding := {
		"msg": sprintf("%s keeps prefixes in an external tier whose keys are token hashes with no tenant namespace: tenants of deployment %s (and of any deployment sharing the store) read each other's cached prefixes, whatever cache_salt says%s", [
			tier.what,
			d.name,
			lib.tenancy_note(d),
		]),
		"server": s.index,
		"arg": tier.arg,
		"severity": lib.tenancy_severity(d, "high", "medium"),
	}
}

# tiers(s) are the external KV tiers a server uses, each with what to say
# and the flag to point at.
# may_have_tier holds for the servers tiers can find something in.
may_have_tier(s) if s.args["--enable-lmcache"]

may_have_tier(s) if s.args["--hicache-storage-backend"]

may_have_tier(s) if s.engine == "vllm"

tiers(s) := {t |
	some t in array.concat(lmcache_tiers(s), array.concat(hicache_tiers(s), vllm_tiers(s)))
}

lmcache_tiers(s) := [t |
	s.engine == "sglang"
	lib.flag_true(s.args, "--enable-lmcache")
	t := {"what": "--enable-lmcache (SGLang's LMCache path drops cache_salt, sglang#37160)", "arg": "--enable-lmcache"}
]

# hicache_tiers: an L3 storage backend is used with the hierarchical cache,
# or by a decode server that offloads its KV (server_args.py requires
# --hicache-storage-backend for --disaggregation-decode-enable-offload-kvcache).
hicache_tiers(s) := [t |
	s.engine == "sglang"
	backend := s.args["--hicache-storage-backend"]
	backend.known
	uses_l3(s.args)
	t := {
		"what": sprintf("HiCache storage backend %s (its L3 keys hash tokens only)", [backend.value]),
		"arg": "--hicache-storage-backend",
	}
]

uses_l3(args) if lib.flag_true(args, "--enable-hierarchical-cache")

uses_l3(args) if lib.flag_true(args, "--disaggregation-decode-enable-offload-kvcache")

# vllm_tiers: the connectors of --kv-transfer-config that store KV outside
# the engine. The flags parser spreads the JSON over dotted names
# (--kv-transfer-config.kv_connector), so the connector is looked for in
# every key of the flag, and the finding points at the most specific one.
# A Mooncake store with a cache_prefix is namespaced by it.
vllm_tiers(s) := [t |
	s.engine == "vllm"
	some connector in ["LMCacheConnector", "MooncakeStoreConnector"]
	keys := sort([name |
		some name, v in s.args
		startswith(name, "--kv-transfer-config")
		v.known
		contains(v.value, connector)
	])
	count(keys) > 0
	not namespaced_store(s.args, connector)
	t := {"what": sprintf("%s (vLLM --kv-transfer-config)", [connector]), "arg": connector_key(keys)}
]

connector_key(keys) := "--kv-transfer-config.kv_connector" if {
	"--kv-transfer-config.kv_connector" in keys
} else := keys[0]

namespaced_store(args, "MooncakeStoreConnector") if {
	some name, v in args
	startswith(name, "--kv-transfer-config")
	contains(v.value, "cache_prefix")
}
