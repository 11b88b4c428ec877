package report_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/internal/benchrepo"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
)

var update = flag.Bool("update", false, "rewrite the golden text reports in testdata/golden")

var engine = sync.OnceValues(func() (*rules.Engine, error) { return rules.New(context.Background()) })

// run checks paths, relative to the working directory, as kvlint check does
// without a --config: each directory's .kvlint.yaml governs its files.
func run(t *testing.T, paths ...string) (*analysis.Result, []rules.Rule) {
	t.Helper()
	e, err := engine()
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), e, check.Options{Paths: paths, NestedConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	return res, e.Rules()
}

// The layout of the text report, pinned: the examples (each grouping), a
// repository whose findings repeat, a run with an input error and a run
// with no finding. go test ./report -update rewrites the files.
func TestCheckTextGolden(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	// Spans are relative to the repository root, as a user running kvlint
	// there sees them.
	t.Chdir("..")
	tests := []struct {
		name    string
		paths   []string
		groupBy report.GroupBy
	}{
		{"examples", []string{"examples"}, ""},
		{"examples_by_rule", []string{"examples"}, report.GroupByRule},
		{"examples_by_file", []string{"examples"}, report.GroupByFile},
		{"repeated", []string{"report/testdata/triage/repeated"}, ""},
		{"input_errors", []string{"report/testdata/triage/errors"}, ""},
		{"no_findings", []string{"examples/healthy"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, rs := run(t, tt.paths...)
			var out bytes.Buffer
			if err := report.CheckText(&out, res, report.TextOptions{Rules: rs, GroupBy: tt.groupBy}); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(golden, tt.name+".txt")
			if *update {
				if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./report -update writes it)", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("text report differs from %s (go test ./report -update rewrites it after a deliberate change)\ngot:\n%s", file, got)
			}
		})
	}
}

// What the goldens show, asserted so a rewrite with -update cannot pass a
// regression unnoticed.
func TestCheckTextTriage(t *testing.T) {
	t.Chdir("..")
	res, rs := run(t, "report/testdata/triage/repeated")
	var out bytes.Buffer
	if err := report.CheckText(&out, res, report.TextOptions{Rules: rs}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// KV301 on the two prefill servers of pd.sh is said once, and JSON
	// keeps both.
	if n := strings.Count(text, "medium KV301: SGLang's radix cache (on by default) keeps a prefix cache shared by every tenant of deployment report/testdata/triage/repeated/pd.sh"); n != 1 {
		t.Errorf("pd.sh's KV301 shown %d times, want once", n)
	}
	if !strings.Contains(text, "    assumed: said once for 2 servers of deployment report/testdata/triage/repeated/pd.sh (1 more finding not listed)") {
		t.Errorf("no fold note for pd.sh:\n%s", text)
	}
	kv301 := 0
	for _, f := range res.Findings {
		if f.Rule == "KV301" {
			kv301++
		}
	}
	if kv301 != 5 {
		t.Errorf("%d KV301 findings in the result, want 5 (4 deployments, pd.sh's on 2 servers)", kv301)
	}
	var js bytes.Buffer
	if err := report.CheckJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(js.String(), `"rule": "KV301"`); n != kv301 {
		t.Errorf("JSON lists %d KV301 findings, want %d", n, kv301)
	}
	// The summary leads, the ambiguous --pp is the one server that cannot
	// start, and the most severe group comes first.
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "8 servers checked: 13 findings (1 high, 5 medium, 7 low)") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(text, "cannot start: 1 server\n  report/testdata/triage/repeated/pd.sh:7:60 KV402 ") {
		t.Errorf("the ambiguous --pp is not listed as stopping its server:\n%s", text)
	}
	first := strings.Index(text, "\ndeployment report/testdata/triage/repeated/pd.sh:")
	if other := strings.Index(text, "\ndeployment chat-a:"); first < 0 || other < first {
		t.Errorf("pd.sh (a high finding) is not the first group")
	}
	// A low KV402 (an abbreviation that works) does not stop a server.
	if strings.Contains(text, "repeated/k8s/team-a.yaml:22:15 KV402") {
		t.Error("an abbreviation is listed as stopping its server")
	}
}

// The summary of a generated 5,000-file repository fits on one screen.
func TestSummaryOfALargeRepositoryFitsOnOneScreen(t *testing.T) {
	dir := t.TempDir()
	if _, err := benchrepo.Generate(dir, 5000, 1); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	res, rs := run(t, ".")
	if len(res.Findings) < 1000 {
		t.Fatalf("%d findings: the repository is meant to be large", len(res.Findings))
	}
	var out bytes.Buffer
	if err := report.TextSummary(&out, res, report.TextOptions{Rules: rs}); err != nil {
		t.Fatal(err)
	}
	summary := strings.TrimSuffix(out.String(), "\n")
	lines := strings.Split(summary, "\n")
	if len(lines) > 40 {
		t.Errorf("summary has %d lines, want at most 40:\n%s", len(lines), summary)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("summary line %d columns wide, want at most 100: %q", n, l)
		}
	}
	// The summary is the head of the full report, up to its first blank line.
	var full bytes.Buffer
	if err := report.CheckText(&full, res, report.TextOptions{Rules: rs}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(full.String(), summary+"\n\n") {
		t.Error("the report does not lead with the summary")
	}
	t.Logf("%d findings; summary:\n%s", len(res.Findings), summary)
}
