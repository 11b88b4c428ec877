// Package memlimit keeps a run's resident memory close to what it needs.
//
// Go's collector lets the heap grow to twice the data it found live at the
// last collection, and gives freed pages back to the operating system
// slowly. On a large repository kvlint's live data grows while it parses
// and peaks while the rules run (the data allocated during a collection
// counts as live until the next), and the resident set ends up well above
// twice what is really live: 340 MiB at 50,000 files for about 90 MiB of
// data. A soft memory limit makes the runtime return freed pages and
// collect a little sooner as it nears the limit. Fixed, such a limit would
// make the collector run almost without pause on a repository whose data
// outgrows it; so the limit follows the live heap, twice it (the
// collector's own goal), and never goes below a floor.
package memlimit

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// floor is the lowest limit. The runtime's limit counts its own memory
	// (heap, stacks, metadata), not the ~45 MiB of kvlint's binary that the
	// resident set also holds: 240 MiB keeps a run whose live data is under
	// 120 MiB below 300 MiB resident.
	floor = 240 << 20
	// headroom is the limit as a multiple of the live heap: the collector's
	// default goal (GOGC=100), so the limit is never the tighter of the two
	// for long.
	headroom = 2
	// every is how often the live heap is read.
	every = 10 * time.Millisecond
)

const liveHeap = "/gc/heap/live:bytes"

// limitFor is the limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	if live > math.MaxInt64/headroom {
		return math.MaxInt64
	}
	return max(floor, int64(live)*headroom)
}

// Follow sets a soft memory limit that follows the live heap until the
// returned stop is called, which puts back the limit in force before. It
// does nothing when the user set GOMEMLIMIT: their limit wins.
func Follow() (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	before := debug.SetMemoryLimit(-1)
	sample := []metrics.Sample{{Name: liveHeap}}
	set := int64(0)
	follow := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		// Only a change of more than 1/16 is worth a call.
		if limit := limitFor(sample[0].Value.Uint64()); set == 0 || limit > set+set/16 || limit < set-set/16 {
			debug.SetMemoryLimit(limit)
			set = limit
		}
	}
	follow()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				follow()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		debug.SetMemoryLimit(before)
	}
}
