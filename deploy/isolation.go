package deploy

// CacheSalt says who sets the per-tenant key (SGLang's and vLLM's cache_salt
// request field) that keeps tenants from sharing prefix-cache entries.
type CacheSalt string

const (
	// CacheSaltNone: requests carry no isolation key; every tenant shares
	// one prefix cache.
	CacheSaltNone CacheSalt = "none"
	// CacheSaltClient: clients set the salt themselves. It is an ordinary
	// body field, so a client can copy another tenant's salt: it does not
	// count as enforcement (vllm-project/vllm#53347).
	CacheSaltClient CacheSalt = "client"
	// CacheSaltGateway: a gateway in front of the deployment derives the salt
	// from the authenticated tenant and overwrites whatever the client sent.
	CacheSaltGateway CacheSalt = "gateway"
)

// ExternalKV says whether an external KV tier (HiCache storage, LMCache,
// Mooncake store) keeps tenants apart.
type ExternalKV string

const (
	// ExternalKVShared: the tier's keys are token hashes only, shared by
	// every tenant (the default: SGLang's L3 keys and LMCache's SGLang path
	// ignore cache_salt).
	ExternalKVShared ExternalKV = "shared"
	// ExternalKVNamespaced: each tenant has its own store, or the keys carry
	// a tenant namespace the user configured (e.g. Mooncake tenant_id).
	ExternalKVNamespaced ExternalKV = "namespaced"
)

// Isolation is how a deployment keeps tenants apart, as the user declared it
// (.kvlint.yaml): nothing in a launch command can show what a gateway does.
type Isolation struct {
	CacheSalt CacheSalt `json:"cache_salt"`
	// PerTenantDeployments: every tenant gets its own copy of the
	// deployment, so no server is shared (an external KV tier still may be).
	PerTenantDeployments bool       `json:"per_tenant_deployments"`
	ExternalKV           ExternalKV `json:"external_kv"`
}

// DefaultIsolation is what kvlint assumes when nothing is declared: no salt,
// servers shared, external tiers shared.
func DefaultIsolation() Isolation {
	return Isolation{CacheSalt: CacheSaltNone, ExternalKV: ExternalKVShared}
}

// Complete reports whether a disaggregated deployment has both a prefill and
// a decode server; a colocated deployment is always complete.
func (d *Deployment) Complete() bool {
	if d.Mode != ModeDisaggregated {
		return true
	}
	var prefill, decode bool
	for _, s := range d.Servers {
		prefill = prefill || s.Role == RolePrefill
		decode = decode || s.Role == RoleDecode
	}
	return prefill && decode
}
