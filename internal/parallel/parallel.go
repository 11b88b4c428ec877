// Package parallel runs independent pieces of a run on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n) on up to GOMAXPROCS goroutines and
// returns when every call has returned. Each call should write only what
// belongs to its i (results[i]), so results come out in index order
// whichever call finishes first. The pieces are handed out one at a time,
// so a slow one (a large chart) does not hold back a fixed share of the
// rest.
func For(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
