package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/sarif"
)

// RulesTable writes `kvlint rules`: one line per rule with its ID, default
// severity and title, aligned.
func RulesTable(w io.Writer, rs []rules.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tTITLE")
	for _, r := range rs {
		title := r.Title
		if r.File != "" {
			title += " (" + r.File + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, title)
	}
	return tw.Flush()
}

// RuleText writes `kvlint explain ID`: the rule's description, why its
// severity is what it is, how to fix a finding, and where to read more,
// wrapped for a terminal.
func RuleText(w io.Writer, r rules.Rule) error {
	ex := r.Explain()
	fmt.Fprintf(w, "%s: %s\nSeverity: %s\n", r.ID, r.Title, r.Severity)
	section := func(heading, text string) {
		if text == "" {
			return
		}
		fmt.Fprintf(w, "\n%s\n%s\n", heading, wrap(text, 76, "  "))
	}
	section("What it finds", ex.What)
	section("Why it matters", ex.Why)
	section("How to fix", r.Remediation)
	if len(r.References) > 0 {
		fmt.Fprintln(w, "\nReferences")
		for _, ref := range r.References {
			fmt.Fprintf(w, "  %s\n", ref)
		}
	}
	var err error
	if r.File != "" {
		_, err = fmt.Fprintf(w, "\nPolicy: %s\n", r.File)
	} else {
		_, err = fmt.Fprintf(w, "\nMore: %s\n", sarif.RuleDocURL(r.ID))
	}
	return err
}

// ruleDocHeader marks a generated page, so nobody edits it by hand.
const ruleDocHeader = "<!-- Generated from the rule's METADATA by `go run ./cmd/kvlint docs`; do not edit. -->\n"

// RuleMarkdown writes a rule's page, docs/rules/<ID>.md: the page the SARIF
// helpUri of the rule points at.
func RuleMarkdown(w io.Writer, r rules.Rule) error {
	ex := r.Explain()
	fmt.Fprint(w, ruleDocHeader)
	fmt.Fprintf(w, "\n# %s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(w, "Severity: **%s** · Policy package: `%s`\n", r.Severity, r.Package)
	section := func(heading, text string) {
		if text != "" {
			fmt.Fprintf(w, "\n## %s\n\n%s\n", heading, text)
		}
	}
	section("What it finds", ex.What)
	section("Why it matters", ex.Why)
	section("How to fix", r.Remediation)
	if len(r.References) > 0 {
		fmt.Fprint(w, "\n## References\n\n")
		for _, ref := range r.References {
			fmt.Fprintf(w, "- <%s>\n", ref)
		}
	}
	if strings.HasPrefix(r.Package, "kvlint.suppressions.") {
		return nil // the suppression rules (KV00x) are not themselves silenced
	}
	_, err := fmt.Fprintf(w, "\n## Silencing it\n\n"+
		"Fix the deployment where you can. Where a finding is accepted, say why next to it:\n"+
		"`# kvlint:ignore %s -- reason` on the line or the line above.\n", r.ID)
	return err
}

// RuleIndex writes docs/rules/README.md: every rule, linked to its page.
func RuleIndex(w io.Writer, rs []rules.Rule) error {
	fmt.Fprint(w, ruleDocHeader)
	fmt.Fprint(w, "\n# kvlint rules\n\n`kvlint rules` lists them; `kvlint explain ID` prints a page in the terminal.\n\n")
	fmt.Fprint(w, "| id | severity | finding |\n| --- | --- | --- |\n")
	for _, r := range rs {
		fmt.Fprintf(w, "| [%s](%s.md) | %s | %s |\n", r.ID, r.ID, r.Severity, strings.ReplaceAll(r.Title, "|", `\|`))
	}
	return nil
}

// wrap fills text into lines of at most width characters (a longer word
// stands alone), each starting with indent.
func wrap(text string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, indent+line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, indent+line)
	}
	return strings.Join(lines, "\n")
}
