package runtime

import "slices"

// Mechanism names an engine code path that misdelivers under a condition the
// runtime can reach. A healthy runtime runs none. Which mechanisms a deployment runs is
// decided by the engine release it runs (verify's release table, each entry citing the
// engine source that has the path and the change that fixed it): they are part of a
// release's behaviour, not knobs. A mechanism only changes behaviour on the path it
// names, so a workload that never reaches the path shows no effect.
type Mechanism string

const (
	// MechAbortStillTransfers: the prefill scheduler aborts a prompt longer than its
	// max_req_input_len with set_finish_with_abort, which truncates the input to one
	// token, and still queues it for bootstrap and transfer
	// (managers/scheduler.py handle_generate_request → _add_request_to_queue); the decode
	// side, which validated the whole prompt and pre-allocated pages for it, generates
	// from pages nobody wrote (sglang#30233; PR #34208: decode "may even return results
	// that belong to other requests").
	MechAbortStillTransfers Mechanism = "abort-still-transfers"
	// MechReleaseInFlight: a decode request that ends while its KV transfer is in flight
	// releases its pages and metadata slot at once (disaggregation/decode.py
	// pop_transferred → release_kv_cache); the late write lands in pages that now belong
	// to another request (PR #35049 defers the release).
	MechReleaseInFlight Mechanism = "release-in-flight"
	// MechUncheckedRoom: the decode side takes whatever metadata lands in a request's
	// slot for its own, first token included. Since PR #17430 it compares the slot's
	// bootstrap_room with the request's and aborts on a mismatch
	// (disaggregation/decode.py _commit_transfer_to_req).
	MechUncheckedRoom Mechanism = "unchecked-bootstrap-room"
	// MechSaltDropped: the isolation key (cache_salt / extra_key) never reaches the
	// scheduler's Req, so the radix cache has one namespace (sglang#23300: the scheduler
	// built Req without extra_key).
	MechSaltDropped Mechanism = "salt-dropped"
)

func mechanismNames() []string {
	return []string{string(MechAbortStillTransfers), string(MechReleaseInFlight), string(MechUncheckedRoom), string(MechSaltDropped)}
}

func (m Mechanism) known() bool { return slices.Contains(mechanismNames(), string(m)) }

// Fault names a hypothesis: a mechanism nobody has shown in an engine, run on purpose to
// see what it would do. A run with a fault is never the engine's behaviour.
type Fault string

const (
	// FaultStalePages: decode retraction frees the retracted request's pages without
	// offloading its KV and keeps its page table; on resume it reads whatever now lives
	// there. This is how the incident's report described its eviction path; SGLang's PD
	// decode offloads to host and reloads instead (disaggregation/decode.py,
	// resume_retracted_reqs), so it is a hypothesis.
	FaultStalePages Fault = "stale-pages"
)

// FaultReference returns what a hypothesis is named after.
func FaultReference(f Fault) string {
	if f == FaultStalePages {
		return "the incident's report of its eviction path (not shown in SGLang, which offloads retracted requests' KV and reloads it)"
	}
	return ""
}

func faultNames() []string { return []string{string(FaultStalePages)} }

func (f Fault) known() bool { return slices.Contains(faultNames(), string(f)) }

// faultSet is the mechanisms and hypotheses switched on, looked up on the hot path.
type faultSet struct {
	stalePages, abortTransfers, releaseInFlight, uncheckedRoom, saltDropped bool
}

func newFaultSet(fs []Fault, ms []Mechanism) faultSet {
	return faultSet{
		stalePages:      slices.Contains(fs, FaultStalePages),
		abortTransfers:  slices.Contains(ms, MechAbortStillTransfers),
		releaseInFlight: slices.Contains(ms, MechReleaseInFlight),
		uncheckedRoom:   slices.Contains(ms, MechUncheckedRoom),
		saltDropped:     slices.Contains(ms, MechSaltDropped),
	}
}
