package suppress

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/parallel"
	"github.com/kvlint/kvlint/parsers"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/source"
)

// File is a file of the run, whose suppressions are read.
type File struct {
	Path string
	// Syntax is how its comments are written, as the parser that read it
	// classified it.
	Syntax source.Syntax
}

// Options are what Apply needs besides the findings.
type Options struct {
	// Files are the files the run checked; the files findings point into
	// (a values file, a --config file) are read too, their syntax that of
	// the file the run holds, else guessed from the name.
	Files []File
	// Sources holds the text of the files the run read: a file's
	// suppressions are read from there, and a file it does not hold is
	// read once and added to it, so a reporter can quote a suppression.
	// Nil reads every file from disk.
	Sources *source.Set
	// Config holds the ignore entries; nil for none.
	Config *config.Config
	// Now decides whether an until: date has passed; zero means time.Now().
	Now time.Time
	// Errors are the input errors of the run: suppressions in a file that
	// could not be analysed are not reported as unused.
	Errors []*diag.Diagnostic
	// IsRule reports whether an ID is a rule of this run, to name unknown
	// IDs in KV002 messages; nil treats every ID as known.
	IsRule func(id string) bool
}

// Apply finds the suppressions of the run, marks each finding one of them
// silences (Diagnostic.Suppression, in place; the finding is kept), and returns
// what is known about every suppression, for the KV00x rules.
func Apply(findings []diag.Diagnostic, opt Options) []rules.SuppressionFact {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	syntaxes := map[string]source.Syntax{}
	var order []string
	addFile := func(path string, syntax source.Syntax) {
		path = filepath.Clean(path)
		if _, seen := syntaxes[path]; !seen && path != "." {
			syntaxes[path] = syntax
			order = append(order, path)
		}
	}
	for _, f := range opt.Files {
		addFile(f.Path, f.Syntax)
	}
	for i := range findings {
		for _, sp := range spans(&findings[i]) {
			syntax := source.SyntaxOf(sp.File)
			if held := opt.Sources.File(sp.File); held != nil {
				syntax = held.Syntax
			}
			addFile(sp.File, syntax)
		}
	}

	found := scanFiles(order, syntaxes, opt.Sources)
	byFile := map[string][]*suppression{}
	var all []*suppression
	for i, path := range order {
		if found[i] == nil {
			continue
		}
		byFile[path] = found[i]
		all = append(all, found[i]...)
	}
	var entries []*suppression
	if opt.Config != nil {
		entries = configSuppressions(opt.Config, now)
		all = append(all, entries...)
	}

	for i := range findings {
		f := &findings[i]
		if f.Suppression != nil {
			continue
		}
		var matched []*suppression
		for _, sp := range spans(f) {
			file := filepath.Clean(sp.File)
			for _, s := range byFile[file] {
				if s.covers(f.Rule) && (s.kind == kindFile || (sp.Line >= s.from && sp.Line <= s.to)) {
					matched = append(matched, s)
				}
			}
			for _, s := range entries {
				if s.covers(f.Rule) && s.match(file) {
					matched = append(matched, s)
				}
			}
		}
		if len(matched) == 0 {
			continue
		}
		for _, s := range matched {
			if s.used == nil {
				s.used = map[string]bool{}
			}
			s.used[f.Rule] = true
		}
		best := slices.MinFunc(matched, func(a, b *suppression) int { return cmp.Compare(priority[a.kind], priority[b.kind]) })
		f.Suppression = &diag.Suppression{Kind: best.kind, Reason: best.reason, Span: best.span}
	}
	return facts(all, order, opt)
}

// spans are the places a finding is about: its span, then the spans of the
// chain that produced the value (values file line, template line), so a
// suppression written at any of them applies.
func spans(f *diag.Diagnostic) []deploy.Span {
	out := make([]deploy.Span, 0, 1+len(f.Origin))
	for _, sp := range append([]deploy.Span{f.Span}, f.Origin.Spans()...) {
		if sp.File != "" {
			out = append(out, sp)
		}
	}
	return out
}

