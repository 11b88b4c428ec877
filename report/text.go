package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// CheckText writes findings and errors the way compilers do: file:line:col,
// then the source line with a caret under what to change, then a summary.
func CheckText(w io.Writer, res *analysis.Result) error {
	src := excerpts{res.Files}
	for _, e := range res.Errors {
		if e.Span.File == "" {
			// Not in a file (a command-line --set): no position to print.
			fmt.Fprintf(w, "kvlint: error: %s\n", Clean(e.Message))
			continue
		}
		fmt.Fprintf(w, "%s: ", position(e.Span))
		Paint(w, "1;31", "error")
		fmt.Fprintf(w, ": %s\n", Clean(e.Message))
		src.excerpt(w, e.Span)
	}
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue // counted in the summary; JSON and SARIF list them
		}
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
	writeDeployments(w, res)
	_, err := fmt.Fprintln(w, summary(res))
	return err
}

func summary(res *analysis.Result) string {
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
	line := fmt.Sprintf("%s checked: %s", plural(len(res.Servers), "server"), plural(reported, "finding"))
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if suppressed > 0 {
		line += fmt.Sprintf(", %d suppressed", suppressed)
	}
	if len(res.Errors) > 0 {
		line += ", " + plural(len(res.Errors), "error")
	}
	switch k := res.UnlaunchedFiles(); {
	case k == 1:
		line += ", 1 file mentions an engine without a recognised launch"
	case k > 1:
		line += fmt.Sprintf(", %d files mention an engine without a recognised launch", k)
	}
	if k := len(res.Unanalysed); k > 0 {
		line += ", " + plural(k, "module") + " not analysed"
	}
	return line
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
