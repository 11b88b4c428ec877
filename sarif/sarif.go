// Package sarif writes a kvlint run as a SARIF 2.1.0 log that GitHub code
// scanning accepts as it is: one run, every rule with its documentation,
// results with exact regions, relative URIs under %SRCROOT%, the fingerprint
// GitHub itself would compute, suppressed findings marked as such, and an
// invocation that carries the exit code and the inputs kvlint could not
// analyse. It stays within GitHub's upload limits, leaving out the least
// severe results (and saying so) when a run has more than GitHub accepts.
//
// It reports; it decides nothing: levels come from the findings' severities,
// which come from the rules.
package sarif

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/source"
)

// The tool as SARIF names it.
const (
	ToolName        = "kvlint"
	InformationURI  = "https://github.com/kvlint/kvlint"
	RuleDocBase     = "https://github.com/kvlint/kvlint/blob/main/docs/rules/"
	DefaultCategory = "kvlint"
	// SchemaURI is the OASIS SARIF 2.1.0 schema (errata 01), the one the
	// tests validate against.
	SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// Log is what one kvlint run produced, as SARIF reports it.
type Log struct {
	Rules    []rules.Rule       // every rule that ran (rules.Engine.Rules())
	Findings []diag.Diagnostic  // suppressed ones included, marked
	Errors   []*diag.Diagnostic // inputs that could not be analysed
	// Servers names the server of each finding (Finding.Server indexes it);
	// optional.
	Servers []*deploy.Server
	// Files holds the text of the files the run read
	// (analysis.Result.Files): regions get UTF-16 columns and results
	// GitHub's line hashes from it. A file it does not hold is never read.
	Files *source.Set
	// ExitCode is the exit status kvlint returns for this run.
	ExitCode int
	// Version is kvlint's version; anything that is not a semantic version
	// ("devel") is reported as 0.0.0-<it>.
	Version string
	// Category distinguishes several kvlint analyses of one commit (GitHub's
	// automationDetails.id category); "" means DefaultCategory.
	Category string
	// WorkDir is the directory relative URIs are relative to (%SRCROOT%):
	// the repository root in CI. "" means the process's working directory.
	WorkDir string
	// ResultProperties, when set, holds extra properties for each finding's
	// result (ResultProperties[i] for Findings[i], nil for none): kvlint
	// verify's "verdict" and "evidence".
	ResultProperties []map[string]any
}

// GitHub's hard limits (sarif-support.md): a log over them is rejected
// whole. Variables so tests can exercise the cuts without writing 10 MB.
var (
	maxResults          = 25000    // results per run
	maxRules            = 25000    // rules per run
	maxRelatedLocations = 1000     // locations per result
	maxGzipBytes        = 10 << 20 // the uploaded file, gzip-compressed
)

// Write writes the log as indented JSON, within GitHub's limits.
func Write(w io.Writer, l Log) error {
	data, err := Encode(l)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Encode returns the log as indented JSON. When the run has more results
// than GitHub accepts, or the log would exceed its compressed size limit,
// the least severe results are left out and a tool notification says how
// many.
func Encode(l Log) ([]byte, error) {
	rep, ranks, err := build(l)
	if err != nil {
		return nil, err
	}
	run := rep.Runs[0]
	inv := run.Invocations[0]
	all := run.Results
	notes := inv.ToolExecutionNotifications

	// keepOrder lists result indices from the most to the least severe; a
	// cut keeps a prefix of it, in the original (file, line) order.
	keepOrder := make([]int, len(all))
	for i := range keepOrder {
		keepOrder[i] = i
	}
	slices.SortStableFunc(keepOrder, func(a, b int) int { return cmp.Compare(ranks[b], ranks[a]) })

	encodeFirst := func(n int, why string) ([]byte, int, error) {
		kept := slices.Clone(keepOrder[:n])
		slices.Sort(kept)
		run.Results = make([]*gosarif.Result, 0, n)
		for _, i := range kept {
			run.Results = append(run.Results, all[i])
		}
		inv.ToolExecutionNotifications = notes
		if n < len(all) {
			inv.ToolExecutionNotifications = append(slices.Clone(notes), warning(fmt.Sprintf(
				"kvlint found %d results; %d of the least severe were left out of this log because %s. Run kvlint check --format text to see them all.",
				len(all), len(all)-n, why)))
		}
		data, err := marshal(rep)
		if err != nil {
			return nil, 0, err
		}
		size, err := gzipSize(data)
		return data, size, err
	}

	n, why := len(all), ""
	if n > maxResults {
		n, why = maxResults, fmt.Sprintf("GitHub code scanning accepts at most %d results per run", maxResults)
	}
	data, size, err := encodeFirst(n, why)
	if err != nil || size <= maxGzipBytes {
		return data, err
	}
	// Too large compressed: find the most results that fit.
	why = fmt.Sprintf("GitHub code scanning accepts at most %d bytes of gzip-compressed SARIF", maxGzipBytes)
	lo, hi := 0, n-1 // lo always fits (an empty run is small), hi+1 does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		_, size, err := encodeFirst(mid, why)
		if err != nil {
			return nil, err
		}
		if size <= maxGzipBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	data, size, err = encodeFirst(lo, why)
	if err == nil && size > maxGzipBytes {
		err = fmt.Errorf("sarif: the log is %d bytes gzip-compressed even without results, over GitHub's %d", size, maxGzipBytes)
	}
	return data, err
}

// Build returns the log as a SARIF report, without applying GitHub's limits
// (Encode does).
func Build(l Log) (*gosarif.Report, error) {
	rep, _, err := build(l)
	return rep, err
}

func build(l Log) (*gosarif.Report, []diag.Severity, error) {
	workDir := l.WorkDir
	if workDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, fmt.Errorf("sarif: working directory: %w", err)
		}
		workDir = wd
	}
	b := &builder{loc: newLocator(workDir), src: newSources(l.Files)}

	rep, err := gosarif.New(gosarif.Version210)
	if err != nil {
		return nil, nil, err
	}
	rep.Schema = SchemaURI

	driver := gosarif.NewDriver(ToolName).
		WithSemanticVersion(semanticVersion(l.Version)).
		WithInformationURI(InformationURI)
	driver.Rules = []*gosarif.ReportingDescriptor{}
	ruleIndex := map[string]int{}
	addRule := func(r rules.Rule) {
		if _, dup := ruleIndex[r.ID]; !dup {
			ruleIndex[r.ID] = len(driver.Rules)
			driver.Rules = append(driver.Rules, descriptor(r))
		}
	}
	for _, r := range l.Rules {
		addRule(r)
	}
	// A finding of a rule the caller did not list still needs a descriptor:
	// ruleIndex must point at one.
	for _, f := range l.Findings {
		if _, ok := ruleIndex[f.Rule]; !ok {
			addRule(rules.Rule{ID: f.Rule, Title: f.Title, Severity: f.Severity})
		}
	}
	// GitHub takes an alert's severity from the security-severity of the
	// rule descriptor, never from the result (sarif-support-for-code-scanning,
	// "reportingDescriptor object"; result.properties are not read for it).
	// A rule whose finding is more or less severe than the rule's default
	// (a critical KV101, a high KV402) therefore gets a descriptor of its
	// own, RULE/severity, whose security-severity and level are the
	// finding's: what GitHub shows is then what kvlint says.
	byID := map[string]rules.Rule{}
	for _, r := range l.Rules {
		if _, dup := byID[r.ID]; !dup {
			byID[r.ID] = r
		}
	}
	for _, f := range l.Findings {
		id := resultRuleID(f, driver.Rules[ruleIndex[f.Rule]])
		if _, ok := ruleIndex[id]; ok {
			continue
		}
		r, ok := byID[f.Rule]
		if !ok {
			r = rules.Rule{ID: f.Rule, Title: f.Title}
		}
		ruleIndex[id] = len(driver.Rules)
		driver.Rules = append(driver.Rules, variantDescriptor(r, f.Severity))
	}
	if len(driver.Rules) > maxRules {
		used := map[string]bool{}
		for _, f := range l.Findings {
			used[resultRuleID(f, driver.Rules[ruleIndex[f.Rule]])] = true
		}
		driver.Rules = slices.DeleteFunc(driver.Rules, func(d *gosarif.ReportingDescriptor) bool { return !used[d.ID] })
		driver.Rules = driver.Rules[:min(len(driver.Rules), maxRules)]
		clear(ruleIndex)
		for i, d := range driver.Rules {
			ruleIndex[d.ID] = i
		}
		b.notes = append(b.notes, warning(fmt.Sprintf(
			"only the rules with results are described: GitHub accepts at most %d rules per run", maxRules)))
	}

	run := gosarif.NewRun(gosarif.Tool{Driver: driver})
	run.ColumnKind = "utf16CodeUnits"
	run.OriginalUriBaseIDs = map[string]*gosarif.ArtifactLocation{
		SrcRoot: {URI: ptr(b.loc.rootURI())},
	}
	run.AutomationDetails = &gosarif.RunAutomationDetails{ID: ptr(automationID(l.Category))}

	ranks := make([]diag.Severity, 0, len(l.Findings))
	ruleIDs := make([]string, len(l.Findings))
	for i, f := range l.Findings {
		ruleIDs[i] = f.Rule
		if idx, ok := ruleIndex[f.Rule]; ok {
			ruleIDs[i] = resultRuleID(f, driver.Rules[idx])
		}
	}
	for i, f := range l.Findings {
		idx, ok := ruleIndex[ruleIDs[i]]
		if !ok {
			continue // dropped with the rules over GitHub's limit
		}
		r := b.result(f, ruleIDs[i], idx, serverName(l.Servers, f.Server))
		if i < len(l.ResultProperties) {
			for k, v := range l.ResultProperties[i] {
				r.Properties[k] = v
			}
		}
		run.Results = append(run.Results, r)
		ranks = append(ranks, f.Level())
	}

	inv := gosarif.NewInvocation().
		WithExecutionSuccess(len(l.Errors) == 0).
		WithExitCode(l.ExitCode).
		WithWorkingDirectory(&gosarif.ArtifactLocation{URI: ptr(b.loc.rootURI())})
	for _, e := range l.Errors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, b.inputError(e))
	}
	inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, b.notes...)
	run.AddInvocations(inv)
	rep.AddRun(run)
	return rep, ranks, nil
}

