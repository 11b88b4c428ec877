package verify

import (
	"fmt"
	"slices"

	"github.com/kvlint/kvlint/deploy"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// EnginePath is a known bug of SGLang releases that the runtime can reach: the engine
// code that has it, and the releases that have it. Every boundary was read in the
// sgl-project/sglang history as mirrored by modal-projects/sglang (main at 8905cbd42,
// 2026-07-20); a release's commit is the first on main whose python/sglang/version.py
// names it (engine/data/sglang_server_history.tsv). After 0.5.6.post2 the version comes
// from git tags the mirror lacks, so a boundary there is marked inferred.
type EnginePath struct {
	Mechanism rt.Mechanism `json:"mechanism"`
	// Path is the engine file and function, at the commit named.
	Path string `json:"path"`
	// Reference is the issue or pull request that describes it.
	Reference string `json:"reference"`
	// Introduced is the first release with it ("" every release that has the feature);
	// Fixed the first without it ("" none known). Commits beside them.
	Introduced       string `json:"introduced,omitempty"`
	IntroducedCommit string `json:"introduced_commit,omitempty"`
	Fixed            string `json:"fixed,omitempty"`
	FixedCommit      string `json:"fixed_commit,omitempty"`
	// FixedInferred: the fix's commit is known but the first release carrying it is not
	// established from the source.
	FixedInferred bool `json:"fixed_inferred,omitempty"`
}

// lastDatedRelease is the newest release whose commit the mirror dates.
const lastDatedRelease = "0.5.6.post2"

// enginePaths is the table. Order is the report's.
var enginePaths = []EnginePath{
	{
		// scheduler.py handle_generate_request: validate_input_length fails →
		// req.set_finish_with_abort(error_msg); self._add_request_to_queue(req), which in PD
		// prefill mode adds it to disagg_prefill_bootstrap_queue (read at 0.4.9 ec5f9c626,
		// 0.5.3 a4a3d8239, 0.5.6.post2 5c8bd8b51 and main 8905cbd42). The queueing of
		// aborted requests came with 20fd53b8f (#6803, 2025-06-01), first in 0.4.7. The
		// fixes proposed (#30325, #34208) are open: no release is known to be without it.
		Mechanism:        rt.MechAbortStillTransfers,
		Path:             "python/sglang/srt/managers/scheduler.py Scheduler.handle_generate_request → _add_request_to_queue (sglang@8905cbd42)",
		Reference:        "https://github.com/sgl-project/sglang/issues/30233 (PR #34208: decode \"may even return results that belong to other requests\")",
		Introduced:       "0.4.7",
		IntroducedCommit: "20fd53b8f",
	},
	{
		// disaggregation/decode.py DecodeTransferQueue.pop_transferred: on KVPoll.Failed the
		// pre-allocated pages are released at once (tree_cache.cache_finished_req at 0.5.3
		// a4a3d8239; release_kv_cache at 0.5.6.post2 5c8bd8b51 and main 8905cbd42). PR
		// #35049 (merged 2026-08-17, after the mirror) defers the release; its thread says
		// behind a flag that is off by default, which was not read at source.
		Mechanism: rt.MechReleaseInFlight,
		Path:      "python/sglang/srt/disaggregation/decode.py DecodeTransferQueue.pop_transferred → release_kv_cache (sglang@8905cbd42)",
		Reference: "https://github.com/sgl-project/sglang/pull/35049",
	},
	{
		// disaggregation/decode.py _commit_transfer_to_req compares the metadata buffer's
		// bootstrap_room with the request's and aborts on a mismatch since 8ed35df20 (#17430,
		// 2026-02-02), not an ancestor of 0.5.6.post2; the first release with it is not
		// established from the source.
		Mechanism:     rt.MechUncheckedRoom,
		Path:          "python/sglang/srt/disaggregation/decode.py DecodeTransferQueue._commit_transfer_to_req (sglang@8ed35df20)",
		Reference:     "https://github.com/sgl-project/sglang/pull/17430",
		FixedCommit:   "8ed35df20",
		FixedInferred: true,
	},
	{
		// managers/scheduler.py handle_generate_request built Req without
		// extra_key=recv_req.extra_key from cache_salt's introduction (71f24ef8f, #10718,
		// first in 0.5.3) until c396e4924 (#23300, 2026-04-21); before 0.5.3 there is no
		// cache_salt to honour. The first release with the fix is taken from
		// examples/incident-fixed (0.5.13), not from the source.
		Mechanism:     rt.MechSaltDropped,
		Path:          "python/sglang/srt/managers/scheduler.py Scheduler.handle_generate_request (Req without extra_key, sglang@a4a3d8239)",
		Reference:     "https://github.com/sgl-project/sglang/pull/23300",
		Fixed:         "0.5.13",
		FixedCommit:   "c396e4924",
		FixedInferred: true,
	},
}

// EngineRelease is the release a deployment's runtime models and the engine paths it
// has.
type EngineRelease struct {
	// Version is the release the servers run ("" unknown); Judged the one modelled:
	// Version, or "main" (the mirror's) when it is unknown.
	Version string `json:"version"`
	Judged  string `json:"judged"`
	Source  string `json:"source"`
	// Paths are the engine paths of that release; Inferred names those whose presence
	// rests on an inferred release boundary.
	Paths    []EnginePath   `json:"paths"`
	Inferred []rt.Mechanism `json:"inferred"`
}

// Mechanisms are the runtime's names of the release's paths.
func (e EngineRelease) Mechanisms() []rt.Mechanism {
	out := []rt.Mechanism{}
	for _, p := range e.Paths {
		out = append(out, p.Mechanism)
	}
	return out
}

// Has reports whether the release has a path.
func (e EngineRelease) Has(m rt.Mechanism) bool { return slices.Contains(e.Mechanisms(), m) }

// releaseOf resolves the SGLang release a deployment runs: the servers' release as check
// judged it (image tag, pip pin, .kvlint.yaml). Servers that disagree are modelled at the
// oldest, whose paths are a superset for every path fixed once.
func releaseOf(dep deploy.Deployment) EngineRelease {
	er := EngineRelease{Paths: []EnginePath{}, Inferred: []rt.Mechanism{}}
	for _, s := range dep.Servers {
		if s.Engine != deploy.EngineSGLang || s.Release.Version == "" {
			continue
		}
		if er.Version == "" || deploy.CompareVersions(s.Release.Version, er.Version) < 0 {
			er.Version, er.Source = s.Release.Version, s.Release.Source
		}
	}
	er.Judged = er.Version
	if er.Version == "" || er.Version == "main" {
		er.Judged, er.Source = "main", "the release is not known: SGLang main as mirrored at 8905cbd42 is modelled"
	}
	for _, p := range enginePaths {
		has, inferred := p.at(er.Judged)
		if has {
			er.Paths = append(er.Paths, p)
		}
		if inferred {
			er.Inferred = append(er.Inferred, p.Mechanism)
		}
	}
	return er
}

// at reports whether a release has the path, and whether that rests on an inferred
// boundary.
func (p EnginePath) at(release string) (has, inferred bool) {
	if release == "main" {
		// main at the mirror's commit: a fix is there when its commit is.
		return p.FixedCommit == "", false
	}
	if p.Introduced != "" && deploy.CompareVersions(release, p.Introduced) < 0 {
		return false, false
	}
	newer := deploy.CompareVersions(release, lastDatedRelease) > 0
	switch {
	case p.Fixed != "":
		return deploy.CompareVersions(release, p.Fixed) < 0, newer && p.FixedInferred
	}
	// No fix in a dated release (fixed on main only, or not at all at the mirror's
	// commit): every dated release has the path, and a newer one is assumed to have
	// it too, and says so.
	return true, newer
}

// describe says which paths a release has, for the report.
func (e EngineRelease) describe() string {
	if len(e.Paths) == 0 {
		return fmt.Sprintf("SGLang %s: no known misdelivery path", e.Judged)
	}
	s := fmt.Sprintf("SGLang %s:", e.Judged)
	for i, p := range e.Paths {
		if i > 0 {
			s += ","
		}
		s += " " + string(p.Mechanism)
	}
	return s
}
