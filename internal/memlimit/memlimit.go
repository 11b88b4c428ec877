// Package memlimit sets how the run's heap grows: up to a fixed budget
// before the first collections, and beyond it at twice the live data.
//
// With Go's default (GOGC=100) the collector runs whenever the heap reaches
// twice the data it found live: early in a run, with little live data, that
// is every few megabytes, and a 5,000-file check spent a third of its CPU
// collecting. kvlint instead switches the proportional trigger off and sets
// a soft memory limit, which makes the runtime collect (and give pages back
// to the system) as the heap nears it: a floor of 240 MiB while the live
// data is small, twice the live data once it is larger. Twice the live data
// is the default goal, so a repository whose data outgrows the floor is
// collected as often as it would be by default, never continuously; and
// the limit also caps what a large run keeps resident: 340 MiB at 50,000
// files with the default, about 280 MiB with this.
//
// The runtime behaviour this rests on is the soft memory limit's design
// (golang/go#48409, design/48409-soft-memory-limit.md): with GOGC=off the
// heap grows to the limit and is collected there, the runtime returns
// memory to the system more eagerly as it nears the limit, and it caps the
// collector's CPU share so a limit set too low cannot make it spin.
//
// The live heap is read every 10 ms and the limit moved when it changes by
// more than a sixteenth. A user who sets GOGC or GOMEMLIMIT keeps the
// runtime's own behaviour.
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
	// default goal (GOGC=100).
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

// Follow switches the proportional collector off and sets a soft memory
// limit that follows the live heap, until the returned stop is called,
// which puts both settings back. It does nothing when the user set GOGC or
// GOMEMLIMIT.
func Follow() (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limitBefore := debug.SetMemoryLimit(-1)
	sample := []metrics.Sample{{Name: liveHeap}}
	set := int64(0)
	follow := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if limit := limitFor(sample[0].Value.Uint64()); set == 0 || limit > set+set/16 || limit < set-set/16 {
			debug.SetMemoryLimit(limit)
			set = limit
		}
	}
	// The limit first: with the proportional trigger off and no limit,
	// nothing would ever collect.
	follow()
	percentBefore := debug.SetGCPercent(-1)
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
		debug.SetGCPercent(percentBefore)
		debug.SetMemoryLimit(limitBefore)
	}
}
