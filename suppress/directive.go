package suppress

import (
	"fmt"
	"regexp"
	"strings"
)

// directive is what one comment says, when it is meant for kvlint.
type directive struct {
	file    bool     // kvlint:ignore-file
	rules   []string // the IDs named; empty: every rule (ignore-file only)
	reason  string
	problem string // why it cannot be read; "" when it can
}

// ruleID is the form of a rule's ID: kvlint's (KV101) and custom (ACME001).
var ruleID = regexp.MustCompile(`^[A-Z][A-Z0-9_-]{0,30}[0-9]$`)

const (
	ignoreWord     = "kvlint:ignore"
	ignoreFileWord = "kvlint:ignore-file"
)

// parseDirective reads the text of a comment (without its marker). Only a
// comment that starts with "kvlint:" is a directive; ok is false for any
// other comment.
//
//	kvlint:ignore KV101 -- reason
//	kvlint:ignore KV101,KV104 -- reason
//	kvlint:ignore-file -- reason
//	kvlint:ignore-file KV101 KV104 -- reason
func parseDirective(text string) (d directive, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "kvlint:") {
		return directive{}, false
	}
	var rest string
	switch {
	case hasWord(text, ignoreFileWord):
		d.file = true
		rest = text[len(ignoreFileWord):]
	case hasWord(text, ignoreWord):
		rest = text[len(ignoreWord):]
	default:
		word, _, _ := strings.Cut(text, " ")
		d.problem = fmt.Sprintf("%s is not a kvlint directive: write kvlint:ignore KV101 -- reason, or kvlint:ignore-file [IDs] -- reason", word)
		return d, true
	}
	ids, reason, _ := strings.Cut(rest, "--")
	d.reason = strings.TrimSpace(reason)
	for _, id := range strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if !ruleID.MatchString(id) {
			d.problem = fmt.Sprintf("%q is not a rule ID: write %s KV101,KV104 -- reason (text after the IDs needs \" -- \" before it)", id, d.word())
			return d, true
		}
		d.rules = append(d.rules, id)
	}
	if !d.file && len(d.rules) == 0 {
		d.problem = "kvlint:ignore names no rule: write kvlint:ignore KV101 -- reason (kvlint:ignore-file silences a whole file)"
	}
	return d, true
}

// hasWord reports whether text starts with word followed by a space, a comma,
// "--" or nothing.
func hasWord(text, word string) bool {
	rest, ok := strings.CutPrefix(text, word)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == ',' || strings.HasPrefix(rest, "--"))
}

func (d directive) word() string {
	if d.file {
		return ignoreFileWord
	}
	return ignoreWord
}

// text is the directive as a message names it: "kvlint:ignore KV101,KV104".
func (d directive) text() string {
	if len(d.rules) == 0 {
		return d.word()
	}
	return d.word() + " " + strings.Join(d.rules, ",")
}
