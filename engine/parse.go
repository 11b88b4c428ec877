package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// Parse reads a program's argv the way its argparse parser does and reports
// what argparse, or the engine right after it, would reject.
//
// Semantics (CPython Lib/argparse.py, 3.10-3.13; see classify for how a
// word becomes an option or an argument):
//   - "--f v" and "--f=v"; a store_true flag has Raw "true" and the span of
//     the flag; "--bool=x" is argparse's "ignored explicit argument" error;
//   - nargs '+'/'*'/N and action append take list values: Args holds the
//     items joined by single spaces, spanning first to last item, and Lists
//     holds each item;
//   - "-1" and "-.5" are values (the negative-number rule), "-1e3" is not;
//   - unique prefixes are expanded (FlagAbbreviated), several matches are
//     FlagAmbiguous;
//   - aliases and deprecated aliases are stored under the canonical name of
//     the field they write (--tensor-parallel-size → --tp-size,
//     --cuda-graph-max-bs → --cuda-graph-max-bs-decode);
//   - the last occurrence of a flag wins; each overridden occurrence gets a
//     FlagDuplicate (a --config value overridden on the command line is
//     intended and gets none);
//   - values are checked against the type, choices and cited ranges; an
//     unknown value (a placeholder) is never checked nor interpreted;
//   - a placeholder where an option could stand goes to Opaque;
//   - for sglang.launch_server, "--config FILE" is merged first, as
//     prepare_server_args does (see mergeConfig).
//
// Parse never fails: every problem is an Issue (about a flag) or an Error
// (input that could not be analysed, such as an unreadable --config file).
func (t *Table) Parse(argv []deploy.Value, read ReadFile) Result {
	return t.parse(argv, read, parseOptions{})
}

// parseOptions say how the program was started, where that changes parsing.
type parseOptions struct {
	// vllmAPIServer: python -m vllm.entrypoints.openai.api_server, whose
	// argv is not that of the `serve` subcommand (see prepareVLLM).
	vllmAPIServer bool
}

// MaxArgv bounds the words of one launch kvlint parses (and of one shell
// command the shell parser builds). A real launch has
// tens of words; a 16 MiB script line can hold millions, whose tokens,
// classified and kept, would cost gigabytes.
const MaxArgv = 1 << 16

func (t *Table) parse(argv []deploy.Value, read ReadFile, opt parseOptions) Result {
	if t == nil {
		return Result{Args: map[string]deploy.Value{}} // Lookup of a program kvlint does not know
	}
	if len(argv) > MaxArgv {
		// Parsing a prefix would invent a server: a later word could
		// override any flag of it. The launch is reported, not parsed.
		return Result{Args: map[string]deploy.Value{}, Errors: []*diag.Diagnostic{
			diag.Errorf(argv[MaxArgv].Span, "launch has more than %d words; not analysed", MaxArgv),
		}}
	}
	p := &parser{t: t, opt: opt, res: Result{
		Args:  map[string]deploy.Value{},
		Lists: map[string][][]deploy.Value{},
	}, seen: map[string]*occurrence{}}
	var fromConfig []bool
	argv, fromConfig = p.prepare(argv, read)
	toks := make([]token, len(argv))
	afterSep := false
	for i, w := range argv {
		if afterSep {
			toks[i] = token{word: w, kind: kindArg}
			if !w.Known {
				toks[i].kind = kindPlaceholder
			}
		} else {
			toks[i] = t.classify(w)
			afterSep = toks[i].kind == kindSeparator
		}
		toks[i].fromConfig = fromConfig[i]
		toks[i].dotted = p.dottedAt[i]
		if p.modelAt == i+1 && toks[i].kind == kindPlaceholder {
			toks[i].kind = kindArg // vllm serve $MODEL: the positional model
		}
	}
	p.consume(toks)
	if t.Program == VLLMServer {
		p.finishVLLM()
	}
	if len(p.res.Lists) == 0 {
		p.res.Lists = nil
	}
	return p.res
}

