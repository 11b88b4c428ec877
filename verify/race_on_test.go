//go:build race

package verify

// raceEnabled: under the race detector the runtime is ten times slower, and its
// simulations are single-threaded; the tests that only measure scenarios skip, and the
// ones that run verify's goroutines stay.
const raceEnabled = true
