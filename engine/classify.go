package engine

import (
	"regexp"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// tokenKind is argparse's classification of one argv word, the letters of
// its arg_strings_pattern ('O' option, 'A' argument, '-' for "--"), plus
// 'U' for a placeholder kvlint cannot classify.
type tokenKind byte

const (
	kindArg         tokenKind = 'A'
	kindOption      tokenKind = 'O'
	kindSeparator   tokenKind = '-'
	kindPlaceholder tokenKind = 'U'
)

// token is one classified word.
type token struct {
	word       deploy.Value
	kind       tokenKind
	fromConfig bool // produced from the --config file

	// For options:
	flag     *Flag         // nil when no option matches
	opt      string        // the option string matched (alias or canonical)
	written  deploy.Value  // the option as typed, before any "="
	explicit *deploy.Value // the text after "=" (or after "-h" in "-hx")
	cands    []string      // several matches: argparse calls it ambiguous
	abbrev   bool          // matched as a unique prefix

	// dotted is set on the argument vLLM builds from dotted JSON keys
	// (prepareVLLM).
	dotted *dottedFlag
}

// negativeNumber is argparse's _negative_number_matcher
// ('^-\d+$|^-\d*\.\d+$', argparse.py ArgumentParser.__init__); with no
// option that looks like a negative number (SGLang has none), such a word
// is an argument, not an option.
var negativeNumber = regexp.MustCompile(`^-[0-9]+$|^-[0-9]*\.[0-9]+$`)

// classify mirrors ArgumentParser._parse_optional and _get_option_tuples
// (CPython Lib/argparse.py; identical in 3.10-3.13 and main for double-dash
// options, checked by running 3.10.13, 3.12.1 and 3.13.0):
//
//  1. "" or a word not starting with '-' is an argument;
//  2. an exact option string is that option (an exact match beats any
//     prefix: "--ep" is --ep-size's alias even though other flags start
//     with "--ep");
//  3. a single '-' is an argument;
//  4. "--opt=value" with an exact option before the first '=' is that option;
//  5. otherwise every option string that starts with the word (the part
//     before '=' for "--x=v") matches: one match is an abbreviation
//     (allow_abbrev=True), several are "ambiguous option: --pp could match
//     --pp-size, --pp-max-micro-batch-size, …", even when they all belong
//     to the same action;
//  6. a negative number, or a word containing a space, is an argument;
//  7. anything else is an option argparse does not know.
func (t *Table) classify(w deploy.Value) token {
	tok := token{word: w, kind: kindArg}
	raw := w.Raw
	if !w.Known {
		// A placeholder whose option name is literal ("--tp-size=$TP") is
		// that option with an unknown value; anything else is unknown.
		name, _, _ := strings.Cut(raw, "=")
		if !strings.HasPrefix(raw, "-") || len(name) < 2 || hasPlaceholder(name) {
			tok.kind = kindPlaceholder
			return tok
		}
	}
	if raw == "" || raw[0] != '-' {
		return tok
	}
	if raw == "--" {
		tok.kind = kindSeparator
		return tok
	}
	if f, ok := t.byOpt[raw]; ok {
		return t.optionToken(tok, f, raw, len(raw), false)
	}
	if len(raw) == 1 {
		return tok
	}
	if name, _, ok := strings.Cut(raw, "="); ok {
		if f, found := t.byOpt[name]; found {
			return t.optionToken(tok, f, name, len(name), true)
		}
	}
	if tok2, ok := t.prefixMatch(tok); ok {
		return tok2
	}
	if negativeNumber.MatchString(raw) || strings.Contains(raw, " ") {
		return tok
	}
	name, _, hasEq := strings.Cut(raw, "=")
	tok.kind = kindOption
	tok.written = part(w, 0, len(name))
	if hasEq && strings.HasPrefix(raw, "--") {
		v := part(w, len(name)+1, len(raw))
		tok.explicit = &v
	}
	return tok
}

// optionToken fills in a resolved option; nameLen is the length of the
// option text in the word, and withValue says that "=" and a value follow.
func (t *Table) optionToken(tok token, f *Flag, opt string, nameLen int, withValue bool) token {
	tok.kind = kindOption
	tok.flag = f
	tok.opt = opt
	tok.written = part(tok.word, 0, nameLen)
	if withValue {
		v := part(tok.word, nameLen+1, len(tok.word.Raw))
		tok.explicit = &v
	}
	return tok
}

// prefixMatch is _get_option_tuples with allow_abbrev=True.
func (t *Table) prefixMatch(tok token) (token, bool) {
	raw := tok.word.Raw
	if strings.HasPrefix(raw, "--") {
		prefix, _, hasEq := strings.Cut(raw, "=")
		var cands []string
		for _, o := range t.options {
			if strings.HasPrefix(o, prefix) {
				cands = append(cands, o)
			}
		}
		switch {
		case len(cands) == 0:
			return tok, false
		case len(cands) > 1:
			tok.kind = kindOption
			tok.cands = cands
			tok.written = part(tok.word, 0, len(prefix))
			return tok, true
		}
		out := t.optionToken(tok, t.byOpt[cands[0]], cands[0], len(prefix), hasEq)
		out.abbrev = true
		return out, true
	}
	// A single dash (_get_option_tuples, the single-prefix branch): an
	// option string equal to the first two characters matches with the rest
	// of the word as its argument ("-hx" is -h with "x", vLLM's "-qfp8" is
	// -q fp8), and every option string that starts with the whole word
	// matches as an abbreviation (vLLM's "-t" is -tp). Several matches are
	// ambiguous, as for double-dash prefixes.
	short := raw[:2]
	var cands []string
	explicitAt := -1
	for _, o := range t.options {
		switch {
		case o == short:
			explicitAt = len(cands)
			cands = append(cands, o)
		case strings.HasPrefix(o, raw):
			cands = append(cands, o)
		}
	}
	switch {
	case len(cands) == 0:
		return tok, false
	case len(cands) > 1:
		tok.kind = kindOption
		tok.cands = cands
		tok.written = tok.word
		return tok, true
	}
	if explicitAt == 0 {
		out := t.optionToken(tok, t.byOpt[short], short, 2, false)
		v := part(tok.word, 2, len(raw))
		out.explicit = &v
		return out, true
	}
	out := t.optionToken(tok, t.byOpt[cands[0]], cands[0], len(raw), false)
	out.abbrev = true
	return out, true
}