type parser struct {
	t    *Table
	opt  parseOptions
	res  Result
	seen map[string]*occurrence // dest → occurrence in force

	// vLLM's dotted JSON keys (--kv-transfer-config.kv_role x): the merged
	// arguments prepareVLLM appended, by argv index, and each flag's keys.
	dottedAt map[int]*dottedFlag
	dotted   []*dottedFlag
	// positionals counts the words taken by the program's positional
	// arguments (vLLM's model_tag).
	positionals int
	// modelAt is 1 + the argv index of a placeholder vllm serve takes as its
	// positional model (prepareVLLM), 0 for none.
	modelAt int
	// yamlMembers: for a JSON word made from a mapping in a vLLM config file
	// (by the word's span), each key's [key span, value span] in the file.
	yamlMembers map[deploy.Span]map[string][2]deploy.Span
}

// occurrence is one option and the words it consumed.
type occurrence struct {
	tok    token
	values []deploy.Value
	// openEnded is set when a placeholder stood where the list could have
	// continued: the list may hold more than its known items.
	openEnded bool
}

// prepare applies what runs before argparse: the --config merge of
// prepare_server_args for the server.
func (p *parser) prepare(argv []deploy.Value, read ReadFile) ([]deploy.Value, []bool) {
	if p.t.Program == VLLMServer {
		return p.prepareVLLM(argv, read)
	}
	fromConfig := make([]bool, len(argv))
	if p.t.Program != SGLangServer {
		return argv, fromConfig
	}
	merged, n, ok := p.mergeConfig(argv, read)
	if !ok {
		return argv, fromConfig
	}
	fromConfig = make([]bool, len(merged))
	for i := 0; i < n; i++ {
		fromConfig[i] = true
	}
	return merged, fromConfig
}

// consume is argparse's consume_optional loop for a parser without
// positional arguments: every argument an option does not take is an
// unrecognized argument.
func (p *parser) consume(toks []token) {
	for i := 0; i < len(toks); {
		tok := toks[i]
		switch tok.kind {
		case kindPlaceholder:
			p.res.Opaque = append(p.res.Opaque, tok.word)
			i++
		case kindArg, kindSeparator:
			p.positional(tok)
			i++
		default:
			i = p.option(toks, i)
		}
	}
}

func (p *parser) positional(tok token) {
	if tok.kind == kindArg {
		p.res.Positionals = append(p.res.Positionals, tok.word)
	}
	if tok.kind == kindArg && p.t.Program == VLLMServer && p.positionals == 0 {
		// make_arg_parser's one positional, model_tag (nargs '?').
		p.positionals++
		return
	}
	p.issue(deploy.FlagUnknown, tok.word.Raw, tok.word.Raw, tok.word.Span, "",
		p.unexpectedPositional(tok.word.Raw))
}

// option consumes the option at toks[i] and the arguments it takes, and
// returns the index after them.
func (p *parser) option(toks []token, i int) int {
	tok := toks[i]
	if tok.flag == nil {
		// Unknown or ambiguous: argparse exits; the arguments that follow
		// are reported with it ("unrecognized arguments: --foo 2").
		j := i + 1
		var trailing []deploy.Value
		for j < len(toks) && toks[j].kind == kindArg {
			trailing = append(trailing, toks[j].word)
			j++
		}
		if tok.cands != nil {
			p.ambiguous(tok)
		} else {
			p.unknown(tok, trailing)
		}
		return j
	}
	occ := &occurrence{tok: tok}
	p.res.Options = append(p.res.Options, deploy.WrittenOption{Flag: tok.flag.Name, Written: tok.written})
	next, missing := p.takeValues(toks, i, occ)
	if missing != "" {
		p.issue(deploy.FlagMissingValue, tok.flag.Name, tok.written.Raw, tok.written.Span, "",
			fmt.Sprintf("argument %s: %s", p.displayName(tok.flag), missing))
		p.notes(occ)
		return next
	}
	p.apply(occ)
	return next
}

