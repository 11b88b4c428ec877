package fixes

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
)

// pinnedRelease is the index in the engine's flag history of the release
// the server is known to run, read itself (not a snapshot between two
// releases, not main); ok is false otherwise.
func pinnedRelease(s *deploy.Server) (h *engine.History, i int, ok bool) {
	h = engine.HistoryOf(s.Engine)
	if h == nil || s.Release.Version == "" {
		return nil, 0, false
	}
	i, exact, found := h.At(s.Release.Version)
	if !found || !exact || i == h.Newest() {
		return nil, 0, false
	}
	return h, i, true
}

// newer fixes a flag the pinned release does not have yet
// (engine.JudgeRelease: "does not exist on … it was added in …"): the
// option string the release accepts for the same setting when the engine
// names one, else the removal, which lets the release start without the
// setting. The description says which.
func (s *Subject) newer(t *engine.Table, is *deploy.FlagIssue) *diag.Fix {
	to, ok := t.Flag(is.Flag)
	if !ok || to.Removed != "" {
		return nil
	}
	h, i, ok := pinnedRelease(s.Server)
	if !ok {
		return nil
	}
	if exists, known := h.Exists(is.Written, i); !known || exists {
		return nil
	}
	rel := "v" + s.Server.Release.Version
	for _, c := range equivalents(t, to, is.Written) {
		if exists, _ := h.Exists(c, i); exists {
			return s.rename(is, c, fmt.Sprintf("write %s instead of %s: %s accepts it, and %s names it as the same setting", c, is.Written, rel, program(s.Server)))
		}
	}
	words, why := s.occurrence(to, is)
	desc := fmt.Sprintf("remove %s: %s has no equivalent of it, so it starts with its own default instead", strings.TrimSpace(is.Written+" "+wordsAfter(words)), rel)
	if why != "" {
		return &diag.Fix{Description: desc, Unwritable: why}
	}
	return s.remove(&deploy.FlagIssue{Words: words}, desc)
}

// equivalents are option strings that set what to sets, as the engine's
// own table says: its aliases, the deprecated aliases that store into it
// (SGLang's DeprecatedAliasStoreAction, e.g. --cuda-graph-max-bs, which
// stores into cuda_graph_max_bs_decode: modal-projects/sglang@8905cbd42f4a
// python/sglang/srt/server_args.py ServerArgs.add_cli_args), and removed
// flags whose removal names it. Each takes the same values.
func equivalents(t *engine.Table, to *engine.Flag, written string) []string {
	var out []string
	for _, o := range to.OptionStrings() {
		if o != written {
			out = append(out, o)
		}
	}
	same := func(f *engine.Flag) bool {
		return f.Type == to.Type && f.Nargs == to.Nargs
	}
	for _, f := range t.Flags() {
		if f.Deprecated == to.Name && f.Action == "DeprecatedAliasStoreAction" && same(f) {
			out = append(out, f.Name)
		}
	}
	for _, f := range t.RemovedFlags() {
		if f.Instead == to.Name && same(f) {
			out = append(out, f.Name)
		}
	}
	return out
}

// occurrence is the words of the option the issue points at: the option
// alone when it carries its value ("--x=v") or takes none, else the option
// and its one value, when the flag is given once (the value in force is
// then that occurrence's).
func (s *Subject) occurrence(to *engine.Flag, is *deploy.FlagIssue) ([]deploy.Value, string) {
	var opt *deploy.Value
	n := 0
	for k := range s.Server.Options {
		o := &s.Server.Options[k]
		if o.Flag != is.Flag {
			continue
		}
		n++
		if o.Written.Span == is.Span {
			opt = &o.Written
		}
	}
	if opt == nil {
		return nil, fmt.Sprintf("%s at %s is not an option kvlint can place: remove it by hand", is.Written, is.Span)
	}
	if strings.Contains(opt.Raw, "=") || !to.TakesValue() {
		return []deploy.Value{*opt}, ""
	}
	key := to.Key
	if key == "" {
		key = to.Name
	}
	v, ok := s.Server.Args[key]
	if n != 1 || !ok || to.IsList() || v.Span.IsZero() || v.Span.File != opt.Span.File || !after(v.Span, opt.Span) {
		return nil, fmt.Sprintf("the value of %s at %s is not one word kvlint can place: remove the option and its value by hand", is.Written, is.Span)
	}
	return []deploy.Value{*opt, v}, ""
}

func wordsAfter(ws []deploy.Value) string {
	if len(ws) < 2 {
		return ""
	}
	return words(ws[1:])
}

// inRange replaces a number outside the range the engine checks
// (engine/data/*_ranges.tsv, each row citing the check) with the nearest
// number inside it: the bound itself when it is inclusive, the next
// integer inside an exclusive bound of an int flag. A float flag with an
// exclusive bound has no nearest value and gets no fix. An int flag given
// an integral decimal ("2.0", which argparse's int() refuses) gets the
// integer.
func (s *Subject) inRange(t *engine.Table, is *deploy.FlagIssue) *diag.Fix {
	f, ok := t.Flag(is.Flag)
	if !ok {
		return nil
	}
	v := issueValue(is)
	if v == nil || !v.Known {
		return nil
	}
	raw := strings.TrimSpace(v.Raw)
	isInt := f.Type == "int"
	if !isInt && f.Type != "float" {
		return nil
	}
	x, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	if _, err := strconv.ParseInt(raw, 10, 64); isInt && err != nil {
		// argparse's int() refuses a decimal; an integral one has an
		// obvious integer.
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil
		}
		n := strconv.FormatInt(int64(x), 10)
		if f.InRange(float64(int64(x))) {
			return s.replace(*v, v.Raw, n, fmt.Sprintf("write %s instead of %s: %s takes an integer", n, raw, is.Flag))
		}
		x = math.Trunc(x)
	}
	var want float64
	switch {
	case f.Min != nil && (x < *f.Min || f.MinOpen && x == *f.Min):
		switch {
		case !f.MinOpen:
			want = *f.Min
		case isInt:
			want = math.Floor(*f.Min) + 1
		default:
			return nil // (0, 1] holds no nearest float above 0
		}
		if isInt {
			want = math.Ceil(want)
		}
	case f.Max != nil && (x > *f.Max || f.MaxOpen && x == *f.Max):
		switch {
		case !f.MaxOpen:
			want = *f.Max
		case isInt:
			want = math.Ceil(*f.Max) - 1
		default:
			return nil
		}
		if isInt {
			want = math.Floor(want)
		}
	default:
		return nil
	}
	if !f.InRange(want) {
		return nil
	}
	text := strconv.FormatFloat(want, 'f', -1, 64)
	return s.replace(*v, v.Raw, text, fmt.Sprintf("write %s, the nearest value %s accepts for %s (%s), instead of %s", text, program(s.Server), is.Flag, f.RangeSource, raw))
}

// issueValue is the value an invalid-value issue is about: the word at its
// span, else the one value of a two-word occurrence (a value a template
// printed is spanned at its values leaf, the issue at the template).
func issueValue(is *deploy.FlagIssue) *deploy.Value {
	for k := range is.Words {
		if c := &is.Words[k]; c.Span == is.Span {
			return c
		}
	}
	if len(is.Words) == 2 && !strings.Contains(is.Words[0].Raw, "=") {
		return &is.Words[1]
	}
	return nil
}
