package runtime

import "slices"

// Fault names a fault model. Each one is a real failure class, switched on explicitly; a
// healthy runtime has none. A fault only changes behaviour on the path it names, so a
// configuration that never reaches that path shows no effect even with the fault on.
type Fault string

const (
	// FaultStalePages: pages are freed or reassigned under memory pressure while a
	// request's page table still points at them — the class of the public incident (a PD
	// deployment whose pool was smaller than its context window leaked responses across
	// tenants). Two pressure paths misbehave:
	//   - decode retraction frees the retracted request's pages without offloading its KV
	//     and keeps its page table; on resume it reads whatever now lives there (healthy:
	//     disaggregation/decode.py offloads to host and reloads, resume_retracted_reqs);
	//   - a prefill abort for an over-long input still signals the transfer as done, so the
	//     decode generates from pre-allocated pages nobody wrote (sglang#30233).
	FaultStalePages Fault = "stale-pages"
	// FaultCancelRace: a request cancelled while its KV transfer is in flight releases its
	// decode slot and pages at once; the late transfer then lands in pages and on a slot
	// that now belong to another request, which takes it for its own. This is the
	// redis-py class behind the ChatGPT incident of 20 March 2023 (leakage.md §3): a
	// response popped by the next user of a pooled connection.
	FaultCancelRace Fault = "cancel-race"
	// FaultSaltDropped: the isolation key (cache_salt / extra_key) never reaches the
	// prefix cache, so every tenant shares one namespace — sglang#23300's class ("Cache
	// salt isn't working because the extra keys didn't get passed to scheduler").
	FaultSaltDropped Fault = "salt-dropped"
)

// FaultReference returns the public reference a fault is named after.
func FaultReference(f Fault) string {
	switch f {
	case FaultStalePages:
		return "KV pool smaller than the context window in a PD multi-tenant deployment (the incident); https://github.com/sgl-project/sglang/issues/30233"
	case FaultCancelRace:
		return "https://openai.com/index/march-20-chatgpt-outage/ (redis-py asyncio cancellation, redis-py#2624)"
	case FaultSaltDropped:
		return "https://github.com/sgl-project/sglang/pull/23300"
	}
	return ""
}

func faultNames() []string {
	return []string{string(FaultStalePages), string(FaultCancelRace), string(FaultSaltDropped)}
}

func (f Fault) known() bool { return slices.Contains(faultNames(), string(f)) }

// faultSet is the switched-on faults, looked up on the hot path.
type faultSet struct {
	stalePages, cancelRace, saltDropped bool
}

func newFaultSet(fs []Fault) faultSet {
	return faultSet{
		stalePages:  slices.Contains(fs, FaultStalePages),
		cancelRace:  slices.Contains(fs, FaultCancelRace),
		saltDropped: slices.Contains(fs, FaultSaltDropped),
	}
}
