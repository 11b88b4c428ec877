package sarif

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// synthetic is a run over files written for the test, with the parts of a
// finding no parser fills yet: a provenance chain (Helm values → template),
// suppressions of both kinds, a file outside the working directory, a path
// with a space and non-ASCII text, a rule the caller did not list, and input
// errors with and without a position.
type synthetic struct {
	dir      string // the working directory (%SRCROOT%)
	values   string // <dir>/my chart/values.yaml
	template string // <dir>/my chart/templates/decode.yaml
	outside  string // a script outside dir
	unicode  string // <dir>/ünïcode.sh
	log      Log
}

func newSynthetic(t testing.TB) synthetic {
	t.Helper()
	s := synthetic{dir: t.TempDir()}
	files := source.NewSet()
	write := func(p, text string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files.Add(source.NewFile(p, []byte(text), source.SyntaxOf(p)))
		return p
	}
	s.values = write(filepath.Join(s.dir, "my chart", "values.yaml"),
		"# kvlint:ignore KV101 -- the pool is raised by the autoscaler\ndecode:\n  maxTotalTokens: 65536\n")
	s.template = write(filepath.Join(s.dir, "my chart", "templates", "decode.yaml"),
		"args:\n  - --max-total-tokens\n  - \"{{ .Values.decode.maxTotalTokens }}\"\n")
	s.outside = write(filepath.Join(t.TempDir(), "serve.sh"),
		"python -m sglang.launch_server --tp-size 2 --tp-size 4\n")
	s.unicode = write(filepath.Join(s.dir, "ünïcode.sh"),
		"# ünïcode ✓ 😀 --tp 2\n")

	span := func(file string, line, col, endCol int) deploy.Span {
		return deploy.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: endCol}
	}
	s.log = Log{
		Rules: engine(t).Rules(),
		Findings: []diag.Diagnostic{
			{
				Rule: "KV101", Severity: "high", Title: "KV pool smaller than the context window",
				Message: "KV pool holds 65,536 tokens, smaller than the 131,072-token context window",
				// Set in values.yaml, printed by the template's action, and
				// overridden by nothing: the chain Helm provenance builds.
				Span:   span(s.values, 3, 19, 24),
				Origin: deploy.Origin{deploy.At(deploy.StepTemplate, span(s.template, 3, 6, 42))},
				Suppression: &diag.Suppression{Kind: "inline", Reason: "the pool is raised by the autoscaler",
					Span: span(s.values, 1, 3, 62)},
			},
			{
				Rule: "KV403", Severity: "low", Title: "Duplicate flag",
				Message: "--tp-size is given twice; the last value (4) wins",
				Span:    span(s.outside, 1, 45, 54),
			},
			{
				// "--tp" starts at byte 22 (ü, ï, ✓ take 2, 2, 3 bytes; 😀 4)
				// and at UTF-16 column 16 (😀 is two units).
				Rule: "KV402", Severity: "low", Title: "Abbreviated flag",
				Message: "--tp is an abbreviation of --tp-size",
				Span:    span(s.unicode, 1, 22, 26),
			},
			{
				Rule: "KV105", Severity: "info", Title: "Capacity unknown",
				Message:     "the GPU is not known",
				Span:        span(s.unicode, 1, 1, 2),
				Suppression: &diag.Suppression{Kind: "config"},
			},
			{
				Rule: "KV999", Severity: "medium", Title: "A custom policy's rule",
				Message: "from a policy the caller did not list",
				Span:    deploy.Span{File: s.template, Line: 1}, // a whole line
			},
		},
		Errors: []*diag.Diagnostic{
			{Span: span(s.template, 2, 3, 5), Message: "cannot parse this"},
			{Span: deploy.Span{File: filepath.Join(s.dir, "missing.yaml")}, Message: "no such file"},
			{Message: "an error with no position"},
		},
		ExitCode: 3,
		Version:  "v1.2.3",
		Category: "kvlint/deploy",
		WorkDir:  s.dir,
		Files:    files,
	}
	return s
}

func syntheticLogs(t testing.TB) map[string]Log {
	s := newSynthetic(t)
	clean := Log{Rules: engine(t).Rules(), WorkDir: s.dir, Version: "devel"}
	return map[string]Log{"provenance, suppressions, errors": s.log, "clean": clean}
}
