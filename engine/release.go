package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// FlagRemovedLater marks a flag the release the server runs accepts but a
// later release removed: nothing breaks today, the next image bump does.
const FlagRemovedLater deploy.FlagIssueKind = "removed-later"

// JudgeRelease re-judges a server's flags against the release in
// s.Release (set by the caller from the image, a pip pin, .kvlint.yaml or
// --engine-release; empty when unknown) using the engine's flag history:
//   - a flag the parser found removed (or unknown) that the release still
//     accepts becomes FlagRemovedLater, naming the release that removed it;
//   - a flag the release does not have yet (added later) becomes
//     FlagUnknown: argparse exits on that release;
//   - a flag the parser's table deprecates that the release does not
//     deprecate yet is no finding there (deprecatedAt);
//   - every other flag issue says what it was judged against.
//
// The parser's table is the newest snapshot (main), so with the release
// unknown nothing changes but the wording, which says so.
func JudgeRelease(s *deploy.Server) {
	h := HistoryOf(s.Engine)
	if h == nil {
		return
	}
	r := &s.Release
	r.Engine = s.Engine
	i, exact, ok := h.At(r.Version)
	if !ok {
		i = 0 // before the first release read: the oldest snapshot is the nearest
	}
	r.Judged, r.JudgedCommit = h.Releases[i].Version, h.Releases[i].Commit
	on := OnRelease(s, h, i, exact, ok)
	table := Lookup(programOf(s.Engine))
	var dropped []int // deprecated issues the release does not deprecate yet
	for k := range s.FlagIssues {
		is := &s.FlagIssues[k]
		switch is.Kind {
		case deploy.FlagRemoved, deploy.FlagUnknown, deploy.FlagAmbiguous, deploy.FlagAbbreviated:
			exists, known := h.Exists(is.Written, i)
			if (is.Kind == deploy.FlagAmbiguous || is.Kind == deploy.FlagAbbreviated) && !known && exact && i != h.Newest() {
				// A prefix that was never an option itself (a removed flag
				// that now reads as a prefix keeps its finding) is matched
				// against the options of the release that parses it, not
				// against today's.
				prefixAt(is, h, i, on)
				continue
			}
			if is.Kind == deploy.FlagAmbiguous || is.Kind == deploy.FlagAbbreviated {
				// A prefix of newer flags today; an exact option (which
				// argparse takes before any prefix) at a release that has it.
				if !(known && exists && exact && i != h.Newest()) {
					if is.Kind == deploy.FlagAmbiguous {
						is.Message += "; " + on
					}
					continue
				}
			}
			if !known && is.Kind == deploy.FlagUnknown {
				continue // no release ever had it: a misspelling, whatever the release
			}
			if !known || !exists || i == h.Newest() {
				is.Message += "; " + on
				continue
			}
			ev, removed := h.Next(is.Written, "removed", i)
			if !removed {
				// The history has it on every later release while the
				// parser's table does not: no release to name.
				is.Message += "; " + on
				continue
			}
			if !exact && ev.Release == i+1 {
				// The release lies between two snapshots, one with the
				// flag and one without: which side it is on is not known,
				// so the finding stands, saying so. (When the next
				// snapshot still has the flag, so does every release
				// before it: removed later, as for a release read itself.)
				is.Message += fmt.Sprintf("; %s: %s accepts it and %s does not, so whether v%s still has it is not known here",
					on, h.Label(i), h.Label(ev.Release), r.Version)
				continue
			}
			where := h.In(ev.Release)
			if table != nil {
				if rm, ok := table.removed[is.Written]; ok {
					if h.Releases[ev.Release].Version == "main" {
						where = fmt.Sprintf("%s (%s)", where, rm.Removed)
					} else {
						// The release is where the history first reads the
						// flag gone; the removed table (a walk of main's
						// history) adds the commit that dropped it on main.
						where = fmt.Sprintf("%s; main dropped it at %s", where, rm.Removed)
					}
				}
			}
			is.Kind = FlagRemovedLater
			is.Message = fmt.Sprintf("%s is accepted %s, but removed %s: this launch breaks when the image moves past it", is.Written, on, where)
		case deploy.FlagDeprecated:
			drop, note := deprecatedAt(is, h, r, i, exact)
			if drop {
				dropped = append(dropped, k)
				continue
			}
			is.Message += "; " + on + note
		}
	}
	if len(dropped) > 0 {
		kept := s.FlagIssues[:0]
		for k, is := range s.FlagIssues {
			if !slices.Contains(dropped, k) {
				kept = append(kept, is)
			}
		}
		s.FlagIssues = kept
	}
	if r.Upgrade && r.From != "" {
		if from, _, ok := h.At(r.From); ok {
			releaseChanges(s, h, from, i, on)
		}
	}
	if i == h.Newest() || !exact {
		// Only a release read itself says a flag is missing: between two
		// snapshots the flag may have come in before the release.
		return
	}
	for _, o := range s.Options {
		flag := o.Written.Raw
		exists, known := h.Exists(flag, i)
		if !known {
			flag = o.Flag
			exists, known = h.Exists(flag, i)
		}
		if !known || exists {
			continue
		}
		added := "in a later release"
		if ev, ok := h.Next(flag, "added", i); ok {
			added = h.In(ev.Release)
		}
		s.FlagIssues = append(s.FlagIssues, deploy.FlagIssue{
			Kind: deploy.FlagUnknown, Flag: o.Flag, Written: o.Written.Raw, Span: o.Written.Span,
			Message: fmt.Sprintf("%s does not exist %s: it was added %s, so argparse exits on that release (\"unrecognized arguments: %s\")",
				o.Written.Raw, on, added, o.Written.Raw),
		})
	}
}

