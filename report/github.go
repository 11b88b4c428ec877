package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// CheckGitHub writes findings and input errors as GitHub Actions workflow
// commands (::error, ::warning, ::notice), which the runner turns into
// annotations on the files of a pull request, then the text summary line.
// Suppressed findings are not annotated.
//
// Format and escaping are GitHub's ("Workflow commands for GitHub Actions";
// @actions/core packages/core/src/command.ts, escapeData and
// escapeProperty).
func CheckGitHub(w io.Writer, res *analysis.Result) error {
	wd, _ := os.Getwd()
	for _, e := range res.Errors {
		fmt.Fprintln(w, workflowCommand("error", e.Span, wd, "kvlint: input not analysed", e.Message))
	}
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue
		}
		msg := f.Message
		if name := serverName(res, f.Server); name != "" {
			msg += " [" + name + "]"
		}
		fmt.Fprintln(w, workflowCommand(annotationLevel(f.Level()), f.Span, wd, f.Rule+": "+f.Title, msg))
	}
	_, err := fmt.Fprintln(w, summary(res))
	return err
}

// annotationLevel: what fails a default run is an error, what merits a look
// a warning, the rest a notice.
func annotationLevel(s diag.Severity) string {
	switch {
	case s >= diag.SeverityHigh:
		return "error"
	case s >= diag.SeverityLow:
		return "warning"
	default:
		return "notice"
	}
}

// workflowCommand formats one annotation:
// ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=T::message
// Properties GitHub does not need are left out rather than written as 0.
func workflowCommand(cmd string, span deploy.Span, wd, title, msg string) string {
	var props []string
	if span.File != "" {
		props = append(props, "file="+escapeProperty(workspacePath(span.File, wd)))
	}
	if span.Line >= 1 {
		props = append(props, fmt.Sprintf("line=%d", span.Line))
		if span.Col >= 1 {
			props = append(props, fmt.Sprintf("col=%d", span.Col))
		}
		if span.EndLine >= span.Line {
			props = append(props, fmt.Sprintf("endLine=%d", span.EndLine))
			if span.EndCol >= 1 {
				props = append(props, fmt.Sprintf("endColumn=%d", span.EndCol))
			}
		}
	}
	if title != "" {
		props = append(props, "title="+escapeProperty(title))
	}
	line := "::" + cmd
	if len(props) > 0 {
		line += " " + strings.Join(props, ",")
	}
	return line + "::" + escapeData(msg)
}

// workspacePath is the path GitHub resolves against the repository root:
// relative to the working directory (the checkout, in a workflow) and with
// forward slashes. Paths outside it stay as they are.
func workspacePath(file, wd string) string {
	if wd != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(wd, file); err == nil && filepath.IsLocal(rel) {
			file = rel
		}
	}
	return filepath.ToSlash(filepath.Clean(file))
}

// escapeData escapes a command's message: "%", CR and LF as GitHub
// decodes them, then every other control (ESC, C1, bidirectional
// overrides) as Clean does, so nothing raw reaches the runner's log.
func escapeData(s string) string {
	return Clean(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// escapeProperty escapes a property value: as data, plus ":" and "," which
// separate the command and its properties.
func escapeProperty(s string) string {
	return Clean(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}
