package runtime

import "math/rand/v2"

// routerBlock is the granularity, in tokens, of the router's approximate prefix tree.
const routerBlock = 32

// router pairs a prefill and a decode worker per request and hands out a random
// bootstrap room, as SGLang's mini_lb does (sglang_router mini_lb.py: it picks a pair and
// injects bootstrap_host, bootstrap_port and bootstrap_room = random 63-bit integer).
//
// Policies for the prefill side:
//   - round_robin;
//   - prefix_aware, a simplified form of sgl-model-gateway's cache_aware policy: the router
//     remembers which prefixes (in blocks of routerBlock tokens) it sent to each prefill
//     worker; a request whose longest remembered prefix covers at least cache_threshold of
//     it goes to that worker, any other to the least loaded one. The router's key includes
//     the isolation key only when hash_isolation_key is set (routers that drop the
//     namespace are a known seam, leakage.md §2.5: GIE #1646, llm-d #1389).
//
// Decode workers are always chosen round-robin.
type router struct {
	s       *sim
	cfg     RouterConfig
	rng     *rand.Rand
	rrP     int
	rrD     int
	seen    []map[uint64]bool
	pending []int
}

func newRouter(s *sim, cfg RouterConfig) *router {
	r := &router{s: s, cfg: cfg, rng: newRand(s.sc.Seed, "router")}
	r.seen = make([]map[uint64]bool, len(s.prefills))
	for i := range r.seen {
		r.seen[i] = map[uint64]bool{}
	}
	r.pending = make([]int, len(s.prefills))
	return r
}

func (rt *router) room() uint64 { return rt.rng.Uint64() >> 1 }

func (rt *router) pick(req *request) (*prefillWorker, *decodeWorker) {
	d := rt.s.decodes[rt.rrD%len(rt.s.decodes)]
	rt.rrD++
	var p *prefillWorker
	if rt.cfg.Policy == "prefix_aware" {
		p = rt.s.prefills[rt.prefixAware(req)]
	} else {
		p = rt.s.prefills[rt.rrP%len(rt.s.prefills)]
		rt.rrP++
	}
	rt.pending[p.idx]++
	req.hooks = append(req.hooks, func(*request) { rt.pending[p.idx]-- })
	return p, d
}

func (rt *router) blockHashes(req *request) []uint64 {
	var h uint64
	if rt.cfg.HashIsolationKey {
		ns := rt.s.prefills[0].namespace(req)
		for i := 0; i < len(ns); i++ {
			h = mix64(h ^ uint64(ns[i]))
		}
		h = mix64(h ^ uint64(len(ns)))
	}
	var out []uint64
	for i, t := range req.prompt {
		h = mix64(h ^ uint64(t))
		if (i+1)%routerBlock == 0 {
			out = append(out, h)
		}
	}
	return out
}

func (rt *router) prefixAware(req *request) int {
	hashes := rt.blockHashes(req)
	best, bestLen := -1, 0
	for w := range rt.seen {
		n := 0
		for n < len(hashes) && rt.seen[w][hashes[n]] {
			n++
		}
		if n > bestLen {
			best, bestLen = w, n
		}
	}
	choice := best
	if best < 0 || float64(bestLen*routerBlock) < rt.cfg.CacheThreshold*float64(len(req.prompt)) {
		choice = 0
		for w := range rt.pending {
			if rt.pending[w] < rt.pending[choice] {
				choice = w
			}
		}
	}
	for _, h := range hashes {
		rt.seen[choice][h] = true
	}
	return choice
}
