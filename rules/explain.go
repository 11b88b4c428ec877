package rules

import (
	"regexp"
	"strings"
)

// Explanation arranges a rule's METADATA description for a reader: what the
// rule finds, and why it matters. The policies write both in one description
// and justify the severity in sentences of their own ("Severity high: the
// server does not start."); Explain takes those sentences out as Why, so
// `kvlint explain`, the rule pages and SARIF help show them under their own
// heading without a second METADATA field to keep in step.
type Explanation struct {
	What string
	Why  string // "" when the description has no severity sentence
}

// severitySentence matches a sentence that justifies a severity:
// "Severity high: …", "An abbreviation is severity low: …".
var severitySentence = regexp.MustCompile(`(?i)\bseverity (info|low|medium|high|critical)\b`)

// Explain splits the rule's description into what it finds and why it matters.
func (r Rule) Explain() Explanation {
	var what, why []string
	for _, s := range sentences(r.Description) {
		if severitySentence.MatchString(s) {
			why = append(why, s)
		} else {
			what = append(what, s)
		}
	}
	return Explanation{What: strings.Join(what, " "), Why: strings.Join(why, " ")}
}

// sentences splits text after every word that ends in ".", "!" or "?".
// Splitting too often (after "e.g.", inside a quoted engine message) is
// harmless: the pieces are joined again with single spaces, and only a
// severity sentence cut in two would lose its tail to What.
func sentences(text string) []string {
	var out, cur []string
	for _, w := range strings.Fields(text) {
		cur = append(cur, w)
		if strings.HasSuffix(w, ".") || strings.HasSuffix(w, "!") || strings.HasSuffix(w, "?") {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}
