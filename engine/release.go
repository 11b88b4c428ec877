package engine

import (
	"fmt"
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
			if !exact {
				// The release lies between two snapshots, one with the
				// flag and one without: which side it is on is not known,
				// so the finding stands, saying so.
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
			is.Message += "; " + on
		}
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
