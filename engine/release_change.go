package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// FlagReleaseChange marks what moving a server to another release
// (--engine-release) changes in the meaning of its launch without
// breaking it: a default the launch relies on changes, or a flag it sets
// takes another type or other choices.
const FlagReleaseChange deploy.FlagIssueKind = "release-change"

// defaultChange is a default the flag history cannot show because the
// engine sets it outside argparse (a config dataclass read through
// **kwargs): written here by hand, each with its source.
type defaultChange struct {
	engine   deploy.Engine
	flag     string
	release  string // the first release with the new default
	old, new string
	cite     string
}

// handDefaults are those defaults. The flag history
// (engine/data/*_history.tsv) holds every default an add_argument call
// states as a literal; these come from elsewhere.
var handDefaults = []defaultChange{{
	// vllm/config/cache.py CacheConfig.gpu_memory_utilization: 0.9 → 0.92 in
	// vllm-project/vllm 96a85c57 (#38284, 2026-04-21), which also counts
	// CUDA-graph memory inside the fraction; released in v0.21.0 as
	// capacity/vllm.go (vllmUtilizationRelease) dates it.
	engine: deploy.EngineVLLM, flag: "--gpu-memory-utilization", release: "0.21.0",
	old: "0.9", new: "0.92", cite: "vllm#38284, 96a85c57",
}}

// maxReleaseChanges bounds the changes reported for one server: a move
// across many releases of a long launch stays readable.
const maxReleaseChanges = 24

// releaseChanges appends, for a server --engine-release moved from the
// release it runs (From, known) to Version, what changes meaning on the
// way: for each flag the launch does not set, a default that differs
// between the two releases (the first old value against the last new one,
// so a default changed and changed back is no change); for each flag it
// sets, a type or the choices. from and to are the history's snapshots for
// the two releases; on says what the server is judged against.
func releaseChanges(s *deploy.Server, h *History, from, to int, on string) {
	r := s.Release
	if !r.Upgrade || r.From == "" {
		return
	}
	lo, hi := min(from, to), max(from, to)
	written := map[string]deploy.Value{}
	for _, o := range s.Options {
		written[o.Flag] = o.Written
		written[o.Written.Raw] = o.Written
	}
	// A flag the newest table lacks (removed, or unknown to it) is not an
	// option there, but the launch still sets it.
	for _, is := range s.FlagIssues {
		if _, ok := written[is.Written]; !ok && is.Written != "" {
			written[is.Written] = deploy.Value{Raw: is.Written, Known: true, Span: is.Span}
		}
	}
	opaque := len(s.Opaque) > 0
	var out []deploy.FlagIssue
	for _, flag := range h.flagNames() {
		if from == to {
			break // one snapshot stands for both releases: the history shows no change
		}
		w, set := written[flag]
		if !set && featureOff(flag, written) {
			continue
		}
		for _, kind := range []string{"default", "type", "choices"} {
			if (kind == "default") == set || (kind == "default" && opaque) {
				// A default matters to a launch that does not set the
				// flag (and may set it where kvlint cannot see, in
				// opaque words); a type or choices to one that does.
				continue
			}
			first, last, n := "", "", 0
			var at []string
			for _, ev := range h.Flags[flag] {
				if ev.Kind != kind || ev.Release <= lo || ev.Release > hi {
					continue
				}
				old, nw, ok := strings.Cut(ev.Detail, " -> ")
				if !ok {
					continue
				}
				if n == 0 {
					first = old
				}
				last, n = nw, n+1
				at = append(at, h.Label(ev.Release))
			}
			if n == 0 {
				continue
			}
			if to < from { // moving back: the change runs the other way
				first, last = last, first
			}
			if first == last {
				continue
			}
			if kind == "choices" && (choiceKept(s, flag, last) || widened(first, last)) {
				// The value written is still a choice: it is one, or
				// it was one of the release the launch runs and every
				// one of those stays.
				continue
			}
			span := s.Span
			if set {
				span = w.Span
			}
			out = append(out, deploy.FlagIssue{
				Kind: FlagReleaseChange, Flag: flag, Written: w.Raw, Span: span,
				Message: changeMessage(flag, kind, first, last, strings.Join(at, ", "), set, on),
			})
		}
	}
	for _, d := range handDefaults {
		if d.engine != s.Engine || opaque {
			continue
		}
		if _, set := written[d.flag]; set {
			continue
		}
		fromNew := deploy.CompareVersions(r.From, d.release) >= 0
		toNew := deploy.CompareVersions(r.Version, d.release) >= 0
		if fromNew == toNew {
			continue // both releases on one side of the change
		}
		old, nw := d.old, d.new
		if fromNew { // moving back past the change
			old, nw = nw, old
		}
		out = append(out, deploy.FlagIssue{
			Kind: FlagReleaseChange, Flag: d.flag, Span: s.Span,
			Message: changeMessage(d.flag, "default", old, nw, "v"+d.release+" ("+d.cite+")", false, on),
		})
	}
	if len(out) > maxReleaseChanges {
		out = out[:maxReleaseChanges]
	}
	s.FlagIssues = append(s.FlagIssues, out...)
}

