package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/outfile"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/sarif"
	"github.com/kvlint/kvlint/verify"
)

// checkFormats are the formats kvlint check writes.
var checkFormats = []string{"text", "json", "sarif", "github", "codequality", "junit", "html"}

// output is one rendering of a run and where it goes.
type output struct {
	format string
	path   string // "" is standard output
}

// parseOutputs reads check's --format and --output. --format is a
// comma-separated list of FORMAT or FORMAT=PATH ("sarif=kvlint.sarif,text");
// a format without a path goes to standard output, so at most one may lack
// one. --output sends that one to a file instead. "-" as a path is
// standard output.
func parseOutputs(spec, outputPath string) ([]output, error) {
	var outs []output
	stdout := -1
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		format, path, hasPath := strings.Cut(item, "=")
		if item == "" {
			return nil, usagef("--format %q: an empty entry; write FORMAT or FORMAT=FILE, separated by commas", spec)
		}
		if !slices.Contains(checkFormats, format) {
			return nil, usagef("--format: unknown format %q: want %s", format, strings.Join(checkFormats, ", "))
		}
		if hasPath && path == "" {
			return nil, usagef("--format %s=: no file name after =", format)
		}
		if path == "-" {
			path = ""
		}
		if path == "" {
			if stdout >= 0 {
				return nil, usagef("--format: %s and %s would both write to standard output; give one of them a file (%s=FILE)",
					outs[stdout].format, format, format)
			}
			stdout = len(outs)
		}
		outs = append(outs, output{format: format, path: path})
	}
	if outputPath != "" && outputPath != "-" {
		if stdout < 0 {
			return nil, usagef("--output %s: every format already has its own file", outputPath)
		}
		outs[stdout].path = outputPath
	}
	seen := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if prev, dup := seen[o.path]; dup {
			return nil, usagef("--format: %s and %s would both write %s", prev, o.format, o.path)
		}
		seen[o.path] = o.format
	}
	return outs, nil
}

// checkRun is what the renderers of kvlint check need.
type checkRun struct {
	res      *analysis.Result
	rules    []rules.Rule
	exitCode int // known before anything is written: SARIF records it
	category string
	// threshold is --fail-on: the junit format fails the findings at or
	// above it.
	threshold diag.Severity
	// color paints the text format written to standard output (--color).
	color bool
	// verification, when set (kvlint verify, check --verify), adds each
	// finding's verdict and evidence to text, JSON and SARIF.
	verification *verify.Report
	// stderr receives the input errors when text goes to standard output
	// (nil: they stay in the text), coloured when colorErr is set.
	stderr   io.Writer
	colorErr bool
	// quiet (-q) makes text the findings alone (report.TextFindings).
	quiet bool
	// groupBy groups the findings of text (--group-by).
	groupBy report.GroupBy
}

// parseGroupBy reads --group-by.
func parseGroupBy(s string) (report.GroupBy, error) {
	var names []string
	for _, g := range report.GroupBys() {
		if string(g) == s {
			return g, nil
		}
		names = append(names, string(g))
	}
	return "", usagef("--group-by must be %s, not %q", strings.Join(names, ", "), s)
}

// render writes one format of the run to w.
func (r checkRun) render(w io.Writer, format string) error {
	var err error
	switch format {
	case "text":
		if r.quiet {
			err = report.TextFindings(w, r.res)
		} else if r.verification != nil {
			err = report.VerifyText(w, r.res, r.verification)
		} else {
			err = report.CheckText(w, r.res, report.TextOptions{Rules: r.rules, GroupBy: r.groupBy})
		}
	case "json":
		if r.verification != nil {
			err = report.VerifyJSON(w, r.res, r.verification)
		} else {
			err = report.CheckJSON(w, r.res)
		}
	case "github":
		err = report.CheckGitHub(w, r.res)
	case "codequality":
		err = report.CheckCodeQuality(w, r.res)
	case "junit":
		err = report.CheckJUnit(w, r.res, r.threshold)
	case "html":
		err = report.CheckHTML(w, r.res, r.verification)
	case "sarif":
		l := sarif.Log{
			Rules: r.rules, Findings: r.res.Findings, Errors: r.res.Errors, Servers: r.res.Servers, Files: r.res.Files,
			ExitCode: r.exitCode, Version: versionString(), Category: r.category,
		}
		if r.verification != nil {
			l.ResultProperties = report.VerifyProperties(r.verification)
		}
		err = sarif.Write(w, l)
	default:
		err = fmt.Errorf("no renderer for format %q", format)
	}
	return err
}

