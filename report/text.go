package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// CheckText writes a check the way compilers do, ordered for triage: first
// the summary (TextSummary), then the input errors, then the findings
// grouped (by deployment unless opts says otherwise), most severe first,
// each at file:line:col with the source line and a caret under what to
// change, and last the one-line count. At most one TextOptions; without
// one, the findings are grouped by deployment and, no rule metadata being
// known, no server is listed as unable to start and nothing is folded.
func CheckText(w io.Writer, res *analysis.Result, opts ...TextOptions) error {
	var opt TextOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
	t := newTriage(res, opt)
	src := excerpts{res.Files}
	// Sections are parted by a blank line: the summary, the input errors,
	// each group, then the deployments without findings and the count.
	wrote := t.writeSummary(w)
	section := func() {
		if wrote {
			fmt.Fprintln(w)
		}
		wrote = true
	}
	if len(res.Errors) > 0 {
		section()
		for _, e := range res.Errors {
			writeTextError(w, src, e)
		}
	}
	for _, g := range t.groups() {
		section()
		fmt.Fprintln(w, Clean(g.heading))
		for _, e := range g.entries {
			t.writeEntry(w, src, e)
		}
	}
	section()
	t.writeOtherDeployments(w)
	_, err := fmt.Fprintln(w, summary(res))
	return err
}

// writeTextError writes one input error: its position, the source line and
// a caret under what could not be read.
func writeTextError(w io.Writer, src excerpts, e *diag.Diagnostic) {
	if e.Span.File == "" {
		// Not in a file (a command-line --set): no position to print.
		fmt.Fprintf(w, "kvlint: error: %s\n", Clean(e.Message))
		return
	}
	fmt.Fprintf(w, "%s: ", position(e.Span))
	Paint(w, "1;31", "error")
	fmt.Fprintf(w, ": %s\n", Clean(e.Message))
	src.excerpt(w, e.Span)
}

// writeFinding writes one finding: position, severity, rule, message and
// server, the source line with a caret under the span, and the chain that
// produced the value. Every text view of a finding (the grouped report,
// -q) goes through it.
func writeFinding(w io.Writer, src excerpts, res *analysis.Result, f *diag.Diagnostic) {
	fmt.Fprintf(w, "%s: ", position(f.Span))
	Paint(w, severityColor(f.Severity), Clean(f.Severity))
	fmt.Fprintf(w, " %s: %s", Clean(f.Rule), Clean(f.Message))
	if name := serverName(res, f.Server); name != "" {
		fmt.Fprintf(w, " [%s]", Clean(name))
	}
	fmt.Fprintln(w)
	src.excerpt(w, f.Span)
	writeVia(w, f.Origin)
	writeFixes(w, f.Fixes)
}

// summary is the run's count on one line: servers, findings by severity,
// suppressed findings, errors and what was not analysed.
func summary(res *analysis.Result) string {
	head, tail := summaryParts(res)
	return strings.Join(append([]string{head}, tail...), ", ")
}

// summaryParts is summary's first part (servers and findings) and the
// others, for a caller that wraps them.
func summaryParts(res *analysis.Result) (string, []string) {
	bySeverity := map[string]int{}
	reported, suppressed := 0, 0
	for _, f := range res.Findings {
		if f.Suppression != nil {
			suppressed++
			continue
		}
		reported++
		bySeverity[f.Severity]++
	}
	var parts []string
	for _, s := range []string{"critical", "high", "medium", "low", "info"} {
		if n := bySeverity[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	head := fmt.Sprintf("%s checked: %s", plural(len(res.Servers), "server"), plural(reported, "finding"))
	if len(parts) > 0 {
		head += " (" + strings.Join(parts, ", ") + ")"
	}
	var tail []string
	if suppressed > 0 {
		tail = append(tail, fmt.Sprintf("%d suppressed", suppressed))
	}
	if len(res.Errors) > 0 {
		tail = append(tail, plural(len(res.Errors), "error"))
	}
	switch k := res.UnlaunchedFiles(); {
	case k == 1:
		tail = append(tail, "1 file mentions an engine without a recognised launch")
	case k > 1:
		tail = append(tail, fmt.Sprintf("%d files mention an engine without a recognised launch", k))
	}
	if k := len(res.Unanalysed); k > 0 {
		tail = append(tail, plural(k, "module")+" not analysed")
	}
	return head, tail
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// position is file:line:col, or just the file when nothing finer is known.
// The file name is cleaned (Clean), and one that starts with ":" is written
// "./:name", so no line of the report can start with a workflow command.
func position(s deploy.Span) string {
	file := Clean(s.File)
	if strings.HasPrefix(file, ":") {
		file = "./" + file
	}
	switch {
	case s.Line == 0:
		return file
	case s.Col == 0:
		return fmt.Sprintf("%s:%d", file, s.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, s.Line, s.Col)
}

// excerpts quotes the files of the run. A file the run did not read (a
// --set argument, a file inside a chart archive) is not quoted: it is never
// read here, so an excerpt always shows the text the finding was made on.
type excerpts struct{ files *source.Set }

// line is line n of file (lines end at "\n", source.LF, like the spans),
// without the "\r" of a CRLF file.
func (c excerpts) line(file string, n int) ([]byte, bool) {
	f := c.files.File(file)
	if f == nil {
		return nil, false
	}
	text, ok := f.Index(source.LF).Line(n)
	return bytes.TrimRight(text, "\r"), ok
}

// excerpt prints the span's first line and marks the span under it. Tabs in
// the source are kept in the marker line so the caret lines up.
func (c excerpts) excerpt(w io.Writer, s deploy.Span) {
	if s.Line == 0 {
		return
	}
	text, ok := c.line(s.File, s.Line)
	if !ok {
		return
	}
	text, s.Col, s.EndCol = clipExcerpt(text, s.Col, s.EndCol)
	gutter := fmt.Sprintf("%5d | ", s.Line)
	fmt.Fprintf(w, "%s%s\n", gutter, text)
	if s.Col < 1 || s.Col > len(text)+1 {
		return
	}
	var mark strings.Builder
	for _, b := range text[:s.Col-1] {
		if b == '\t' {
			mark.WriteByte('\t')
		} else {
			mark.WriteByte(' ')
		}
	}
	width := 1
	if s.EndLine == s.Line && s.EndCol > s.Col {
		width = min(s.EndCol, len(text)+1) - s.Col
	}
	fmt.Fprintf(w, "%s| %s", strings.Repeat(" ", len(gutter)-2), mark.String())
	Paint(w, "1;32", "^"+strings.Repeat("~", max(0, width-1)))
	fmt.Fprintln(w)
}

// severityColor is the SGR colour of a severity word in text output: what
// fails a default run in red, what merits a look in yellow, the rest in
// cyan.
func severityColor(severity string) string {
	switch severity {
	case "critical", "high":
		return "1;31"
	case "medium", "low":
		return "33"
	}
	return "36"
}
