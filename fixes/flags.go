package fixes

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/edit"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// The KV4xx rules report flag issues (rules/policies/flags); each finding
// points at one issue's span, and its fix is computed from that issue and
// the engine's flag table.
func init() {
	for rule, kinds := range flagRules {
		register(rule, func(s *Subject) []diag.Fix { return flagFixes(s, kinds) })
	}
}

// flagRules are the issue kinds each flag rule reports.
var flagRules = map[string][]deploy.FlagIssueKind{
	"KV401": {deploy.FlagUnknown},
	"KV402": {deploy.FlagAbbreviated, deploy.FlagAmbiguous},
	"KV403": {deploy.FlagDuplicate},
	"KV404": {deploy.FlagDeprecated, deploy.FlagRemoved, engine.FlagRemovedLater},
	"KV405": {deploy.FlagInvalidValue, deploy.FlagMissingValue},
}

// flagName is an option string with nothing after it: a replacement
// written as "--x=v", "--x v" or "--x-{a,b}" is more than a rename.
var flagName = regexp.MustCompile(`^--[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// flagFixes finds the issue the finding reports and computes its fix.
func flagFixes(s *Subject, kinds []deploy.FlagIssueKind) []diag.Fix {
	if s.Server == nil {
		return nil
	}
	var is *deploy.FlagIssue
	for k := range s.Server.FlagIssues {
		c := &s.Server.FlagIssues[k]
		if c.Span == s.Finding.Span && c.Flag == s.Finding.Arg && slices.Contains(kinds, c.Kind) {
			is = c
			break
		}
	}
	if is == nil {
		return nil
	}
	t := tableOf(s.Server.Engine)
	if t == nil {
		return nil
	}
	var fix *diag.Fix
	switch is.Kind {
	case deploy.FlagUnknown:
		// The closest option by edit distance, as argparse's own
		// suggestion would be (engine/suggest.go), when its arity fits
		// the words the unknown option was given.
		if is.Suggestion != "" && onlyClosest(t, is.Written, is.Suggestion) {
			if to, ok := t.Flag(is.Suggestion); ok && to.Removed == "" && arityFits(to, is) {
				fix = s.rename(is, is.Suggestion, fmt.Sprintf("write %s, the closest flag of %s, instead of %s", is.Suggestion, program(s.Server), is.Written))
			}
		}
		if fix == nil && is.Suggestion == "" {
			// A flag today's table has that the pinned release does not
			// have yet (engine.JudgeRelease).
			fix = s.newer(t, is)
		}
	case deploy.FlagAbbreviated:
		// argparse expanded the prefix to this flag; writing its full name
		// keeps the meaning. A removed flag that now reads as the prefix
		// of another is no abbreviation to complete.
		if from, ok := t.Flag(is.Written); ok && from.Removed != "" {
			break
		}
		fix = s.rename(is, is.Flag, fmt.Sprintf("write the full name %s instead of %s", is.Flag, is.Written))
	case deploy.FlagAmbiguous:
		// A prefix of several options on the release that parses it
		// (engine.JudgeRelease re-judges it there; one option there makes
		// it an abbreviation): nothing says which one was meant.
	case deploy.FlagDuplicate:
		// argparse stores each occurrence in turn, so the last one wins
		// (CPython Lib/argparse.py _StoreAction.__call__ setattr); the
		// earlier one, which this issue points at, has no effect.
		fix = s.remove(is, fmt.Sprintf("remove the earlier %s: argparse keeps only the last", words(is.Words)))
	case deploy.FlagDeprecated:
		fix = s.deprecated(t, is)
	case deploy.FlagRemoved, engine.FlagRemovedLater:
		fix = s.removed(t, is)
	case deploy.FlagInvalidValue:
		fix = s.choice(t, is)
		if fix == nil {
			fix = s.inRange(t, is)
		}
	}
	if fix == nil {
		return nil
	}
	return []diag.Fix{*fix}
}

// onlyClosest reports whether no other flag is as close to written as
// suggestion is (by engine.EditDistance, the distance argparse-style
// suggestions use, transpositions counting one, over every option
// string): between
// two equally close flags a fix would be a guess.
func onlyClosest(t *engine.Table, written, suggestion string) bool {
	to, ok := t.Flag(suggestion)
	if !ok {
		return false
	}
	name := strings.TrimLeft(written, "-")
	best := 1 << 30
	for _, o := range to.OptionStrings() {
		best = min(best, engine.EditDistance(name, strings.TrimLeft(o, "-")))
	}
	for _, f := range t.Flags() {
		if f.Name == to.Name || f.Action == "help" {
			continue
		}
		for _, o := range f.OptionStrings() {
			if engine.EditDistance(name, strings.TrimLeft(o, "-")) <= best {
				return false
			}
		}
	}
	return true
}

// tableOf is the flag table of the program an engine's servers run.
func tableOf(e deploy.Engine) *engine.Table {
	switch e {
	case deploy.EngineSGLang:
		return engine.Lookup(engine.SGLangServer)
	case deploy.EngineVLLM:
		return engine.Lookup(engine.VLLMServer)
	case deploy.EngineSGLangRouter:
		return engine.Lookup(engine.SGLangRouter)
	}
	return nil
}

func program(s *deploy.Server) string {
	switch s.Engine {
	case deploy.EngineVLLM:
		return "vLLM"
	case deploy.EngineSGLangRouter:
		return "the SGLang router"
	}
	return "SGLang"
}

// arityFits reports whether flag to takes the values the issue's option
// was given: a store_true flag takes none, a store flag one (or a list).
func arityFits(to *engine.Flag, is *deploy.FlagIssue) bool {
	if len(is.Words) == 0 {
		return false
	}
	values := len(is.Words) - 1
	if strings.Contains(is.Words[0].Raw, "=") {
		values++ // --x=v: the value is in the option's word
	}
	switch to.Nargs {
	case "0":
		return values == 0
	case "", "1":
		return values == 1
	case "?":
		return values <= 1
	case "+":
		return values >= 1
	case "*":
		return true
	}
	return false
}

// availableOn reports whether the server's release accepts flag: a
// replacement the release does not have yet would stop the server as
// surely as the flag it replaces.
func availableOn(s *deploy.Server, flag string) bool {
	h := engine.HistoryOf(s.Engine)
	if h == nil {
		return true
	}
	i, _, ok := h.At(s.Release.Version)
	if !ok {
		return false // older than any release the history reads
	}
	exists, known := h.Exists(flag, i)
	return exists || !known
}

// deprecated replaces a deprecated flag with the one SGLang or vLLM names
// (engine/data/*.tsv "deprecated", read from the engine's add_cli_args),
// and deletes one that has no effect any more.
func (s *Subject) deprecated(t *engine.Table, is *deploy.FlagIssue) *diag.Fix {
	from, ok := t.Flag(is.Flag)
	if !ok {
		return nil
	}
	instead := from.Deprecated
	if instead == "(no replacement)" {
		// DeprecatedAction only prints a warning and sets nothing
		// (modal-projects/sglang@8905cbd4, a mirror of sgl-project/sglang
		// main: python/sglang/srt/arg_groups/argparse_actions.py
		// DeprecatedAction.__call__): removing it changes nothing the
		// server does.
		if from.Action != "DeprecatedAction" {
			return nil
		}
		return s.remove(is, fmt.Sprintf("remove %s: it is deprecated and has no effect", words(is.Words)))
	}
	return s.replaceFlag(t, is, from, instead)
}

// removed replaces a removed flag with the replacement its removing
// change names (engine/data/*_removed.tsv "instead"), and deletes one
// that has none: the engine derives the setting itself or dropped it.
func (s *Subject) removed(t *engine.Table, is *deploy.FlagIssue) *diag.Fix {
	from, ok := t.Flag(is.Written)
	if !ok || from.Removed == "" {
		return nil
	}
	if from.Instead == "" {
		if is.Kind == engine.FlagRemovedLater {
			return nil // it still works on this release: deleting it changes the server
		}
		return s.remove(is, fmt.Sprintf("remove %s: %s removed it (%s) and names no replacement", words(is.Words), program(s.Server), from.Removed))
	}
	return s.replaceFlag(t, is, from, from.Instead)
}

// replaceFlag writes instead, a replacement as the engine's data spells
// it, over the option: a bare flag when it takes the values the option
// was given, or "--flag=value" (one word, so a YAML list item stays one
// argv word) for a switch that became a flag with a value.
func (s *Subject) replaceFlag(t *engine.Table, is *deploy.FlagIssue, from *engine.Flag, instead string) *diag.Fix {
	name, value, hasValue := strings.Cut(instead, "=")
	if !hasValue {
		name, value, hasValue = strings.Cut(instead, " ")
	}
	if !flagName.MatchString(name) || hasValue && !plainValue.MatchString(value) {
		return nil // "--x-{a,b}=v", "--x (same value as --y)": the user decides
	}
	to, ok := t.Flag(name)
	if !ok || to.Removed != "" || !availableOn(s.Server, name) {
		return nil
	}
	desc := fmt.Sprintf("write %s instead of %s", instead, is.Written)
	if !hasValue {
		if !arityFits(to, is) || to.Type != from.Type && from.Type != "" {
			return nil
		}
		return s.rename(is, name, desc)
	}
	// A switch becomes "--flag=value": only when the option took no value.
	if len(is.Words) != 1 || strings.Contains(is.Words[0].Raw, "=") || !to.TakesValue() {
		return nil
	}
	if len(to.Choices) > 0 && !slices.Contains(to.Choices, value) {
		return nil
	}
	return s.rename(is, name+"="+value, fmt.Sprintf("write %s=%s instead of %s", name, value, is.Written))
}

// plainValue is a value that needs no quoting in any syntax.
var plainValue = regexp.MustCompile(`^[A-Za-z0-9_.:/+-]+$`)

// choice replaces a value that is not among the flag's choices with the
// nearest one, when exactly one is near: a typo ("fa3" for "fa3", "Auto"
// for "auto"), not a guess among unrelated names.
func (s *Subject) choice(t *engine.Table, is *deploy.FlagIssue) *diag.Fix {
	f, ok := t.Flag(is.Flag)
	if !ok || len(f.Choices) == 0 {
		return nil
	}
	// The value the issue is about is one of its occurrence's words; an
	// overridden occurrence's value is in no field of the server.
	v := issueValue(is)
	if v == nil || !v.Known || slices.Contains(f.Choices, v.Raw) {
		return nil
	}
	best, bestDist, ties := "", 1<<30, 0
	for _, c := range f.Choices {
		d := engine.EditDistance(strings.ToLower(v.Raw), strings.ToLower(c))
		if strings.EqualFold(c, v.Raw) {
			d = 0
		}
		switch {
		case d < bestDist:
			best, bestDist, ties = c, d, 0
		case d == bestDist:
			ties++
		}
	}
	// One edit in a short name, two in a longer one: beyond that the
	// nearest choice is no typo of the value.
	budget := 1
	if len(v.Raw) > 6 {
		budget = 2
	}
	if ties > 0 || bestDist > budget || !plainValue.MatchString(best) {
		return nil
	}
	desc := fmt.Sprintf("write %s, the nearest choice of %s, instead of %s", best, is.Flag, v.Raw)
	return s.replace(*v, v.Raw, best, desc)
}

// rename writes text over the option string of the issue (its span).
func (s *Subject) rename(is *deploy.FlagIssue, text, desc string) *diag.Fix {
	// The option string is literal even where its value is not
	// ("--tp=$TP"); whether the span holds it as written is checked.
	w := deploy.Value{Raw: is.Written, Known: true, Span: is.Span}
	if len(is.Words) > 0 {
		w.Origin = is.Words[0].Origin
	}
	return s.replace(w, is.Written, text, desc)
}

// replace writes text over the literal old at v's span, or says why it
// cannot: the span does not hold old as written (a template expression,
// a variable, an escape), or the value was linked to its line by
// inference.
func (s *Subject) replace(v deploy.Value, old, text, desc string) *diag.Fix {
	fix := &diag.Fix{Description: desc}
	f, start, end, why := s.literal(v, old)
	if why != "" {
		fix.Unwritable = why
		return fix
	}
	lit, err := edit.Literal(f.Data[start:end], text)
	if err != nil {
		fix.Unwritable = fmt.Sprintf("%s at %s is quoted: %v", old, v.Span, err)
		return fix
	}
	// Keep the quotes outside the replaced bytes: the replacement is the
	// token's own text.
	if lit != text {
		start, end = start+1, end-1
	}
	fix.Replacements = []diag.Replacement{{Span: spanOf(f, v.Span.File, start, end), NewText: text}}
	return fix
}

// remove deletes the words of the issue's occurrence, with what the
// syntax around them needs gone too (edit.Deletion).
func (s *Subject) remove(is *deploy.FlagIssue, desc string) *diag.Fix {
	fix := &diag.Fix{Description: desc}
	if len(is.Words) == 0 {
		return nil
	}
	var f *source.File
	var ranges [][2]int
	for _, w := range is.Words {
		wf, start, end, why := s.literal(w, w.Raw)
		if why != "" {
			fix.Unwritable = why
			return fix
		}
		if f != nil && wf != f {
			fix.Unwritable = fmt.Sprintf("%s is written across files (%s, %s): remove it by hand", words(is.Words), f.Name, wf.Name)
			return fix
		}
		f = wf
		ranges = append(ranges, [2]int{start, end})
	}
	from, to, ok := edit.Deletion(f.Data, ranges)
	if !ok {
		fix.Unwritable = fmt.Sprintf("%s at %s is not laid out as words kvlint can delete: remove it by hand", words(is.Words), is.Words[0].Span)
		return fix
	}
	fix.Replacements = []diag.Replacement{{Span: spanOf(f, is.Words[0].Span.File, from, to), NewText: ""}}
	return fix
}

// literal finds v's text in the file that sets it and checks that it is
// old, bare or in quotes; why says otherwise.
func (s *Subject) literal(v deploy.Value, old string) (f *source.File, start, end int, why string) {
	switch {
	case !v.Known:
		return nil, 0, 0, fmt.Sprintf("%s at %s is computed (%s), not written as a literal: edit what sets it by hand", old, v.Span, v.Raw)
	case v.Origin.Inferred():
		return nil, 0, 0, fmt.Sprintf("%s at %s reaches the command line through a template that computes on it: edit it by hand", old, v.Span)
	case v.Span.IsZero():
		return nil, 0, 0, fmt.Sprintf("%s is written in no file kvlint read", old)
	}
	f = s.Files.File(v.Span.File)
	if f == nil {
		return nil, 0, 0, fmt.Sprintf("the text of %s is not at hand", v.Span.File)
	}
	start, end, err := edit.Offsets(f, v.Span)
	if err != nil {
		return nil, 0, 0, err.Error()
	}
	text := f.Data[start:end]
	if string(text) == old || len(text) == len(old)+2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] && bytes.Equal(text[1:len(text)-1], []byte(old)) {
		return f, start, end, ""
	}
	shown := string(text)
	if len(shown) > 60 {
		shown = shown[:57] + "..."
	}
	return nil, 0, 0, fmt.Sprintf("%s at %s is computed by %q, not written as a literal: edit what it reads by hand", old, v.Span, shown)
}

// spanOf is the span of bytes [start, end) of f, named as the finding
// names the file.
func spanOf(f *source.File, name string, start, end int) deploy.Span {
	return f.Index(edit.Breaks(f.Syntax)).Span(name, start, end)
}

// words is an occurrence as it would be typed: "--tp-size 2".
func words(ws []deploy.Value) string {
	raws := make([]string, len(ws))
	for i, w := range ws {
		raws[i] = w.Raw
	}
	return strings.Join(raws, " ")
}