// takeValues collects the arguments of an option per its nargs
// (argparse _get_nargs_pattern / _match_argument for optionals: an option
// never takes a word classified as an option, nor "--").
func (p *parser) takeValues(toks []token, i int, occ *occurrence) (next int, missing string) {
	f := occ.tok.flag
	if occ.tok.explicit != nil {
		if f.Nargs == "0" {
			return i + 1, ""
		}
		occ.values = []deploy.Value{*occ.tok.explicit}
		return i + 1, ""
	}
	j := i + 1
	available := func() bool { return j < len(toks) && (toks[j].kind == kindArg || toks[j].kind == kindPlaceholder) }
	switch f.Nargs {
	case "0":
		return j, ""
	case "", "?":
		if available() {
			occ.values = append(occ.values, toks[j].word)
			j++
		} else if f.Nargs == "" {
			return j, "expected one argument"
		}
		return j, ""
	}
	min := 0
	switch f.Nargs {
	case "+":
		min = 1
	case "*":
	default:
		n, err := strconv.Atoi(f.Nargs)
		if err != nil {
			n = 1
		}
		for k := 0; k < n; k++ {
			if !available() {
				return j, fmt.Sprintf("expected %d argument%s", n, plural(n))
			}
			occ.values = append(occ.values, toks[j].word)
			j++
		}
		return j, ""
	}
	// '+' and '*': a placeholder counts as an item only when one is still
	// required; after that it stands where an option could, so it goes to
	// Opaque, and the list may hold more than its known items.
	for available() {
		if toks[j].kind == kindPlaceholder && len(occ.values) >= min {
			occ.openEnded = true
			break
		}
		occ.values = append(occ.values, toks[j].word)
		j++
	}
	if len(occ.values) < min {
		return j, "expected at least one argument"
	}
	return j, ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// displayName is argparse's name for an action in messages: its option
// strings joined by '/'.
func (p *parser) displayName(f *Flag) string {
	return strings.Join(f.OptionStrings(), "/")
}

// apply stores an occurrence's value and reports what is wrong with it.
func (p *parser) apply(occ *occurrence) {
	f := occ.tok.flag
	p.notes(occ)
	val, ok := p.valueOf(occ)
	if !ok {
		return
	}
	key := f.Key
	if f.Action == "append" {
		prev, had := p.res.Args[key]
		p.res.Lists[key] = append(p.res.Lists[key], occ.values)
		// argparse appends each occurrence's value (a list for nargs
		// '+'/N) to the list of the ones before.
		typed := deploy.TypedList(val.Typed)
		if had {
			typed = appended(prev.Typed, val.Typed)
			val = deploy.Value{Raw: prev.Raw + " " + val.Raw, Known: prev.Known && val.Known, Span: joinSpans(prev.Span, val.Span), Origin: prev.Origin}
		}
		if val.Known {
			val.Typed = typed
		} else {
			val.Typed = deploy.Typed{}
		}
		p.res.Args[key] = val
		return
	}
	if prev, had := p.seen[f.Dest]; had {
		p.duplicate(prev, occ)
	}
	p.seen[f.Dest] = occ
	p.res.Args[key] = val
	if f.IsList() {
		p.res.Lists[key] = [][]deploy.Value{occ.values}
	} else {
		delete(p.res.Lists, key)
	}
}

// appended is an append action's list after one more occurrence's value;
// the list has no typed value when one of its items has none.
func appended(list, item deploy.Typed) deploy.Typed {
	items, ok := list.List()
	if !ok {
		return deploy.Typed{}
	}
	return deploy.TypedList(append(append([]deploy.Typed(nil), items...), item)...)
}

// valueOf computes the value an action stores, validating known values, and
// types it as argparse would store it (see typedValue).
func (p *parser) valueOf(occ *occurrence) (deploy.Value, bool) {
	tok, f := occ.tok, occ.tok.flag
	flagValue := func(raw string, typed deploy.Typed) deploy.Value {
		return deploy.Value{Raw: raw, Known: true, Typed: typed, Span: tok.written.Span, Origin: tok.word.Origin}
	}
	if f.Nargs == "0" {
		// "--flag=x" is reported; the action still stores its constant,
		// which is what the flag's value reads.
		if tok.explicit != nil {
			p.issue(deploy.FlagInvalidValue, f.Name, tok.written.Raw, tok.written.Span, "",
				fmt.Sprintf("argument %s: ignored explicit argument %s (a flag that takes no value cannot be written %s=…); argparse exits",
					p.displayName(f), pyQuote(tok.explicit.Raw), tok.written.Raw))
		}
		switch f.Action {
		case "DeprecatedStoreConstAction":
			// Writes a choice of another flag (--enable-breakable-cuda-graph
			// → --cuda-graph-backend-prefill breakable).
			return flagValue(f.Const, deploy.TypedString(f.Const)), true
		case "boolean_optional":
			if strings.HasPrefix(tok.opt, "--no-") && !strings.HasPrefix(f.Name, "--no-") {
				return flagValue("false", deploy.TypedBool(false)), true
			}
		}
		return flagValue("true", deploy.TypedBool(true)), true
	}
	if len(occ.values) == 0 {
		// nargs '?' without a value stores const (None when it has none);
		// '*' stores an empty list.
		typed := deploy.TypedNull()
		switch {
		case f.Nargs == "*":
			typed = deploy.TypedList()
		case f.Const != "":
			typed = deploy.TypedString(f.Const)
		}
		return flagValue(f.Const, typed), true
	}
	items := make([]deploy.Typed, len(occ.values))
	for i, v := range occ.values {
		if !v.Known {
			continue
		}
		typed, err := validate(f, v.Raw)
		if err != nil {
			p.issue(deploy.FlagInvalidValue, f.Name, tok.written.Raw, v.Span, "",
				fmt.Sprintf("argument %s: %s", p.displayName(f), err.Error()))
			p.words(occ.words())
		}
		items[i] = typed
	}
	if len(occ.values) == 1 && !f.IsList() && !occ.openEnded {
		v := occ.values[0]
		v.Typed = items[0]
		return v, true
	}
	raws := make([]string, len(occ.values))
	known := !occ.openEnded
	for i, v := range occ.values {
		raws[i] = v.Raw
		known = known && v.Known
	}
	first, last := occ.values[0], occ.values[len(occ.values)-1]
	val := deploy.Value{Raw: strings.Join(raws, " "), Known: known, Span: joinSpans(first.Span, last.Span), Origin: first.Origin}
	if known {
		val.Typed = deploy.TypedList(items...)
	}
	return val, true
}

// notes reports how the option was written: an abbreviation, a deprecated
// spelling, an ignored --config.
func (p *parser) notes(occ *occurrence) {
	tok, f := occ.tok, occ.tok.flag
	if tok.abbrev {
		msg := fmt.Sprintf("%s is an abbreviation argparse expands to %s; write the full name, because a new flag sharing the prefix would make it ambiguous", tok.written.Raw, tok.opt)
		if r, ok := p.t.removed[tok.written.Raw]; ok {
			msg = fmt.Sprintf("%s was removed from %s (%s); argparse now expands it, as an abbreviation, to %s, which is a different flag", tok.written.Raw, p.t.Program.engineName(), r.Removed, tok.opt)
		}
		p.issue(deploy.FlagAbbreviated, f.Name, tok.written.Raw, tok.written.Span, f.Name, msg)
	}
	if f.Deprecated != "" {
		msg := fmt.Sprintf("%s is deprecated: %s still accepts it with a warning", tok.opt, p.t.Program.engineName())
		if f.Deprecated != "(no replacement)" {
			msg += "; use " + f.Deprecated + " instead"
		} else if f.Action == "DeprecatedAction" {
			msg = fmt.Sprintf("%s is deprecated and has no effect", tok.opt)
		}
		p.issue(deploy.FlagDeprecated, f.Name, tok.written.Raw, tok.written.Span, p.t.flagNamed(f.Deprecated), msg)
		p.words(occ.words())
	}
	if f.Name == "--config" {
		p.ignoredConfig(tok)
	}
}

// flagNamed returns the canonical name of the flag a replacement text starts
// with ("--cuda-graph-backend-prefill=disabled" → "--cuda-graph-backend-prefill"),
// or "" when it names none.
func (t *Table) flagNamed(text string) string {
	name := text
	// "--cuda-graph-backend-{decode,prefill}=disabled" names two flags; the
	// first stands for both.
	if open := strings.IndexByte(name, '{'); open >= 0 {
		if end := strings.IndexByte(name[open:], '}'); end >= 0 {
			first, _, _ := strings.Cut(name[open+1:open+end], ",")
			name = name[:open] + first + name[open+end+1:]
		}
	}
	if i := strings.IndexAny(name, "= ("); i >= 0 {
		name = name[:i]
	}
	if f, ok := t.byOpt[name]; ok {
		return f.Name
	}
	return ""
}

func (p *parser) duplicate(prev, cur *occurrence) {
	if prev.tok.fromConfig != cur.tok.fromConfig {
		return // a command-line flag overriding the config file is the intended precedence
	}
	f := prev.tok.flag
	where := cur.tok.written.Span.String()
	if cur.tok.dotted != nil && prev.tok.dotted == nil {
		p.issue(deploy.FlagDuplicate, f.Key, prev.tok.written.Raw, prev.tok.written.Span, "",
			fmt.Sprintf("%s is also given as dotted keys (%s at %s): vLLM turns those into one more %s after every other argument, and the last one wins, so this value is discarded, not merged", prev.tok.written.Raw, cur.tok.dotted.firstWritten, where, cur.tok.dotted.flag))
		return
	}
	p.issue(deploy.FlagDuplicate, f.Key, prev.tok.written.Raw, prev.tok.written.Span, "",
		fmt.Sprintf("%s is given again as %s at %s; the last one wins, so this one has no effect", prev.tok.written.Raw, cur.tok.written.Raw, where))
	p.words(prev.words())
}

func (p *parser) ambiguous(tok token) {
	msg := fmt.Sprintf("ambiguous option: %s could match %s; argparse exits", tok.written.Raw, strings.Join(tok.cands, ", "))
	if r, ok := p.t.removed[tok.written.Raw]; ok {
		msg += fmt.Sprintf(" (%s was removed from %s: %s)", tok.written.Raw, p.t.Program.engineName(), r.Removed)
	}
	p.issue(deploy.FlagAmbiguous, tok.written.Raw, tok.written.Raw, tok.written.Span, "", msg)
}

func (p *parser) unknown(tok token, trailing []deploy.Value) {
	written := tok.written.Raw
	words := append([]deploy.Value{tok.word}, trailing...)
	raws := make([]string, len(words))
	for i, w := range words {
		raws[i] = w.Raw
	}
	unrecognized := strings.Join(raws, " ")
	if r, ok := p.t.removed[written]; ok {
		msg := fmt.Sprintf("%s was removed from %s (%s); argparse exits with \"unrecognized arguments: %s\"", written, p.t.Program.engineName(), r.Removed, unrecognized)
		suggestion := ""
		if r.Instead != "" {
			msg += "; use " + r.Instead + " instead"
			suggestion = p.t.flagNamed(r.Instead)
		}
		p.issue(deploy.FlagRemoved, written, written, tok.written.Span, suggestion, msg)
		p.words(words)
		return
	}
	msg := fmt.Sprintf("unrecognized argument %s: %s has no such option, so argparse exits (\"unrecognized arguments: %s\")", written, p.t.Program, unrecognized)
	suggestion := ""
	if s, alias := p.t.suggest(written); s != nil {
		suggestion = s.Name
		if alias != s.Name {
			msg += fmt.Sprintf("; did you mean %s (%s)?", alias, s.Name)
		} else {
			msg += fmt.Sprintf("; did you mean %s?", s.Name)
		}
	}
	if tok.fromConfig && strings.Contains(written, "_") && p.t.Program != VLLMServer {
		msg += "; SGLang passes a config key to argparse as written, so keys must use dashes"
	}
	p.issue(deploy.FlagUnknown, written, written, tok.written.Span, suggestion, msg)
	p.words(words)
}

// words records the argv words of the occurrence the last issue is about.
func (p *parser) words(ws []deploy.Value) {
	if n := len(p.res.Issues); n > 0 {
		p.res.Issues[n-1].Words = ws
	}
}

// words are the argv words the occurrence consumed: the option word and,
// unless its value was written after "=" in that word, the values.
func (o *occurrence) words() []deploy.Value {
	ws := []deploy.Value{o.tok.word}
	if o.tok.explicit == nil {
		ws = append(ws, o.values...)
	}
	return ws
}

func (p *parser) issue(kind deploy.FlagIssueKind, flag, written string, span deploy.Span, suggestion, msg string) {
	p.res.Issues = append(p.res.Issues, deploy.FlagIssue{
		Kind: kind, Flag: flag, Written: written, Message: msg, Suggestion: suggestion, Span: span,
	})
}
