package check

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/sarif"
)

// The reporters and baseline fingerprints take the text of files from the
// run's file set, never from the disk: rendering a result after its files
// were changed and then deleted gives the same bytes as rendering it while
// they were there. The examples hold scripts, manifests, compose files,
// Helm charts (templates, values files) and Terraform modules, so every
// kind of file a span points into is covered.
func TestReportersDoNotReadTheDisk(t *testing.T) {
	dir := t.TempDir()
	examples, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(examples)); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"helm_chart", "helm_errors", "helm_values", "terraform", "suppress_forms", "check_formats", "check_errors"} {
		ar, err := txtar.ParseFile(filepath.Join("..", "cmd", "kvlint", "testdata", "script", script+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			p := filepath.Join(dir, script, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(dir)
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), engine, Options{Paths: []string{"."}, NestedConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	render := func() string {
		var out bytes.Buffer
		if err := report.CheckText(&out, res); err != nil {
			t.Fatal(err)
		}
		log, err := sarif.Encode(sarif.Log{Rules: engine.Rules(), Findings: res.Findings, Errors: res.Errors,
			Servers: res.Servers, Files: res.Files, Version: "0.0.0-test", WorkDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(log)
		if err := baseline.Write(&out, baseline.Build(res.Findings, res.Servers, res.Files)); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	before := render()
	if !strings.Contains(before, "\n    ") || !strings.Contains(before, `"primaryLocationLineHash"`) {
		t.Fatal("the output quotes no source line: the test would prove nothing")
	}
	if kinds := spannedKinds(res); !kinds[".tf"] || !kinds[".yaml"] || !kinds[".sh"] || !kinds[".tpl"] && !kinds[".tfvars"] {
		t.Fatalf("spans point into files of %v only", kinds)
	}

	if err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.WriteFile(p, []byte("changed\r\n\tafter the run 😀\n"), 0o644)
	}); err != nil {
		t.Fatal(err)
	}
	if changed := render(); changed != before {
		t.Errorf("the output changed with the files on disk:\n%s", firstDifference(before, changed))
	}
	for _, e := range mustReadDir(t, dir) {
		if err := os.RemoveAll(filepath.Join(dir, e)); err != nil {
			t.Fatal(err)
		}
	}
	if gone := render(); gone != before {
		t.Errorf("the output changed with the files deleted:\n%s", firstDifference(before, gone))
	}
}

// spannedKinds lists the extensions of the files the run holds that
// findings, the values they flag and errors point into.
func spannedKinds(res *analysis.Result) map[string]bool {
	kinds := map[string]bool{}
	add := func(file string) {
		if res.Files.File(file) != nil {
			kinds[filepath.Ext(file)] = true
		}
	}
	for _, f := range res.Findings {
		add(f.Span.File)
		for _, step := range f.Origin {
			add(step.Span.File)
		}
	}
	for _, e := range res.Errors {
		add(e.Span.File)
	}
	return kinds
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "before: " + al[i] + "\nafter:  " + bl[i]
		}
	}
	return "one output is a prefix of the other"
}