// automationID is GitHub's "category/run-id"; kvlint leaves the run id
// empty, so the category is the whole id up to its final "/".
func automationID(category string) string {
	category = strings.Trim(category, "/")
	if category == "" {
		category = DefaultCategory
	}
	return category + "/"
}

var (
	semverPattern  = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	nonSemverChars = regexp.MustCompile(`[^0-9A-Za-z.-]+`)
)

// semanticVersion turns a Go module version ("v1.2.3", a pseudo-version) into
// SemVer; a development build ("devel", "") becomes 0.0.0-devel.
func semanticVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if semverPattern.MatchString(v) {
		return v
	}
	suffix := nonSemverChars.ReplaceAllString(v, "-")
	suffix = strings.Trim(suffix, ".-")
	if suffix == "" {
		suffix = "devel"
	}
	return "0.0.0-" + suffix
}

func serverName(servers []*deploy.Server, i int) string {
	if i >= 0 && i < len(servers) && servers[i] != nil {
		return servers[i].Name
	}
	return ""
}

func warning(text string) *gosarif.Notification {
	return gosarif.NewNotification().WithLevel("warning").WithTextMessage(text)
}

// marshal writes the report as indented JSON without HTML escaping (messages
// quote "<" and "&" from engine output).
func marshal(rep *gosarif.Report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	return buf.Bytes(), nil
}

func gzipSize(data []byte) (int, error) {
	var n countingWriter
	zw := gzip.NewWriter(&n)
	if _, err := zw.Write(data); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int(n), nil
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

func ptr[T any](v T) *T { return &v }
