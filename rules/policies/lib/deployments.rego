# kvlint deployment helpers (package kvlint.lib, beside kvlint.rego, which
# carries the package's METADATA): for the rules that judge a deployment
# rather than one server — prefill/decode pairs of a disaggregated
# deployment, whether tenants share a deployment and how it isolates them,
# and which servers keep a prefix cache. input.deployments is described in
# rules/INPUT.md.
package kvlint.lib

# deployment_of(s) is the deployment a server belongs to (undefined in an
# input without deployments, so every rule that needs one stays quiet).
deployment_of(s) := input.deployments[s.deployment]

# pd_pairs lists [prefill index, decode index] for every prefill and decode
# server of one disaggregated deployment (indexes, not servers: cheap to
# build, and the rules look the servers up).
pd_pairs := [[p, q] |
	some d in input.deployments
	d.mode == "disaggregated"
	some p in d.prefill
	some q in d.decode
]

# sglang_pd_pairs are the pairs whose both sides are SGLang servers: the
# handshake and bootstrap checks are SGLang's.
sglang_pd_pairs := [pair |
	some pair in pd_pairs
	input.servers[pair[0]].engine == "sglang"
	input.servers[pair[1]].engine == "sglang"
]

# shares_tenants(d): requests of tenants that must not see each other reach
# the same servers (tenancy multi, kvlint's default, and not one deployment
# per tenant).
shares_tenants(d) if {
	d.tenancy == "multi"
	not d.isolation.per_tenant_deployments
}

# salt_enforced(d): a gateway derives cache_salt from the authenticated
# tenant. A salt the client chooses is not enforcement: anyone can send
# another tenant's salt (vllm-project/vllm#53347).
salt_enforced(d) if d.isolation.cache_salt == "gateway"

# tenancy_severity(d, declared, assumed) is the severity of a finding that
# exists only because tenants share d: as given when the user declared the
# tenancy, one step lower when kvlint assumed it.
tenancy_severity(d, declared, _) := declared if d.tenancy_declared

tenancy_severity(d, _, assumed) := assumed if not d.tenancy_declared

# tenancy_note(d) tells the user the tenancy was assumed and how to say it.
tenancy_note(d) := "" if {
	d.tenancy_declared
} else := " (kvlint assumes tenants share this deployment: declare tenancy and isolation in .kvlint.yaml)"

# flag_true(args, flag): a boolean flag is on (the engine typed it true:
# given, not in its --no- form).
flag_true(args, flag) if args[flag].typed == true

# prefix_cache(s): the server keeps a prefix cache shared by every request
# it serves.
#   SGLang: the radix cache is on unless --disable-radix-cache; a decode
#   server runs a chunk cache unless --disaggregation-decode-enable-radix-cache
#   (arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation).
#   vLLM: automatic prefix caching is on by default in V1 unless
#   --no-enable-prefix-caching (--enable-prefix-caching false).
prefix_cache(s) if {
	s.engine == "sglang"
	s.role in {"colocated", "prefill"}
	not flag_true(s.args, "--disable-radix-cache")
}

prefix_cache(s) if {
	s.engine == "sglang"
	s.role == "decode"
	flag_true(s.args, "--disaggregation-decode-enable-radix-cache")
}

prefix_cache(s) if {
	s.engine == "vllm"
	not vllm_prefix_caching_off(s.args)
}

vllm_prefix_caching_off(args) if args["--enable-prefix-caching"].typed == false

vllm_prefix_caching_off(args) if flag_true(args, "--no-enable-prefix-caching")

# where(s) names a server in a message: its name and, unless the name is
# already its position (scripts, Dockerfiles), where it is launched.
where(s) := s.name if {
	s.name == sprintf("%s:%d", [s.file, s.line])
} else := sprintf("%s (%s:%d)", [s.name, s.file, s.line])

# arg_value(args, flag, fallback) is a flag's value as written, or fallback
# when the flag is absent; undefined when it is a placeholder.
arg_value(args, flag, _) := args[flag].value if {
	args[flag].known
}

arg_value(args, flag, fallback) := fallback if {
	not args[flag]
}

# arg_typed(args, flag, fallback) is a flag's typed value (the number or
# name the engine parsed), or fallback when the flag is absent; undefined
# when it is a placeholder or a value the engine rejected.
arg_typed(args, flag, _) := args[flag].typed if {
	args[flag].typed != null
}

arg_typed(args, flag, fallback) := fallback if {
	not args[flag]
}

# incident_raise(s) is {"severity": "critical"} for a server of a
# disaggregated deployment declared multi-tenant — the combination of the
# incident kvlint was written after: a pool smaller than the context in a PD
# deployment that tenants share — and {} otherwise. KV101 and KV102 merge it
# into their findings.
incident_raise(s) := {"severity": "critical"} if {
	incident_shape(s)
} else := {}

# incident_note(s) says why the severity was raised.
incident_note(s) := sprintf("; critical because deployment %s is disaggregated and declared multi-tenant: every tenant's long requests meet this pool", [deployment_of(s).name]) if {
	incident_shape(s)
} else := ""

incident_shape(s) if {
	d := deployment_of(s)
	d.mode == "disaggregated"
	shares_tenants(d)
	d.tenancy_declared
}
