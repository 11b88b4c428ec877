// Package verify confirms kvlint's findings with numbers. For each deployment with
// findings it builds a scaled-down scenario of the bundled runtime (verify/runtime) that
// keeps what matters — the pool-to-context ratio, the page size relative to the context, the
// concurrency, the numbers of prefill and decode workers, the prefix cache and its isolation
// key — drives the workloads of leakage.md §5.4 through it, and marks each finding
// confirmed, not confirmed or inconclusive by the rules of leakage.md §5.3, with the
// evidence.
//
// It does not simulate anything itself: every measurement comes from runtime.Run.
package verify
