package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/verify"
)

// The page is one file a reviewer can open anywhere, offline and from a CI
// artifact store that serves it under a strict content policy: its styles
// and drawings are inline, it runs no script and names no URL. Everything
// from the input (file names, server names, messages, excerpts) is written
// by html/template, which escapes it for the context it lands in.

//go:embed templates/check.html.tmpl
var htmlTemplates embed.FS

var checkHTMLTemplate = template.Must(template.New("check.html.tmpl").ParseFS(htmlTemplates, "templates/check.html.tmpl"))

// CheckHTML writes the run as one self-contained HTML page: per deployment
// its topology, each server's GPU memory, its findings with their fixes and,
// when rep is set (kvlint verify, check --verify), what the runtime measured.
func CheckHTML(w io.Writer, res *analysis.Result, rep *verify.Report) error {
	page := buildHTMLPage(res, rep)
	var buf bytes.Buffer
	if err := checkHTMLTemplate.Execute(&buf, page); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// htmlPage is what the template draws; every number in it is computed here.
type htmlPage struct {
	Summary     string
	Errors      []htmlFinding
	Deployments []htmlDeployment
	// Loose are findings that belong to no deployment (a suppression's).
	Loose    []htmlFinding
	Verified bool
	Seed     uint64
}

type htmlDeployment struct {
	Name        string
	Anchor      string
	Composition string
	Policy      string
	Topology    htmlTopology
	Servers     []htmlServer
	Findings    []htmlFinding
	Suppressed  int
	// Verify is what the runtime did with the deployment; nil when it was
	// not run (VerifyNote says why).
	Verify     *htmlVerify
	VerifyNote string
}

type htmlFinding struct {
	Rule, Severity, Title, Message string
	Position                       string
	Server                         string
	Excerpt                        *htmlExcerpt
	Via                            []string
	Fixes                          []htmlFix
	Verdict                        string
	Evidence                       string
}

// htmlExcerpt is the source line of a span, cut into the text before the
// span, the span and the text after it.
type htmlExcerpt struct {
	Line                int
	Before, Mark, After string
}

type htmlFix struct {
	Description  string
	Result       []string
	Replacements []string
	Unwritable   string
	WhatIf       bool
}

// buildHTMLPage computes the page of a run.
func buildHTMLPage(res *analysis.Result, rep *verify.Report) htmlPage {
	src := excerpts{res.Files}
	page := htmlPage{Summary: summary(res), Verified: rep != nil}
	if rep != nil {
		page.Seed = rep.Seed
	}
	for _, e := range res.Errors {
		page.Errors = append(page.Errors, htmlFinding{Message: e.Message, Position: position(e.Span), Excerpt: src.htmlExcerpt(e.Span)})
	}
	of := map[*deploy.Server]int{}
	for i, d := range res.Deployments {
		for _, s := range d.Servers {
			of[s] = i
		}
	}
	estimateOf := map[*deploy.Server]capacity.Estimate{}
	for i, s := range res.Servers {
		if i < len(res.Estimates) {
			estimateOf[s] = res.Estimates[i]
		}
	}
	for i := range res.Deployments {
		d := &res.Deployments[i]
		hd := htmlDeployment{
			Name: d.Name, Anchor: fmt.Sprintf("d%d", i+1),
			Composition: composition(*d), Policy: policy(*d),
			Topology: topology(d),
		}
		for _, s := range d.Servers {
			e, ok := estimateOf[s]
			hd.Servers = append(hd.Servers, htmlServerOf(s, e, ok, res.ExpectedConcurrency))
		}
		hd.Verify, hd.VerifyNote = htmlVerifyOf(d.Name, rep, res)
		page.Deployments = append(page.Deployments, hd)
	}
	for i, f := range res.Findings {
		var server *deploy.Server
		if f.Server >= 0 && f.Server < len(res.Servers) {
			server = res.Servers[f.Server]
		}
		di, inDeployment := of[server]
		if f.Suppression != nil {
			if inDeployment {
				page.Deployments[di].Suppressed++
			}
			continue
		}
		hf := htmlFindingOf(res, src, f)
		if rep != nil && i < len(rep.Findings) && rep.Findings[i].Verdict != "" {
			hf.Verdict = verdictText(rep.Findings[i].Verdict)
			hf.Evidence = rep.Findings[i].Evidence.Summary
		}
		if inDeployment {
			page.Deployments[di].Findings = append(page.Deployments[di].Findings, hf)
		} else {
			page.Loose = append(page.Loose, hf)
		}
	}
	return page
}

func htmlFindingOf(res *analysis.Result, src excerpts, f diag.Diagnostic) htmlFinding {
	hf := htmlFinding{
		Rule: f.Rule, Severity: f.Severity, Title: f.Title, Message: f.Message,
		Position: position(f.Span), Server: serverName(res, f.Server), Excerpt: src.htmlExcerpt(f.Span),
	}
	for _, st := range f.Origin {
		if st.InFile() {
			hf.Via = append(hf.Via, position(st.Span))
		} else {
			hf.Via = append(hf.Via, st.Text)
		}
	}
	for _, fx := range f.Fixes {
		h := htmlFix{Description: fx.Description, Unwritable: fx.Unwritable, WhatIf: fx.WhatIf}
		for _, q := range fx.Result {
			h.Result = append(h.Result, quantityText(q))
		}
		for _, r := range fx.Replacements {
			h.Replacements = append(h.Replacements, fmt.Sprintf("%s: %q", position(r.Span), r.NewText))
		}
		hf.Fixes = append(hf.Fixes, h)
	}
	return hf
}

// quantityText is "pool 131,072 tokens" or "needs 16.0 GiB".
func quantityText(q diag.Quantity) string {
	v := q.Value
	switch {
	case q.Unit == "bytes":
		return fmt.Sprintf("%s %s", q.Name, gibText(v))
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strings.TrimSpace(fmt.Sprintf("%s %s %s", q.Name, capacity.Thousands(int64(v)), q.Unit))
	}
	return strings.TrimSpace(fmt.Sprintf("%s %.3g %s", q.Name, v, q.Unit))
}

func gibText(bytes float64) string {
	return fmt.Sprintf("%.1f GiB", bytes/(1<<30))
}

// htmlExcerpt is the span's first line, cut where the span starts and ends
// (clipped and cleaned as the text report's excerpt is); nil when the run
// did not read the file.
func (c excerpts) htmlExcerpt(s deploy.Span) *htmlExcerpt {
	if s.Line == 0 {
		return nil
	}
	text, ok := c.line(s.File, s.Line)
	if !ok {
		return nil
	}
	text, col, endCol := clipExcerpt(text, s.Col, s.EndCol)
	ex := &htmlExcerpt{Line: s.Line}
	if col < 1 {
		ex.Before = string(text)
		return ex
	}
	end := col + 1
	if s.EndLine == s.Line && endCol > col {
		end = endCol
	}
	if s.EndLine > s.Line {
		end = len(text) + 1
	}
	end = min(end, len(text)+1)
	start := min(col-1, len(text))
	ex.Before, ex.Mark, ex.After = string(text[:start]), string(text[start:end-1]), string(text[end-1:])
	return ex
}
