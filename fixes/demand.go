package fixes

import (
	"strconv"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// Demand is what one scheduler of a server must hold at once, counted as
// KV102 (rules/policies/capacity/pool_below_concurrency.rego) counts it: the
// context window times the full-context requests the scheduler runs
// together. The capacity fixes size pools for it and the HTML report draws
// it against the pool, so both read this one count.
type Demand struct {
	Context int64
	// Per is how many full-context requests one scheduler runs at once:
	// 1 when no concurrency is declared.
	Per int64
	// MaxRunning is set when --max-running-requests gives the requests
	// (Running, as written), shared by AttnDP attention-DP ranks under
	// --enable-dp-attention (1 otherwise).
	MaxRunning bool
	Running    int64
	AttnDP     int64
	// Expected is the declared expected_concurrency when it gives the
	// requests, shared by Schedulers (DP × replicas).
	Expected   int
	Schedulers int64
}

// Tokens is the demand in tokens.
func (d Demand) Tokens() int64 { return d.Context * d.Per }

// Declared reports whether a concurrency was declared at all.
func (d Demand) Declared() bool { return d.MaxRunning || d.Expected > 0 }

// ConcurrencyDemand is the demand of server s with estimate e, given the
// run's expected_concurrency (0: none declared); ok is false when the
// context length is unknown. An explicit --max-running-requests wins, each
// attention-DP rank getting a share (max_running_requests // attn_dp_size:
// modal-projects/sglang@04d07afc python/sglang/srt/mem_cache/
// kv_cache_configurator.py resolve_max_num_reqs); else expected_concurrency
// is shared over DP × replicas schedulers, rounded up.
func ConcurrencyDemand(s *deploy.Server, e *capacity.Estimate, expected int) (d Demand, ok bool) {
	if s == nil || e == nil || e.ContextLength == nil {
		return Demand{}, false
	}
	d = Demand{Context: *e.ContextLength, Per: 1, AttnDP: 1}
	dp := int64(max(e.DP, 1))
	if e.MaxRunningRequests != nil {
		d.MaxRunning, d.Running, d.Per = true, *e.MaxRunningRequests, *e.MaxRunningRequests
		if on, _ := s.Args["--enable-dp-attention"].Typed.Bool(); on && dp > 1 {
			d.AttnDP = dp
			d.Per = d.Running / dp
		}
		return d, true
	}
	if expected <= 0 {
		return d, true
	}
	replicas := int64(1)
	if n, ok := s.Replicas.Typed.Int(); ok && n > 0 {
		replicas = n
	} else if n, err := strconv.ParseInt(s.Replicas.Raw, 10, 64); err == nil && n > 0 && s.Replicas.Known {
		replicas = n
	}
	d.Expected, d.Schedulers = expected, dp*replicas
	d.Per = (int64(expected) + d.Schedulers - 1) / d.Schedulers
	return d, true
}
