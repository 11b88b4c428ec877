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
	"github.com/kvlint/kvlint/suppress"
)

// suppressFindings is the step after Evaluate: it marks the findings that
// suppressions (comments, annotations, .kvlint.yaml ignores) and then the
// baseline silence, and adds the KV00x findings about the suppressions
// themselves. Nothing is dropped: reporters and the exit code skip findings
// whose Suppression is set.
func suppressFindings(ctx context.Context, engine *rules.Engine, res *analysis.Result, files []parsers.File, unmarked []bool, cfg *config.Config, opt Options) error {
	facts := suppress.Apply(res.Findings, suppress.Options{
		Files:  suppressFiles(files, unmarked),
		Config: cfg,
		Now:    opt.Now,
		Errors: res.Errors,
		IsRule: func(id string) bool { _, ok := engine.Rule(id); return ok },
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
		opt.Baseline.Apply(res.Findings, res.Servers, opt.BaselinePath)
	}
	return nil
}

// maxSuppressFiles bounds the files read from one directory input (a Helm
// chart, a Terraform module) for suppressions.
const maxSuppressFiles = 2000

// suppressFiles lists the files whose suppressions are read: every file the
// run checked (those the parse found unmarked are marked so, and not read
// again: on a large repository that is most files), and for an input that
// is a directory (a chart, a module), the files in it that have comments
// kvlint can read.
func suppressFiles(files []parsers.File, unmarked []bool) []suppress.File {
	var out []suppress.File
	for i, f := range files {
		if f.Kind != parsers.KindHelm && f.Kind != parsers.KindTerraform {
			out = append(out, suppress.File{Path: f.Path, Format: formatOf(f), Unmarked: i < len(unmarked) && unmarked[i]})
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
			if format := suppress.FormatOf(p); format != suppress.FormatOther {
				out = append(out, suppress.File{Path: p, Format: format})
				n++
			}
			return nil
		})
	}
	return out
}

func formatOf(f parsers.File) suppress.Format {
	switch f.Kind {
	case parsers.KindShell:
		return suppress.FormatShell
	case parsers.KindDockerfile:
		return suppress.FormatDockerfile
	case parsers.KindCompose, parsers.KindKubernetes:
		return suppress.FormatYAML
	}
	return suppress.FormatOf(f.Path)
}
