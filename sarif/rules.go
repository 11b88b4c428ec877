package sarif

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// RuleDocURL is where a rule's page lives: docs/rules/<ID>.md on the
// project's repository, generated from the rule's METADATA.
func RuleDocURL(id string) string { return RuleDocBase + id + ".md" }

// GitHub's limits on rule metadata (sarif-support.md): longer descriptions
// are rejected, more tags are dropped for display.
const (
	maxDescription = 1024
	maxName        = 255
	maxTags        = 10
)

// level is the SARIF level of a severity: what GitHub shows as error,
// warning or note.
func level(s diag.Severity) string {
	switch {
	case s >= diag.SeverityHigh:
		return "error"
	case s == diag.SeverityMedium:
		return "warning"
	default:
		return "note"
	}
}

// securitySeverity maps a severity onto GitHub's CVSS-like scale (>9.0
// critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low), using the middle of
// each band. Info has none: it reports a gap in what kvlint knows, not a
// weakness, and GitHub would otherwise list it as a security alert.
func securitySeverity(s diag.Severity) string {
	switch s {
	case diag.SeverityCritical:
		return "9.5"
	case diag.SeverityHigh:
		return "8.0"
	case diag.SeverityMedium:
		return "5.5"
	case diag.SeverityLow:
		return "2.0"
	}
	return ""
}

// resultRuleID is the descriptor a finding is reported under: its rule's
// own when the finding has the rule's default severity, else the variant
// RULE/severity (Write explains why).
func resultRuleID(f diag.Diagnostic, d *gosarif.ReportingDescriptor) string {
	if d == nil || d.ID != f.Rule || d.DefaultConfiguration == nil {
		return f.Rule
	}
	if ruleSeverity(d) == f.Severity {
		return f.Rule
	}
	return f.Rule + "/" + f.Severity
}

// ruleSeverity is the kvlint severity a descriptor was made for.
func ruleSeverity(d *gosarif.ReportingDescriptor) string {
	s, _ := d.Properties["kvlint-severity"].(string)
	return s
}

// variantDescriptor is the descriptor of rule r at severity sev: the same
// texts and help page, that severity's level and security-severity.
func variantDescriptor(r rules.Rule, sev string) *gosarif.ReportingDescriptor {
	r.Severity = sev
	d := descriptor(r)
	d.ID = r.ID + "/" + sev
	if d.Name != nil {
		d.Name = ptr(*d.Name + "/" + sev)
	}
	return d
}

// family tags a rule by the hundred its ID is in: the areas of
// rules/policies/ (capacity, disaggregation, isolation, flags, suppressions, coverage).
func family(id string) string {
	switch {
	case strings.HasPrefix(id, "KV0"):
		return "suppressions"
	case strings.HasPrefix(id, "KV1"):
		return "kv-cache"
	case strings.HasPrefix(id, "KV2"):
		return "disaggregation"
	case strings.HasPrefix(id, "KV3"):
		return "tenant-isolation"
	case strings.HasPrefix(id, "KV4"):
		return "engine-flags"
	case strings.HasPrefix(id, "KV5"):
		return "coverage"
	}
	return ""
}

// descriptor is the reportingDescriptor of a rule: everything GitHub shows
// on an alert's page.
func descriptor(r rules.Rule) *gosarif.ReportingDescriptor {
	sev, _ := diag.ParseSeverity(r.Severity)
	ex := r.Explain()

	d := gosarif.NewRule(r.ID)
	if name := ruleName(r); name != "" {
		d.WithName(name)
	}
	title := r.Title
	if title == "" {
		title = r.ID
	}
	full := r.Description
	if full == "" {
		full = title
	}
	d.WithShortDescription(gosarif.NewMultiformatMessageString(truncate(title, maxDescription)))
	d.WithFullDescription(gosarif.NewMultiformatMessageString(truncate(full, maxDescription)))
	d.WithHelpURI(RuleDocURL(r.ID))
	d.WithHelp(gosarif.NewMultiformatMessageString(helpText(r, ex)).WithMarkdown(helpMarkdown(r, ex)))
	d.WithDefaultConfiguration(&gosarif.ReportingConfiguration{Level: level(sev)})

	props := gosarif.Properties{}
	tags := []string{}
	if ss := securitySeverity(sev); ss != "" {
		props["security-severity"] = ss
		tags = append(tags, "security")
	}
	if f := family(r.ID); f != "" {
		tags = append(tags, f)
	}
	if sev.Valid() {
		tags = append(tags, sev.String())
	}
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	props["tags"] = tags
	// The rules compute from the engine's own formulas and flag tables: a
	// finding is wrong only when kvlint's inputs are (a model or GPU it was
	// not told about), which KV105 reports instead of guessing.
	props["precision"] = "high"
	// The severity the descriptor stands for, so a finding of another
	// severity is reported under a variant descriptor (resultRuleID).
	props["kvlint-severity"] = r.Severity
	d.WithProperties(props)
	return d
}

// ruleName is the rule's package name in PascalCase ("pool_below_context" →
// "PoolBelowContext"), the identifier-like name SARIF viewers show.
func ruleName(r rules.Rule) string {
	pkg := r.Package[strings.LastIndex(r.Package, ".")+1:]
	var b strings.Builder
	for _, part := range strings.Split(pkg, "_") {
		if part == "" {
			continue
		}
		first, size := utf8.DecodeRuneInString(part)
		b.WriteRune(unicode.ToUpper(first))
		b.WriteString(part[size:])
	}
	return truncate(b.String(), maxName)
}

func helpText(r rules.Rule, ex rules.Explanation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, severity %s)\n\n%s\n", r.Title, r.ID, r.Severity, ex.What)
	if ex.Why != "" {
		fmt.Fprintf(&b, "\nWhy it matters: %s\n", ex.Why)
	}
	if r.Remediation != "" {
		fmt.Fprintf(&b, "\nHow to fix: %s\n", r.Remediation)
	}
	if len(r.References) > 0 {
		b.WriteString("\nReferences:\n")
		for _, ref := range r.References {
			fmt.Fprintf(&b, "- %s\n", ref)
		}
	}
	return strings.TrimSpace(b.String())
}

func helpMarkdown(r rules.Rule, ex rules.Explanation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s, severity %s)\n\n%s\n", r.Title, r.ID, r.Severity, ex.What)
	if ex.Why != "" {
		fmt.Fprintf(&b, "\n### Why it matters\n\n%s\n", ex.Why)
	}
	if r.Remediation != "" {
		fmt.Fprintf(&b, "\n### How to fix\n\n%s\n", r.Remediation)
	}
	if len(r.References) > 0 {
		b.WriteString("\n### References\n\n")
		for _, ref := range r.References {
			fmt.Fprintf(&b, "- <%s>\n", ref)
		}
	}
	fmt.Fprintf(&b, "\n[Rule page](%s)\n", RuleDocURL(r.ID))
	return strings.TrimSpace(b.String())
}

// truncate cuts s to at most n characters as GitHub counts them (UTF-16
// code units, JavaScript's string length), ending in "…" when cut; the full
// text stays in help.
func truncate(s string, n int) string {
	// A UTF-8 string never has more UTF-16 units than bytes.
	if len(s) <= n || utf16Length(s) <= n {
		return s
	}
	units := 1 // the ellipsis
	for i, r := range s {
		units += utf16.RuneLen(r)
		if units > n {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
	}
	return s
}

func utf16Length(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
