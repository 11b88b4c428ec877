package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

func TestCheckTextShowsTheLineAndCaret(t *testing.T) {
	// The excerpt comes from the run's file set: there is no pod.yaml on
	// disk, and a CRLF line shows without its "\r".
	file := filepath.Join(t.TempDir(), "pod.yaml")
	src := "args:\r\n\t- --max-total-tokens\n\t- \"65536\"\n"
	files := source.NewSet()
	files.Add(source.NewFile(file, []byte(src), source.SyntaxYAML))
	res := &analysis.Result{
		Files:   files,
		Servers: []*deploy.Server{{Name: "decode"}},
		Findings: []diag.Diagnostic{{
			Rule: "KV101", Severity: "high", Message: "pool too small",
			Span: deploy.Span{File: file, Line: 3, Col: 5, EndLine: 3, EndCol: 10}, Server: 0,
		}},
		Errors: []*diag.Diagnostic{{Span: deploy.Span{File: file, Line: 1, Col: 1, EndLine: 1, EndCol: 5}, Message: "bad"}},
	}
	var out bytes.Buffer
	if err := CheckText(&out, res); err != nil {
		t.Fatal(err)
	}
	want := "1 server checked: 1 finding (1 high), 1 error\n" +
		"  KV101  1 high\n" +
		"\n" +
		file + ":1:1: error: bad\n" +
		"    1 | args:\n" +
		"      | ^~~~\n" +
		"\n" +
		"not in a deployment (1 finding)\n" +
		file + ":3:5: high KV101: pool too small [decode]\n" +
		"    3 | \t- \"65536\"\n" +
		"      | \t   ^~~~~\n" +
		"\n" +
		"1 server checked: 1 finding (1 high), 1 error\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestCheckTextWithoutSource(t *testing.T) {
	// A span in a file the run did not read prints the position alone,
	// even when the file is there to read.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gone.yaml"), []byte("a\nb\nc\nd: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	res := &analysis.Result{Findings: []diag.Diagnostic{{Rule: "KV105", Severity: "info", Message: "m",
		Span: deploy.Span{File: "gone.yaml", Line: 4, Col: 2}, Server: -1}}}
	var out bytes.Buffer
	if err := CheckText(&out, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\ngone.yaml:4:2: info KV105: m\n\n0 servers checked") {
		t.Errorf("got %q", out.String())
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1291840: "1,291,840", -65536: "-65,536"} {
		if got := num(&in); got != want {
			t.Errorf("num(%d) = %q, want %q", in, got, want)
		}
	}
}
