package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/baseline"
)

// codeQualityIssue is one issue of a GitLab Code Quality report, the fields
// GitLab documents as required ("Code Quality report format",
// https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format):
// description, check_name, fingerprint (unique per issue), severity (info,
// minor, major, critical or blocker), location.path (relative to the
// repository root) and location.lines.begin.
type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// CheckCodeQuality writes findings and input errors as a GitLab Code
// Quality report: a JSON array of issues. Suppressed findings are left out,
// as in the github format. A finding's fingerprint is its baseline
// fingerprint and occurrence (baseline.Build), so it survives edits
// elsewhere in the file and two equal findings still differ.
func CheckCodeQuality(w io.Writer, res *analysis.Result) error {
	wd, _ := os.Getwd()
	issues := []codeQualityIssue{}
	for _, e := range res.Errors {
		h := sha256.Sum256([]byte("input-error\x00" + e.Span.File + "\x00" + e.Message))
		issues = append(issues, codeQualityIssue{
			Description: Clean("input not analysed: " + e.Message),
			CheckName:   "kvlint/input-error",
			Fingerprint: hex.EncodeToString(h[:16]),
			// A run that did not see everything proves nothing clean.
			Severity: "major",
			Location: codeQualityLoc(e.Span.File, e.Span.Line, wd),
		})
	}
	entries := baseline.Build(res.Findings, res.Servers, res.Files).Findings
	i := 0
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue
		}
		entry := entries[i]
		i++
		msg := f.Message
		if name := serverName(res, f.Server); name != "" {
			msg += " [" + name + "]"
		}
		issues = append(issues, codeQualityIssue{
			Description: Clean(msg),
			CheckName:   Clean(f.Rule),
			Fingerprint: fmt.Sprintf("%s-%d", entry.Fingerprint, entry.Occurrence),
			Severity:    codeQualitySeverity(f.Severity),
			Location:    codeQualityLoc(f.Span.File, f.Span.Line, wd),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}

// codeQualityLoc: GitLab requires lines.begin; a finding about a whole file
// (no line known) points at its first line, which GitLab can show.
func codeQualityLoc(file string, line int, wd string) codeQualityLocation {
	path := ""
	if file != "" {
		path = Clean(workspacePath(file, wd))
	}
	return codeQualityLocation{Path: path, Lines: codeQualityLines{Begin: max(line, 1)}}
}

// codeQualitySeverity maps kvlint's five severities onto GitLab's five, in
// order.
func codeQualitySeverity(s string) string {
	switch s {
	case "critical":
		return "blocker"
	case "high":
		return "critical"
	case "medium":
		return "major"
	case "low":
		return "minor"
	}
	return "info"
}
