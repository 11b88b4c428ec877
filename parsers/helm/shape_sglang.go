package helm

import (
	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
)

// sglangLWSShape is SGLang's LeaderWorkerSet PD chart,
// sgl-project/sglang docs/references/multi_node_deployment/lws_pd_helm/
// sglang-leaderworkerset (read at 29539dd581f8961897c2dc5c202173b3ac98363c):
// values.yaml has global.{model.{path,contextLength,trustRemoteCode},
// rdma.ibDevice, distInit.port, image.{repository,tag}} and, per role,
// prefill|decode.{enabled, leaderWorkerSet.{size,replicas}, config.*,
// leader.resources}. templates/_helpers.tpl writes the leader's command in
// the defines "sglang-leaderworkerset.prefill.leader.command" and
// "sglang-leaderworkerset.decode.leader.command"; the tables below follow
// them flag for flag, in their order.
var sglangLWSShape = shape{
	name: "sglang-leaderworkerset",
	matches: func(root *yaml.Node) bool {
		for _, role := range []string{"prefill", "decode"} {
			cfg := node(root, role, "config")
			if !isMap(cfg) {
				continue
			}
			for _, k := range []string{"memFractionStatic", "tp", "tpSize", "dpSize", "pageSize", "disaggregationMode", "chunkedPrefillSize"} {
				if set(cfg, k) {
					return true
				}
			}
		}
		return false
	},
	servers: sglangLWSServers,
}

// lwsFlag is one flag a role's leader command writes from a values key.
type lwsFlag struct {
	flag string
	keys []string // under the role ("config", "pageSize") or, with global, under global
	cond bool     // {{ if KEY }}--flag{{ end }}
	glob bool
}

func cfgFlag(flag, key string) lwsFlag { return lwsFlag{flag: flag, keys: []string{"config", key}} }
func cfgCond(flag, key string) lwsFlag {
	return lwsFlag{flag: flag, keys: []string{"config", key}, cond: true}
}
func globFlag(flag string, keys ...string) lwsFlag {
	return lwsFlag{flag: flag, keys: keys, glob: true}
}

// The leader commands of _helpers.tpl, before the LWS-placed
// --dist-init-addr/--nnodes/--node-rank and the conditional
// --trust-remote-code (written by sglangLWSServers in the same places).
var sglangLWSFlags = map[string]struct{ before, after []lwsFlag }{
	"prefill": {
		before: []lwsFlag{
			cfgFlag("--port", "port"), cfgFlag("--host", "host"),
			globFlag("--model-path", "model", "path"), globFlag("--disaggregation-ib-device", "rdma", "ibDevice"),
			cfgFlag("--chunked-prefill-size", "chunkedPrefillSize"), cfgFlag("--max-prefill-tokens", "maxPrefillTokens"),
			cfgFlag("--page-size", "pageSize"), cfgFlag("--ep-dispatch-algorithm", "epDispatchAlgorithm"),
			cfgFlag("--eplb-algorithm", "eplbAlgorithm"), cfgCond("--enable-dp-lm-head", "enableDpLmHead"),
			cfgCond("--enable-dp-attention", "enableDpAttention"), cfgFlag("--dp-size", "dpSize"),
			cfgCond("--disable-radix-cache", "disableRadixCache"), cfgFlag("--moe-a2a-backend", "moeA2aBackend"),
			cfgFlag("--disaggregation-mode", "disaggregationMode"), cfgFlag("--mem-fraction-static", "memFractionStatic"),
			globFlag("--context-length", "model", "contextLength"), cfgFlag("--tp", "tp"),
		},
		after: []lwsFlag{
			cfgFlag("--ep-num-redundant-experts", "epNumRedundantExperts"), cfgFlag("--moe-dense-tp-size", "moeDenseTpSize"),
			cfgFlag("--max-running-requests", "maxRunningRequests"),
		},
	},
	"decode": {
		before: []lwsFlag{
			cfgFlag("--port", "port"), cfgFlag("--host", "host"),
			globFlag("--model-path", "model", "path"), cfgFlag("--chunked-prefill-size", "chunkedPrefillSize"),
			cfgFlag("--page-size", "pageSize"), cfgCond("--enable-dp-attention", "enableDpAttention"),
			cfgCond("--enable-dp-lm-head", "enableDpLmHead"), cfgFlag("--dp-size", "dpSize"),
			cfgFlag("--moe-a2a-backend", "moeA2aBackend"), cfgFlag("--disaggregation-mode", "disaggregationMode"),
			cfgFlag("--mem-fraction-static", "memFractionStatic"), globFlag("--context-length", "model", "contextLength"),
			globFlag("--disaggregation-ib-device", "rdma", "ibDevice"), cfgFlag("--cuda-graph-max-bs", "cudaGraphMaxBs"),
			cfgFlag("--max-running-requests", "maxRunningRequests"), cfgFlag("--tp-size", "tpSize"),
		},
		after: []lwsFlag{
			cfgFlag("--ep-num-redundant-experts", "epNumRedundantExperts"), cfgFlag("--moe-dense-tp-size", "moeDenseTpSize"),
		},
	},
}

