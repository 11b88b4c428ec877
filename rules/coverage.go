package rules

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// MentionFact is a place a file names an engine (a launch module, a serve
// subcommand, an engine image) in a file that yielded no server: the Go
// side finds it (parsers.Unlaunched), the rules under policies/coverage
// (KV5xx) judge it and say why no launch was recognised.
type MentionFact struct {
	Kind   string // module, command, image, no-kv-cache, controller (engine.MentionKind)
	Text   string // what was seen: "sglang.launch_server", "vllm serve", an image reference
	Engine string // "sglang", "vllm"; "" for an image whose row names no engine
	// Quoted is set when the mention sits inside a quoted string of a
	// shell line, which kvlint does not read as a command.
	Quoted bool
	// Image facts, for Kind image: whether the image table knows the
	// image, and whether its row gives an entrypoint that starts a server.
	ImageKnown      bool
	ImageEntrypoint bool
	Span            deploy.Span
}

// UnanalysedFact is something a file deploys that kvlint knows of and did
// not read (parsers.Unanalysed): a remote Terraform module.
type UnanalysedFact struct {
	Kind   string // terraform-module
	Name   string // the module call's label
	Source string // its source, as written
	Span   deploy.Span
}

// Coverage is what the coverage rules judge: the places files name an
// engine without a launch, and what the run knows it did not read.
type Coverage struct {
	Mentions   []MentionFact
	Unanalysed []UnanalysedFact
}

// EvaluateCoverage runs the rules about coverage (KV5xx) over the facts. A
// finding points at its fact (a deny element names it by "mention" or by
// "unanalysed" index) and has Server -1.
func (e *Engine) EvaluateCoverage(ctx context.Context, c Coverage) ([]diag.Diagnostic, error) {
	if len(c.Mentions) == 0 && len(c.Unanalysed) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	rs, err := e.eval(ctx, e.coverageQuery, coverageInput(c))
	if err != nil {
		return nil, err
	}
	findings := make([]diag.Diagnostic, 0, len(rs))
	for _, r := range rs {
		name, _ := r.Bindings["pkg"].(string)
		rule, ok := e.coverageByName[name]
		if !ok {
			return nil, fmt.Errorf("rules: package %s%s returned findings but has no METADATA", coveragePackagePrefix, name)
		}
		obj, _ := r.Bindings["finding"].(map[string]any)
		msg, _ := obj["msg"].(string)
		var at deploy.Span
		if i, ok := intField(obj, "mention"); ok && i >= 0 && i < len(c.Mentions) {
			at = c.Mentions[i].Span
		} else if i, ok := intField(obj, "unanalysed"); ok && i >= 0 && i < len(c.Unanalysed) {
			at = c.Unanalysed[i].Span
		} else {
			msg = ""
		}
		if msg == "" {
			return nil, fmt.Errorf("rules: %s (%s): deny element %v needs a msg and a mention index below %d or an unanalysed index below %d",
				rule.ID, rule.Package, obj, len(c.Mentions), len(c.Unanalysed))
		}
		findings = append(findings, diag.Diagnostic{
			Rule: rule.ID, Severity: rule.Severity, Title: rule.Title, Message: msg,
			Span: at, Server: -1,
		})
	}
	sortFindings(findings)
	return findings, nil
}

// coverageInput is the input of the KV5xx rules (INPUT.md, "Engine mentions").
func coverageInput(c Coverage) ast.Value {
	facts := c.Mentions
	list := make([]*ast.Term, len(facts))
	for i, f := range facts {
		list[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(i)},
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(f.Kind)},
			[2]*ast.Term{ast.StringTerm("text"), ast.StringTerm(f.Text)},
			[2]*ast.Term{ast.StringTerm("engine"), ast.StringTerm(f.Engine)},
			[2]*ast.Term{ast.StringTerm("quoted"), ast.BooleanTerm(f.Quoted)},
			[2]*ast.Term{ast.StringTerm("image_known"), ast.BooleanTerm(f.ImageKnown)},
			[2]*ast.Term{ast.StringTerm("image_entrypoint"), ast.BooleanTerm(f.ImageEntrypoint)},
			[2]*ast.Term{ast.StringTerm("file"), ast.StringTerm(f.Span.File)},
			[2]*ast.Term{ast.StringTerm("line"), ast.IntNumberTerm(f.Span.Line)},
		)
	}
	unread := make([]*ast.Term, len(c.Unanalysed))
	for i, u := range c.Unanalysed {
		unread[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(i)},
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(u.Kind)},
			[2]*ast.Term{ast.StringTerm("name"), ast.StringTerm(u.Name)},
			[2]*ast.Term{ast.StringTerm("source"), ast.StringTerm(u.Source)},
			[2]*ast.Term{ast.StringTerm("file"), ast.StringTerm(u.Span.File)},
			[2]*ast.Term{ast.StringTerm("line"), ast.IntNumberTerm(u.Span.Line)},
		)
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("mentions"), ast.ArrayTerm(list...)},
		[2]*ast.Term{ast.StringTerm("unanalysed"), ast.ArrayTerm(unread...)},
	)
}