// OnRelease says what a server is judged against: "on vLLM v0.6.3
// (image vllm/vllm-openai:v0.6.3)".
func OnRelease(s *deploy.Server, h *History, i int, exact, ok bool) string {
	r := s.Release
	name := engineTitle(s.Engine)
	src := r.Source
	if r.Upgrade {
		// "on moving from vLLM v0.6.3 (image vllm/vllm-openai:v0.6.3) to
		// v0.6.4 (--engine-release vllm=0.6.4; flags read at 02dbf30e)"
		from := "an unknown " + name + " release"
		if r.From != "" {
			from = name + " v" + r.From
		}
		if r.FromSource != "" {
			from += " (" + r.FromSource + ")"
		}
		switch {
		case exact:
			return fmt.Sprintf("on moving from %s to v%s (%s; flags read at %s)", from, r.Version, src, h.Releases[i].Commit[:8])
		case !ok:
			return fmt.Sprintf("on moving from %s to v%s (%s), judged against %s: the flag history starts there", from, r.Version, src, h.Label(i))
		}
		return fmt.Sprintf("on moving from %s to v%s (%s), judged against %s, the newest release before it that the flag history reads", from, r.Version, src, h.Label(i))
	}
	switch {
	case r.Version == "" && r.Floating:
		return fmt.Sprintf("judged on %s %s, the newest kvlint knows (%s floats)", name, h.Label(i), src)
	case r.Version == "":
		return fmt.Sprintf("judged on %s %s, the newest kvlint knows: the release this server runs is unknown", name, h.Label(i))
	case exact:
		return fmt.Sprintf("on %s v%s (%s; flags read at %s)", name, r.Version, src, h.Releases[i].Commit[:8])
	case !ok:
		return fmt.Sprintf("on %s v%s (%s), judged against %s: the flag history starts there", name, r.Version, src, h.Label(i))
	}
	return fmt.Sprintf("on %s v%s (%s), judged against %s, the newest release before it that the flag history reads", name, r.Version, src, h.Label(i))
}

func engineTitle(e deploy.Engine) string {
	switch e {
	case deploy.EngineVLLM:
		return "vLLM"
	case deploy.EngineSGLang:
		return "SGLang"
	}
	return string(e)
}

func programOf(e deploy.Engine) Program {
	if e == deploy.EngineVLLM {
		return VLLMServer
	}
	return SGLangServer
}

