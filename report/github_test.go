package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

func TestCheckGitHub(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	res := &analysis.Result{
		Servers: []*deploy.Server{{Name: "decode, 100%"}},
		Findings: []diag.Diagnostic{
			{Rule: "KV101", Severity: "high", Title: "KV pool smaller than the context window",
				Message: "pool: 65,536 tokens\nwindow: 131,072 (100%)",
				Span:    deploy.Span{File: filepath.Join(wd, "deploy", "decode.yaml"), Line: 32, Col: 18, EndLine: 32, EndCol: 23}},
			{Rule: "KV402", Severity: "low", Title: "Abbreviated flag", Message: "--tp is short",
				Span: deploy.Span{File: "serve.sh", Line: 3, Col: 1, EndLine: 3, EndCol: 5}, Server: -1},
			{Rule: "KV105", Severity: "info", Title: "Capacity unknown", Message: "GPU unknown",
				Span: deploy.Span{File: "serve.sh", Line: 1, Col: 1}, Server: -1},
			{Rule: "KV403", Severity: "high", Title: "Duplicate", Message: "silenced",
				Span: deploy.Span{File: "serve.sh", Line: 2, Col: 1}, Server: -1,
				Suppression: &diag.Suppression{Kind: "inline", Reason: "known"}},
		},
		Errors: []*diag.Diagnostic{
			{Span: deploy.Span{File: "charts/x/templates/a.yaml"}, Message: "cannot render\r\nthe chart"},
		},
	}
	var out bytes.Buffer
	if err := CheckGitHub(&out, res); err != nil {
		t.Fatal(err)
	}
	want := "::error file=charts/x/templates/a.yaml,title=kvlint%3A input not analysed::cannot render%0D%0Athe chart\n" +
		"::error file=deploy/decode.yaml,line=32,col=18,endLine=32,endColumn=23,title=KV101%3A KV pool smaller than the context window::" +
		"pool: 65,536 tokens%0Awindow: 131,072 (100%25) [decode, 100%25]\n" +
		"::warning file=serve.sh,line=3,col=1,endLine=3,endColumn=5,title=KV402%3A Abbreviated flag::--tp is short\n" +
		"::notice file=serve.sh,line=1,col=1,title=KV105%3A Capacity unknown::GPU unknown\n" +
		"1 server checked: 3 findings (1 high, 1 low, 1 info), 1 suppressed, 1 error\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestEscaping(t *testing.T) {
	for _, tt := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"l1\r\nl2\n", "l1%0D%0Al2%0A", "l1%0D%0Al2%0A"},
		{"%0A", "%250A", "%250A"}, // already-escaped text is escaped again, not decoded
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
	} {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}