func sglangLWSServers(v *valuesDoc) []*deploy.Server {
	var out []*deploy.Server
	for _, role := range []string{"prefill", "decode"} {
		sec := node(v.root, role)
		if !isMap(sec) {
			continue
		}
		if on, known := truth(sec, "enabled"); known && !on {
			continue // {{- if .Values.<role>.enabled }} around the whole LeaderWorkerSet
		}
		global := node(v.root, "global")
		a := &argv{v: v}
		a.lit(deploy.Span{}, "python3", "-m", "sglang.launch_server")
		add := func(f lwsFlag) {
			base, prefix := sec, ".Values."+role
			if f.glob {
				base, prefix = global, ".Values.global"
			}
			expr := prefix
			for _, k := range f.keys {
				expr += "." + k
			}
			if f.cond {
				a.cond(f.flag, base, expr, f.keys...)
			} else {
				a.flag(f.flag, base, expr, f.keys...)
			}
		}
		tbl := sglangLWSFlags[role]
		for _, f := range tbl.before {
			add(f)
		}
		// - --dist-init-addr $(LWS_LEADER_ADDRESS):{{ .Values.global.distInit.port }}
		// - --nnodes $(LWS_GROUP_SIZE) - --node-rank $(LWS_WORKER_INDEX); the
		// LWS controller sets the group size from leaderWorkerTemplate.size
		// and the leader's index to 0.
		a.words = append(a.words, deploy.Known("--dist-init-addr", deploy.Span{}),
			deploy.Unknown("$(LWS_LEADER_ADDRESS):{{ .Values.global.distInit.port }}", deploy.Span{}))
		size := v.value(sec, ".Values."+role+".leaderWorkerSet.size", "leaderWorkerSet", "size")
		a.words = append(a.words, deploy.Known("--nnodes", v.keySpan(sec, "leaderWorkerSet", "size")), size,
			deploy.Known("--node-rank", deploy.Span{}), deploy.Known("0", deploy.Span{}))
		add(lwsFlag{flag: "--trust-remote-code", keys: []string{"model", "trustRemoteCode"}, cond: true, glob: true})
		for _, f := range tbl.after {
			add(f)
		}
		name := role
		if p := v.value(global, "", "namePrefix"); p.Known {
			name = p.Raw + "-" + role
		}
		s := a.server(name+"/leader", v.sectionSpan(role))
		if s == nil {
			continue
		}
		if s.Role == "" || s.Role == deploy.RoleColocated {
			// The chart runs this LeaderWorkerSet as the role it is named
			// for; its default values.yaml sets disaggregationMode so.
			s.Role = deploy.Role(role)
		}
		s.Replicas = v.value(sec, "", "leaderWorkerSet", "replicas")
		if !s.Replicas.Known {
			s.Replicas = deploy.Value{}
		}
		if g := v.value(sec, "", "leader", "resources", "limits", "nvidia.com/gpu"); g.Known {
			s.GPUCount = g
		}
		out = append(out, s)
	}
	return out
}
