package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// Suppressed findings are not printed; the summary counts them.
func TestCheckTextLeavesSuppressedOut(t *testing.T) {
	res := &analysis.Result{Findings: []diag.Diagnostic{
		{Rule: "KV101", Severity: "high", Message: "shown", Span: deploy.Span{File: "a.sh", Line: 1, Col: 1}, Server: -1},
		{Rule: "KV104", Severity: "high", Message: "hidden", Span: deploy.Span{File: "a.sh", Line: 2, Col: 1}, Server: -1,
			Suppression: &diag.Suppression{Kind: "inline", Reason: "r"}},
	}}
	var buf bytes.Buffer
	if err := CheckText(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "KV101: shown") || strings.Contains(out, "hidden") ||
		!strings.Contains(out, "0 servers checked: 1 finding (1 high), 1 suppressed") {
		t.Errorf("text output:\n%s", out)
	}
}

// JSON lists suppressed findings apart, with what silenced them.
func TestCheckJSONSuppressed(t *testing.T) {
	res := &analysis.Result{Findings: []diag.Diagnostic{
		{Rule: "KV101", Severity: "high", Message: "shown", Span: deploy.Span{File: "a.sh", Line: 1, Col: 1}, Server: -1},
		{Rule: "KV104", Severity: "high", Message: "hidden", Span: deploy.Span{File: "a.sh", Line: 2, Col: 1}, Server: -1,
			Suppression: &diag.Suppression{Kind: "config", Reason: "r", Span: deploy.Span{File: ".kvlint.yaml", Line: 4, Col: 5}}},
	}}
	var buf bytes.Buffer
	if err := CheckJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Findings   []map[string]any `json:"findings"`
		Suppressed []struct {
			Rule        string `json:"rule"`
			Suppression struct {
				Kind, Reason, File string
				Line, Column       int
			} `json:"suppression"`
		} `json:"suppressed"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != 1 || got.Findings[0]["rule"] != "KV101" || got.Findings[0]["suppression"] != nil {
		t.Errorf("findings %v", got.Findings)
	}
	s := got.Suppressed
	if len(s) != 1 || s[0].Rule != "KV104" || s[0].Suppression.Kind != "config" || s[0].Suppression.File != ".kvlint.yaml" || s[0].Suppression.Line != 4 || s[0].Suppression.Column != 5 {
		t.Errorf("suppressed %+v", s)
	}
}
