package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// Within a severity, findings come by file, line and column, whatever
// order the rules made them in; the more severe first.
func TestTriageOrder(t *testing.T) {
	at := func(file string, line, col int) deploy.Span { return deploy.Span{File: file, Line: line, Col: col} }
	res := &analysis.Result{Findings: []diag.Diagnostic{
		{Rule: "KV402", Severity: "low", Message: "c", Span: at("b.sh", 2, 1), Server: -1},
		{Rule: "KV101", Severity: "high", Message: "b", Span: at("b.sh", 1, 9), Server: -1},
		{Rule: "KV402", Severity: "low", Message: "a", Span: at("a.sh", 9, 1), Server: -1},
		{Rule: "KV101", Severity: "high", Message: "a", Span: at("b.sh", 1, 3), Server: -1},
		{Rule: "KV103", Severity: "critical", Message: "z", Span: at("z.sh", 1, 1), Server: -1},
	}}
	tr := newTriage(res, TextOptions{})
	var got []string
	for _, e := range tr.entries {
		got = append(got, position(e.f.Span))
	}
	want := "z.sh:1:1 b.sh:1:3 b.sh:1:9 a.sh:9:1 b.sh:2:1"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// However many rules fire and servers stop, the summary keeps to its
// bounds, and says what it left out.
func TestSummaryBounds(t *testing.T) {
	var rs []rules.Rule
	res := &analysis.Result{}
	long := strings.Repeat("very-long-directory/", 8)
	for i := range 25 {
		id := fmt.Sprintf("KV9%02d", i)
		rs = append(rs, rules.Rule{ID: id, Title: strings.Repeat("title ", 30), StopsStart: diag.SeverityHigh})
		res.Servers = append(res.Servers, &deploy.Server{Name: fmt.Sprintf("server-%d", i)})
		res.Findings = append(res.Findings, diag.Diagnostic{Rule: id, Severity: "high", Message: "m",
			Span: deploy.Span{File: long + "serve.sh", Line: 1, Col: i + 1}, Server: i})
	}
	// A finding below the rule's stops_start severity stops nothing.
	res.Findings = append(res.Findings, diag.Diagnostic{Rule: "KV900", Severity: "low", Message: "m",
		Span: deploy.Span{File: "x.sh", Line: 1, Col: 1}, Server: 0})
	var out bytes.Buffer
	if err := TextSummary(&out, res, TextOptions{Rules: rs}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > 40 {
		t.Errorf("%d lines", len(lines))
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 100 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	for _, want := range []string{
		"\n  and 5 more rules: --group-by rule lists them\n",
		"\ncannot start: 25 servers\n",
		"\n  and 15 more\n",
		"\n  …rectory/", "-directory/serve.sh:1:1 KV900 [server-0]\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "x.sh") {
		t.Errorf("a low finding of a stops_start: high rule is listed:\n%s", text)
	}
	// Without the rules' metadata, nothing is said to stop or assumed.
	out.Reset()
	if err := TextSummary(&out, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "cannot start") {
		t.Errorf("cannot start without rule metadata:\n%s", out.String())
	}
}

func TestClip(t *testing.T) {
	if got := clip("abcdef", 4); got != "abc…" {
		t.Errorf("clip = %q", got)
	}
	if got := clipLeft("abcdef", 4); got != "…def" {
		t.Errorf("clipLeft = %q", got)
	}
	if got := clip("äbc", 3); got != "äbc" {
		t.Errorf("clip counts bytes: %q", got)
	}
	if got := wrapParts("head", []string{"one", "two"}, 12); len(got) != 2 || got[0] != "head, one," || got[1] != "  two" {
		t.Errorf("wrapParts = %q", got)
	}
}

// Two rules resting on the same undeclared tenancy of one server are one
// deployment and one server in the summary, two findings.
func TestAssumedTenancyCountsDistinctServers(t *testing.T) {
	srv := &deploy.Server{Name: "s", Span: deploy.Span{File: "a.yaml", Line: 1, Col: 1}}
	res := &analysis.Result{
		Servers:     []*deploy.Server{srv},
		Deployments: []deploy.Deployment{{Name: "d", Tenancy: deploy.TenancyMulti, Servers: []*deploy.Server{srv}}},
		Findings: []diag.Diagnostic{
			{Rule: "KV301", Severity: "medium", Message: "shared prefix cache", Span: srv.Span, Server: 0},
			{Rule: "KV303", Severity: "medium", Message: "shared external tier", Span: srv.Span, Server: 0},
		},
	}
	var b bytes.Buffer
	opt := TextOptions{Rules: []rules.Rule{{ID: "KV301", Assumes: rules.AssumesTenancy}, {ID: "KV303", Assumes: rules.AssumesTenancy}}}
	if err := CheckText(&b, res, opt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "assumed tenancy: 1 deployment, 1 server, 2 findings;") {
		t.Fatalf("summary:\n%s", b.String())
	}
}
