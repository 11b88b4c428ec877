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
	Kind   string // module, command, image
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

// EvaluateCoverage runs the rules about coverage (KV5xx) over the facts. A
// finding points at the mention (Span) and has Server -1.
func (e *Engine) EvaluateCoverage(ctx context.Context, facts []MentionFact) ([]diag.Diagnostic, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	rs, err := e.eval(ctx, e.coverageQuery, coverageInput(facts))
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
		i, ok := intField(obj, "mention")
		if msg == "" || !ok || i < 0 || i >= len(facts) {
			return nil, fmt.Errorf("rules: %s (%s): deny element %v needs a msg and a mention index below %d", rule.ID, rule.Package, obj, len(facts))
		}
		findings = append(findings, diag.Diagnostic{
			Rule: rule.ID, Severity: rule.Severity, Title: rule.Title, Message: msg,
			Span: facts[i].Span, Server: -1,
		})
	}
	sortFindings(findings)
	return findings, nil
}

// coverageInput is the input of the KV5xx rules (INPUT.md, "Engine mentions").
func coverageInput(facts []MentionFact) ast.Value {
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
	return ast.NewObject([2]*ast.Term{ast.StringTerm("mentions"), ast.ArrayTerm(list...)})
}
