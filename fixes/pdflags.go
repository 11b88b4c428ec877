package fixes

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// KV209 (pd_flag_hazards.rego) reports two things, told apart by what the
// finding points at: a removed --disaggregation-* flag (a flag issue), and
// --disaggregation-decode-enable-radix-cache on a decode server shared by
// tenants (the flag's value).
func init() {
	register("KV209", pdFlagFixes)
}

const decodeRadix = "--disaggregation-decode-enable-radix-cache"

// fakeAuto was removed by sglang#18345 (modal-projects/sglang 1b3513a7e49f,
// python/sglang/srt/disaggregation/decode.py DecodePreallocQueue and
// DecodeTransferQueue): the decode side now takes a request without a
// bootstrap host as a fake transfer when
// --disaggregation-transfer-backend is fake, which is what the switch did.
const fakeAuto = "--disaggregation-decode-enable-fake-auto"

func pdFlagFixes(s *Subject) []diag.Fix {
	if s.Server == nil {
		return nil
	}
	if s.Finding.Arg == decodeRadix {
		if v, ok := s.Server.Args[decodeRadix]; ok && v.Span == s.Finding.Span {
			return dropDecodeRadix(s)
		}
	}
	// A removed flag: the removal or the replacement SGLang's change names
	// (the KV404 fix of the same issue). --disaggregation-decode-tp, -dp
	// and --disaggregation-prefill-pp were removed as unused
	// (modal-projects/sglang 0a6678bf3ad6, sglang#19618 "[PD] Remove
	// unused server args for disaggregation": server_args.py only checked
	// them and copied tp_size/dp_size/pp_size into them), so removing
	// them changes nothing the server does.
	out := flagFixes(s, []deploy.FlagIssueKind{deploy.FlagRemoved})
	if s.Finding.Arg == fakeAuto {
		if f := fakeBackend(s); f != nil {
			out = append([]diag.Fix{*f}, out...)
		}
	}
	return out
}

// fakeBackend writes --disaggregation-transfer-backend=fake over the
// removed switch on a decode server that names no transfer backend: the
// same behaviour on the releases after #18345.
func fakeBackend(s *Subject) *diag.Fix {
	if s.Server.Role != deploy.RoleDecode {
		return nil
	}
	if _, set := s.Server.Args["--disaggregation-transfer-backend"]; set {
		return nil // a backend of its own: switching it is no like-for-like edit
	}
	for k := range s.Server.FlagIssues {
		is := &s.Server.FlagIssues[k]
		if is.Kind == deploy.FlagRemoved && is.Written == fakeAuto && is.Span == s.Finding.Span && len(is.Words) == 1 {
			return s.rename(is, "--disaggregation-transfer-backend=fake",
				"write --disaggregation-transfer-backend=fake instead of "+fakeAuto+" (sglang#18345 made the decode side's fake transfer follow the backend)")
		}
	}
	return nil
}

// dropDecodeRadix deletes every occurrence of the decode radix cache
// switch: without it SGLang forces a chunk cache on the decode server,
// which shares no prefix (modal-projects/sglang@8905cbd42f4a,
// python/sglang/srt/arg_groups/pd_disaggregation_hook.py: "KV cache is
// forced as chunk cache for decode server").
func dropDecodeRadix(s *Subject) []diag.Fix {
	desc := "remove " + decodeRadix + " (the decode server then runs SGLang's chunk cache, which shares no prefix between requests)"
	var reps []diag.Replacement
	for _, o := range s.Server.Options {
		if o.Flag != decodeRadix {
			continue
		}
		f := s.remove(&deploy.FlagIssue{Words: []deploy.Value{o.Written}}, desc)
		if f == nil {
			continue
		}
		if f.Unwritable != "" {
			return []diag.Fix{*f}
		}
		reps = append(reps, f.Replacements...)
	}
	if len(reps) == 0 {
		v := s.Server.Args[decodeRadix]
		return []diag.Fix{{Description: desc, Unwritable: fmt.Sprintf("%s is not written on the command line (%s): remove it where it is set", decodeRadix, v.Span)}}
	}
	return []diag.Fix{{Description: desc, Replacements: reps}}
}
