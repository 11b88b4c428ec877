# Fixtures for the deployment rules' tests (loaded only by the Rego test run).
package kvlint.test

# pd_input(servers, overrides) is an input document whose servers form one
# disaggregated deployment (index 0), deep-merged with overrides. Prefill,
# decode and router lists follow the servers' roles; tenancy is multi and
# declared, with no isolation.
pd_input(servers, overrides) := {
	"settings": {"tenancy": "multi", "expected_concurrency": null},
	"servers": [object.union(s, {"index": i, "deployment": 0}) | some i, s in servers],
	"deployments": [object.union(
		{
			"index": 0,
			"name": "pd",
			"mode": "disaggregated",
			"complete": true,
			"tenancy": "multi",
			"tenancy_declared": true,
			"isolation": {"cache_salt": "none", "per_tenant_deployments": false, "external_kv": "shared"},
			"servers": [i | some i, _ in servers],
			"prefill": [i | some i, s in servers; s.role == "prefill"],
			"decode": [i | some i, s in servers; s.role == "decode"],
			"routers": [i | some i, s in servers; s.role == "router"],
			"links": [],
		},
		overrides,
	)],
}

# prefill(overrides) and decode(overrides) are the two sides of a PD pair:
# the base server with --disaggregation-mode set, deep-merged with overrides.
prefill(overrides) := object.union(
	server({"role": "prefill", "name": "prefill", "file": "prefill.yaml", "line": 20, "args": {"--disaggregation-mode": {"value": "prefill", "known": true, "typed": "prefill"}}}),
	overrides,
)

decode(overrides) := object.union(
	server({"role": "decode", "name": "decode", "file": "decode.yaml", "line": 20, "args": {"--disaggregation-mode": {"value": "decode", "known": true, "typed": "decode"}}}),
	overrides,
)

# router(overrides) is an SGLang router in PD mode.
router(overrides) := object.union(
	{
		"engine": "sglang-router",
		"role": "router",
		"name": "router",
		"file": "router.yaml",
		"line": 20,
		"args": {"--pd-disaggregation": {"value": "true", "known": true, "typed": true}},
		"opaque_args": false,
		"opaque": [],
		"model": null,
		"gpu": null,
		"image": null,
		"mla": null,
		"flag_issues": [],
		"capacity": unknown_capacity,
	},
	overrides,
)

# colocated_input(servers, overrides) puts each server in its own colocated
# deployment, with overrides merged into every deployment.
colocated_input(servers, overrides) := {
	"settings": {"tenancy": "multi", "expected_concurrency": null},
	"servers": [object.union(s, {"index": i, "deployment": i}) | some i, s in servers],
	"deployments": [object.union(
		{
			"index": i,
			"name": sprintf("d%d", [i]),
			"mode": "colocated",
			"complete": true,
			"tenancy": "multi",
			"tenancy_declared": true,
			"isolation": {"cache_salt": "none", "per_tenant_deployments": false, "external_kv": "shared"},
			"servers": [i],
			"prefill": [],
			"decode": [],
			"routers": [],
			"links": [],
		},
		overrides,
	) |
		some i, _ in servers
	],
}