// writeOutputs renders every output and writes it: files first, standard
// output last, so what a terminal shows comes after any file is in place.
func writeOutputs(stdout io.Writer, outs []output, r checkRun) error {
	ordered := slices.Clone(outs)
	slices.SortStableFunc(ordered, func(a, b output) int {
		return boolRank(a.path == "") - boolRank(b.path == "")
	})
	for _, o := range ordered {
		if o.path == "" {
			shown := r
			if o.format == "text" && r.stderr != nil {
				// Text on standard output is the findings; what kvlint
				// could not analyse is a diagnostic about the run, on
				// standard error, as compilers and linters write theirs.
				// Machine formats keep both in one document.
				if err := writeTextErrors(r.stderr, r.res, r.colorErr, r.quiet); err != nil {
					return err
				}
				shown.res = findingsShown(r.res, r.quiet, r.threshold)
			}
			// Only text is coloured, and only on standard output: a
			// file, JSON, SARIF and the other formats are read by tools.
			color := r.color && o.format == "text"
			if err := streamTo(stdout, color, o.format, func(w io.Writer) error { return shown.render(w, o.format) }); err != nil {
				return fmt.Errorf("writing %s: %w", o.format, err)
			}
			continue
		}
		// A file is rendered in memory first, so it is written whole or
		// not at all.
		var buf bytes.Buffer
		sw := safe(&buf, o.format)
		if err := r.render(sw, o.format); err != nil {
			return fmt.Errorf("writing %s: %w", o.format, err)
		}
		if err := sw.Flush(); err != nil {
			return err
		}
		if err := writeReplacing(o.path, buf.Bytes()); err != nil {
			// The file was named on the command line: a usage error (exit 2).
			return usagef("writing the %s output: %v", o.format, err)
		}
	}
	return nil
}

// streamTo writes what fn renders to out, escaped as format needs
// (report.SafeWriter) and coloured when color is set. It is streamed: the
// report of a large repository (tens of MB) is never held in memory whole.
func streamTo(out io.Writer, color bool, format string, fn func(io.Writer) error) error {
	w := out
	if outer, ok := out.(*report.SafeWriter); ok && color {
		// The colour sequences are kvlint's own: write under the
		// command's SafeWriter, whose escaping this one repeats.
		var err error
		if w, err = outer.Raw(); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	sw := safe(bw, format)
	sw.Color = color
	if err := fn(sw); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// writeTextErrors writes the run's input errors to w (standard error) in
// text, then, unless quiet, how many there were: the summary on standard
// output counts findings only.
func writeTextErrors(w io.Writer, res *analysis.Result, color, quiet bool) error {
	if len(res.Errors) == 0 {
		return nil
	}
	return streamTo(w, color, "text", func(w io.Writer) error {
		if err := report.TextErrors(w, res); err != nil {
			return err
		}
		if !quiet {
			n := len(res.Errors)
			_, err := fmt.Fprintf(w, "kvlint: %d %s not be analysed (exit 3)\n", n, plural(n, "input could", "inputs could"))
			return err
		}
		return nil
	})
}

// findingsShown is the result text on standard output shows: without the
// input errors (on standard error), and under -q without the info notes
// (KV105, KV501, KV502: what kvlint could not see, not a mistake), unless
// --fail-on info makes them fail the run.
func findingsShown(res *analysis.Result, quiet bool, threshold diag.Severity) *analysis.Result {
	shown := *res
	shown.Errors = nil
	if quiet && threshold != diag.SeverityInfo {
		shown.Findings = make([]diag.Diagnostic, 0, len(res.Findings))
		for _, f := range res.Findings {
			if s, err := diag.ParseSeverity(f.Severity); err == nil && s == diag.SeverityInfo {
				continue
			}
			shown.Findings = append(shown.Findings, f)
		}
	}
	return &shown
}

// checkOutputPaths refuses, before the run, output files kvlint will not
// write: a symbolic link, or anything that is not a regular file.
func checkOutputPaths(outs []output) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := outfile.Check(o.path); err != nil {
			return usagef("--format %s=%s: %v", o.format, o.path, err)
		}
	}
	return nil
}

// writeReplacing writes data to path through a temporary file and a
// rename, refusing symbolic links as it writes (internal/outfile): the
// check before the run cannot be raced.
func writeReplacing(path string, data []byte) error {
	if err := outfile.Replace(path, data); err != nil {
		return fmt.Errorf("%s %v", path, err)
	}
	return nil
}

// safe escapes what the input could smuggle into a report (report.Clean):
// only the github format may start a line with "::", its own annotations.
func safe(w io.Writer, format string) *report.SafeWriter {
	return report.NewSafeWriter(w, format == "github")
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// useColor decides --color: "always" and "never" are what they say; "auto"
// colours only a terminal, and not when NO_COLOR is set to anything but ""
// (https://no-color.org: "when present and not an empty string", it
// prevents ANSI colour; an explicit --color=always still wins, as the
// convention allows a command-line flag to).
func useColor(mode string, stdout io.Writer, noColor string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		if noColor != "" {
			return false, nil
		}
		if sw, ok := stdout.(*report.SafeWriter); ok {
			var err error
			if stdout, err = sw.Raw(); err != nil {
				return false, err
			}
		}
		f, ok := stdout.(*os.File)
		return ok && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usagef("--color must be auto, always or never, not %q", mode)
}