// prefixAt judges a prefix the way argparse parses it at release index i
// (CPython Lib/argparse.py _parse_optional → _get_option_tuples; allow_abbrev
// is ArgumentParser's default, as SGLang's prepare_server_args builds it:
// modal-projects/sglang@a4a3d823 python/sglang/srt/server_args.py): a prefix of one option there is an
// abbreviation of that option, of several an ambiguity that exits, of none
// an unknown option that exits.
func prefixAt(is *deploy.FlagIssue, h *History, i int, on string) {
	cands := h.PrefixedAt(is.Written, i)
	switch len(cands) {
	case 0:
		is.Kind, is.Flag, is.Suggestion = deploy.FlagUnknown, is.Written, ""
		is.Message = fmt.Sprintf("unrecognized argument %s: no option starts with it %s, so argparse exits", is.Written, on)
	case 1:
		is.Kind, is.Flag, is.Suggestion = deploy.FlagAbbreviated, cands[0], cands[0]
		why := "a release that adds another option starting with it would make it ambiguous"
		for j := i + 1; j < len(h.Releases); j++ {
			if c := h.PrefixedAt(is.Written, j); len(c) > 1 {
				why = fmt.Sprintf("from %s it could match %s, and argparse exits", h.Label(j), strings.Join(c, ", "))
				break
			}
		}
		is.Message = fmt.Sprintf("%s is an abbreviation argparse expands to %s %s; write the full name: %s", is.Written, cands[0], on, why)
	default:
		is.Kind, is.Suggestion = deploy.FlagAmbiguous, ""
		is.Message = fmt.Sprintf("ambiguous option: %s could match %s %s; argparse exits", is.Written, strings.Join(cands, ", "), on)
	}
}

// deprecatedAt judges a deprecation the parser found in the newest table
// against release index i, and returns a note to add after what the issue
// was judged against. It reports drop when the history records the
// flag's deprecation after i: on that release the flag is the option
// itself, no alias, and argparse warns of nothing (lmsysorg/sglang:v0.5.3 stores --cuda-graph-max-bs into its own
// cuda_graph_max_bs; main made it a DeprecatedAliasStoreAction of
// --cuda-graph-max-bs-decode in modal-projects/sglang@2495c02c, #23906,
// after 0.5.6.post2). Moving the image past the deprecation still works,
// with a warning: judged there (--engine-release), the finding comes back
// and names the release that deprecated the flag.
//
// A deprecation the history does not record (vLLM's positional --model,
// found outside the flag table) stands as the parser found it.
func deprecatedAt(is *deploy.FlagIssue, h *History, r *deploy.Release, i int, exact bool) (drop bool, note string) {
	flag := is.Flag
	if _, ok := h.Flags[flag]; !ok {
		flag = is.Written
	}
	dep, recorded := h.DeprecatedAt(flag, i)
	if !recorded {
		return false, ""
	}
	if dep {
		if r.Upgrade && r.From != "" {
			// Moved by --engine-release from a release that did not
			// deprecate it yet: name the release that did.
			if from, _, ok := h.At(r.From); ok && from < i {
				if was, _ := h.DeprecatedAt(flag, from); !was {
					if ev, ok := h.Next(flag, "deprecated", from); ok && ev.Release <= i {
						note = fmt.Sprintf(": deprecated %s, after v%s that this launch runs now", h.In(ev.Release), r.From)
					}
				}
			}
		}
		return false, note
	}
	if i == h.Newest() {
		return false, "" // the newest snapshot disagrees with the table: keep the table's word
	}
	ev, later := h.Next(flag, "deprecated", i)
	if !later {
		// The history has it undeprecated from i on while the newest
		// table deprecates it: nothing to say which release did.
		return false, ""
	}
	if !exact && ev.Release == i+1 {
		// The release lies between a snapshot that does not deprecate
		// the flag and the next, which does: which side it is on is not
		// known, so the finding stands, saying so.
		return false, fmt.Sprintf(": %s does not deprecate it and %s does, so whether v%s does is not known here",
			h.Label(i), h.Label(ev.Release), r.Version)
	}
	// Read at that release, or between two snapshots that both leave the
	// flag undeprecated.
	return true, ""
}

// DeprecatedAt reports whether flag is deprecated at release index i, and
// whether the history records any deprecation of it at all.
func (h *History) DeprecatedAt(flag string, i int) (deprecated, recorded bool) {
	for _, e := range h.Flags[flag] {
		switch e.Kind {
		case "deprecated":
			recorded = true
			if e.Release <= i {
				deprecated = true
			}
		case "undeprecated":
			if e.Release <= i {
				deprecated = false
			}
		}
	}
	return deprecated, recorded
}