// features are flag families that mean something only when the launch
// turns the feature on, with the flags that turn it on: a default of
// speculative decoding's knobs is no change to a launch without it.
var features = []struct{ family, on string }{
	{"--speculative-", "--speculative-"},
	{"--hicache-", "--enable-hierarchical-cache"},
	{"--lora-", "--lora-"},
	{"--lora-", "--enable-lora"},
	{"--disaggregation-", "--disaggregation-"},
}

// featureOff reports whether flag belongs to a feature the launch does not
// turn on.
func featureOff(flag string, written map[string]deploy.Value) bool {
	family := false
	for _, f := range features {
		if !strings.HasPrefix(flag, f.family) {
			continue
		}
		family = true
		for w := range written {
			if strings.HasPrefix(w, f.on) {
				return false
			}
		}
	}
	return family
}

// changeMessage says what changes: "the default of --page-size changes
// from 1 to None (in v0.4.9.post4 (2272c2a5)) on moving from …; this
// launch does not set it, so it runs with the new default: write
// --page-size 1 to keep today's behaviour".
func changeMessage(flag, kind, old, nw, at string, set bool, on string) string {
	what := map[string]string{"default": "the default", "type": "the type", "choices": "the choices"}[kind]
	verb := "changes"
	if kind == "choices" {
		verb = "change"
	}
	msg := fmt.Sprintf("%s of %s %s from %s to %s (in %s) %s", what, flag, verb, old, nw, at, on)
	if set {
		return msg + ": check that the value written here still means what it meant"
	}
	switch old {
	case "None", "''", "True", "False":
		// Nothing to write that keeps it: None is the engine deciding
		// at startup, and a boolean flag is written bare.
		return msg + "; this launch does not set it, so it runs with the new default"
	}
	return msg + fmt.Sprintf("; this launch does not set it, so it runs with the new default: write %s %s to keep today's behaviour", flag, strings.Trim(old, "'"))
}

// choiceKept reports whether the value the launch gives flag is one of
// choices, the history's "a|b|c".
func choiceKept(s *deploy.Server, flag, choices string) bool {
	v, ok := s.Args[flag]
	if !ok || !v.Known {
		return false
	}
	return slices.Contains(strings.Split(choices, "|"), v.Raw)
}

// widened reports whether the choices "a|b" are all among "a|b|c".
func widened(old, nw string) bool {
	have := strings.Split(nw, "|")
	for _, c := range strings.Split(old, "|") {
		if !slices.Contains(have, c) {
			return false
		}
	}
	return true
}

// flagNames is the history's flags in a stable order.
func (h *History) flagNames() []string {
	h.namesOnce.Do(func() {
		for f := range h.Flags {
			h.names = append(h.names, f)
		}
		slices.Sort(h.names)
	})
	return h.names
}