// scanFiles scans the files on every core; found[i] holds the
// suppressions of paths[i] (nil when it has none or cannot be read), so the
// order does not depend on which file is scanned first.
func scanFiles(paths []string, syntaxes map[string]source.Syntax, sources *source.Set) [][]*suppression {
	found := make([][]*suppression, len(paths))
	parallel.For(len(paths), func(i int) {
		found[i] = scanPath(paths[i], syntaxes[paths[i]], sources)
	})
	return found
}

// scanPath finds the suppressions of one file.
func scanPath(path string, syntax source.Syntax, sources *source.Set) []*suppression {
	if sources.Passed(path) {
		return nil // the parse read it: it names no kvlint directive
	}
	f, err := sources.Read(path, syntax)
	if err != nil {
		return nil
	}
	if !bytes.Contains(f.Data, []byte(parsers.DirectiveMarker)) {
		// Every directive (kvlint:ignore) and annotation (kvlint.io/)
		// names kvlint: a file that does not has none, and most files
		// of a large repository are not worth tokenizing.
		return nil
	}
	return scanFile(path, f, syntax)
}

// configSuppressions turns the ignore entries into suppressions matching
// file paths relative to the configuration file's directory.
func configSuppressions(cfg *config.Config, now time.Time) []*suppression {
	name := config.FileName
	if cfg.Path != "" {
		name = filepath.Base(cfg.Path)
	}
	var out []*suppression
	for i := range cfg.Ignore {
		e := &cfg.Ignore[i]
		ig := &parsers.Ignore{}
		ig.Add("", []string{e.Path})
		dir := cfg.Dir
		s := &suppression{
			kind:   kindConfig,
			text:   fmt.Sprintf("the %s ignore entry for %s", name, e.Path),
			where:  fmt.Sprintf("in files matching %s", e.Path),
			rules:  e.Rules,
			reason: e.Reason,
			span:   deploy.Span{File: displayPath(cfg.Path), Line: e.Line, Col: e.Column, EndLine: e.Line, EndCol: e.Column + max(1, len(e.Key))},
			match: func(file string) bool {
				rel, ok := relativeTo(dir, file)
				return ok && ig.Match(rel, false)
			},
			expired: e.Expired(now),
		}
		if !e.Until.IsZero() {
			s.until = e.Until.Format(config.DateLayout)
		}
		out = append(out, s)
	}
	return out
}

// relativeTo makes file relative to dir ("" for the working directory),
// slash-separated; false when file is outside dir.
func relativeTo(dir, file string) (string, bool) {
	if dir == "" {
		dir = "."
	}
	absDir, err1 := filepath.Abs(dir)
	absFile, err2 := filepath.Abs(file)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// displayPath shows a path relative to the working directory when it lies
// inside it, the way findings name files.
func displayPath(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if rel, ok := relativeTo(".", path); ok {
		return filepath.FromSlash(rel)
	}
	return path
}

// facts describes every suppression for the KV00x rules, in a stable order:
// the files' in the order they were read, then the configuration's.
func facts(all []*suppression, files []string, opt Options) []rules.SuppressionFact {
	failed := map[string]bool{}
	for _, e := range opt.Errors {
		failed[filepath.Clean(e.Span.File)] = true
	}
	checked := func(s *suppression) bool {
		for _, f := range opt.Files {
			if p := filepath.Clean(f.Path); s.match(p) && !failed[p] {
				return true
			}
		}
		return false
	}
	out := make([]rules.SuppressionFact, 0, len(all))
	for _, s := range all {
		fact := rules.SuppressionFact{
			Kind: s.kind, Text: s.text, Where: s.where, Rules: s.rules, Reason: s.reason,
			Span: s.span, Used: len(s.used) > 0, Until: s.until, Expired: s.expired, Problem: s.problem,
		}
		if s.kind == kindConfig {
			fact.Judged = checked(s)
		} else {
			fact.Judged = !failed[s.file]
		}
		for _, id := range s.rules {
			if !s.used[id] {
				fact.UnusedRules = append(fact.UnusedRules, id)
			}
			if opt.IsRule != nil && !opt.IsRule(id) {
				fact.UnknownRules = append(fact.UnknownRules, id)
			}
		}
		out = append(out, fact)
	}
	return out
}
