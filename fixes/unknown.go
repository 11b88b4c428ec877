package fixes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/diag"
)

// KV105 says a server's pool is unknown. When the GPU is the one input
// missing, no edit can size it: where the server runs is a fact of the
// cluster that no file in the tree states, and writing a GPU kvlint chose
// would plant the very capacity assumption kvlint exists to catch. What
// kvlint can compute is the answer for each GPU the server might run on:
// its fixes are what-ifs, the pool the same estimate gives on that GPU and
// whether the context window fits, each marked Unwritable so `kvlint fix`
// never applies one. The user declares the GPU that is true.
func init() {
	register("KV105", gpuWhatIfs)
}

// commonGPUs are the GPUs a what-if tries after those the run's own files
// name: the ones that deployment files name most, by a hand tally of
// `kvlint capacity --format json` (nothing declared) over 16 public
// deployment repositories on 2026-12-02 (OME, AIBrix, production-stack,
// GKE samples, KServe, llm-d, LWS and others): L4 for 22 servers, H100
// 80 GB for 9, A100 40 and 80 GB for 3 each (the 80 GB A100 is tried).
var commonGPUs = []string{"L4", "H100-80GB", "A100-80GB"}

// maxWhatIfs bounds the what-ifs one finding lists.
const maxWhatIfs = 4

func gpuWhatIfs(s *Subject) []diag.Fix {
	est := s.Estimate
	// Only the GPU missing: with the model or weights missing too, no
	// GPU sizes the server, and each what-if would recompute an estimate
	// to throw it away.
	if est == nil || s.Server == nil || len(est.Missing) != 1 || est.Missing[0] != "gpu" {
		return nil
	}
	names := whatIfGPUs(s)
	if s.Server.GPU.IsSet() {
		// The files name a GPU kvlint cannot pin down (a name of two
		// memory sizes, an affinity or a SkyPilot task that allows
		// several): the server runs on one of those, and a what-if on any
		// other GPU would mislead. The what-ifs are those candidates.
		names = est.GPUCandidates
	}
	var out []diag.Fix
	seen := map[string]bool{}
	for _, name := range names {
		e, ok := est.WithGPU(name)
		if !ok || seen[e.GPU] || e.GPU == "" {
			continue
		}
		seen[e.GPU] = true
		if f, ok := gpuWhatIf(name, e); ok {
			out = append(out, f)
		}
		if len(out) == maxWhatIfs {
			break
		}
	}
	return out
}

// whatIfGPUs are the GPUs to try, in order: those the other servers of the
// run are known to run on (a deployment's servers often share a pool of
// nodes), then commonGPUs.
func whatIfGPUs(s *Subject) []string {
	var names []string
	for i := range s.Estimates {
		if g := s.Estimates[i].GPU; g != "" && !slices.Contains(names, g) {
			names = append(names, g)
		}
	}
	return append(names, commonGPUs...)
}

// gpuWhatIf words one what-if: the pool on the GPU and whether one request
// of the context window fits it. ok is false when the estimate is still
// not sized on that GPU (another input is unknown too).
func gpuWhatIf(name string, e capacity.Estimate) (diag.Fix, bool) {
	f := diag.Fix{Unwritable: "a what-if: only you know the GPU it runs on", WhatIf: true}
	switch {
	case e.StartupError != "":
		// The rules judge a server that stops at startup by its error,
		// whatever pool it sized first (lib.wont_start).
		f.Description = fmt.Sprintf("on %s (gpu: %s) it would not start: %s", e.GPU, name, firstSentence(e.StartupError))
		return f, true
	case e.PoolTokens == nil:
		return diag.Fix{}, false
	}
	f.Result = poolResult(e)
	verdict := ""
	if e.ContextLength != nil && *e.ContextLength > 0 {
		ctx := *e.ContextLength
		if *e.PoolTokens < ctx {
			verdict = fmt.Sprintf(": the %s-token context window would not fit (KV101)", capacity.Thousands(ctx))
		} else {
			verdict = fmt.Sprintf(": the %s-token context window fits", capacity.Thousands(ctx))
		}
	}
	f.Description = fmt.Sprintf("on %s (gpu: %s)%s", e.GPU, name, verdict)
	return f, true
}

// firstSentence is s up to its first full stop followed by a space: the
// reason of an engine's error without the advice after it.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
