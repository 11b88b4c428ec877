package check

import (
	"cmp"
	"context"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/parsers"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/source"
	"github.com/kvlint/kvlint/suppress"
)

// suppressFindings is the step after Evaluate: it marks the findings that
// suppressions (comments, annotations, .kvlint.yaml ignores) and then the
// baseline silence, and adds the KV00x findings about the suppressions
// themselves. Nothing is dropped: reporters and the exit code skip findings
// whose Suppression is set.
func suppressFindings(ctx context.Context, engine *rules.Engine, res *analysis.Result, files []parsers.File, cfg *config.Config, opt Options) error {
	facts := suppress.Apply(res.Findings, suppress.Options{
		Files:   suppressFiles(files, res.Files),
		Sources: res.Files,
		Config:  cfg,
		Now:     opt.Now,
		Errors:  res.Errors,
		IsRule:  func(id string) bool { _, ok := engine.Rule(id); return ok },
	})
	about, err := engine.EvaluateSuppressions(ctx, facts)
	if err != nil {
		return err
	}
	res.Findings = append(res.Findings, about...)
	slices.SortStableFunc(res.Findings, func(a, b diag.Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Span.File, b.Span.File),
			cmp.Compare(a.Span.Line, b.Span.Line),
			cmp.Compare(a.Span.Col, b.Span.Col),
			cmp.Compare(a.Rule, b.Rule),
		)
	})
	if opt.Baseline != nil {
		opt.Baseline.Apply(res.Findings, res.Servers, res.Files, opt.BaselinePath)
	}
	return nil
}

// maxSuppressFiles bounds the files read from one directory input (a Helm
// chart, a Terraform module) for suppressions.
const maxSuppressFiles = 2000

// suppressFiles lists the files whose suppressions are read: every file the
// run checked, with the syntax its parser classified it by, and for an input
// that is a directory (a chart, a module), the files in it that have
// comments kvlint can read — those the parser read with the syntax it gave
// them, the others (a file the chart ignores, a module's examples) by name.
func suppressFiles(files []parsers.File, sources *source.Set) []suppress.File {
	var out []suppress.File
	for _, f := range files {
		if f.Kind != parsers.KindHelm && f.Kind != parsers.KindTerraform {
			out = append(out, suppress.File{Path: f.Path, Syntax: f.Kind.Syntax()})
			continue
		}
		n := 0
		_ = filepath.WalkDir(f.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || n >= maxSuppressFiles {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if d.Name() == ".git" || d.Name() == ".terraform" {
					return filepath.SkipDir
				}
				return nil
			}
			syntax := source.SyntaxOf(p)
			if held := sources.File(p); held != nil {
				syntax = held.Syntax
			}
			if syntax != source.SyntaxOther {
				out = append(out, suppress.File{Path: p, Syntax: syntax})
				n++
			}
			return nil
		})
	}
	return out
}
