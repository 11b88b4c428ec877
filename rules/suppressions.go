package rules

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// SuppressionFact is what a run learned about one suppression (an inline
// comment, a file-level comment, an annotation or a .kvlint.yaml ignore
// entry): the Go side finds suppressions and matches them to findings, the
// rules under policies/suppressions (KV00x) judge them.
type SuppressionFact struct {
	Kind   string   // inline, file, annotation, config
	Text   string   // how it was written, for messages: "kvlint:ignore KV101"
	Where  string   // what it covers, for messages: "on this line", "in this file"
	Rules  []string // the rule IDs it names; empty: every rule
	Reason string   // "" when none was given
	Span   deploy.Span
	// Used is true when it silenced at least one finding; UnusedRules are
	// the IDs in Rules that silenced none; UnknownRules those IDs that are
	// no rule of this run.
	Used         bool
	UnusedRules  []string
	UnknownRules []string
	// Judged is false when whether it was used can't be known, because its
	// file could not be analysed (or, for a config entry, no file it names
	// was checked): then it is not reported as unused.
	Judged  bool
	Until   string // YYYY-MM-DD, config entries only
	Expired bool   // Until is in the past: it no longer silences anything
	// Problem says why the suppression could not be read ("" when it could):
	// a directive without rule IDs, an ID of the wrong form.
	Problem string
}

// EvaluateSuppressions runs the rules about suppressions (KV00x) over the
// facts. A finding points at the suppression (Span) and has Server -1.
func (e *Engine) EvaluateSuppressions(ctx context.Context, facts []SuppressionFact) ([]diag.Diagnostic, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	rs, err := e.eval(ctx, e.suppressionQuery, suppressionInput(facts))
	if err != nil {
		return nil, err
	}
	findings := make([]diag.Diagnostic, 0, len(rs))
	for _, r := range rs {
		name, _ := r.Bindings["pkg"].(string)
		rule, ok := e.suppressionByName[name]
		if !ok {
			return nil, fmt.Errorf("rules: package %s%s returned findings but has no METADATA", suppressionPackagePrefix, name)
		}
		obj, _ := r.Bindings["finding"].(map[string]any)
		msg, _ := obj["msg"].(string)
		i, ok := intField(obj, "suppression")
		if msg == "" || !ok || i < 0 || i >= len(facts) {
			return nil, fmt.Errorf("rules: %s (%s): deny element %v needs a msg and a suppression index below %d", rule.ID, rule.Package, obj, len(facts))
		}
		findings = append(findings, diag.Diagnostic{
			Rule: rule.ID, Severity: rule.Severity, Title: rule.Title, Message: msg,
			Span: facts[i].Span, Server: -1,
		})
	}
	sortFindings(findings)
	return findings, nil
}

// suppressionInput is the input of the KV00x rules (INPUT.md, "Suppressions").
func suppressionInput(facts []SuppressionFact) ast.Value {
	list := make([]*ast.Term, len(facts))
	for i, f := range facts {
		until := ast.NullTerm()
		if f.Until != "" {
			until = ast.StringTerm(f.Until)
		}
		list[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(i)},
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(f.Kind)},
			[2]*ast.Term{ast.StringTerm("text"), ast.StringTerm(f.Text)},
			[2]*ast.Term{ast.StringTerm("where"), ast.StringTerm(f.Where)},
			[2]*ast.Term{ast.StringTerm("rules"), stringsTerm(f.Rules)},
			[2]*ast.Term{ast.StringTerm("reason"), ast.StringTerm(f.Reason)},
			[2]*ast.Term{ast.StringTerm("file"), ast.StringTerm(f.Span.File)},
			[2]*ast.Term{ast.StringTerm("line"), ast.IntNumberTerm(f.Span.Line)},
			[2]*ast.Term{ast.StringTerm("used"), ast.BooleanTerm(f.Used)},
			[2]*ast.Term{ast.StringTerm("unused_rules"), stringsTerm(f.UnusedRules)},
			[2]*ast.Term{ast.StringTerm("unknown_rules"), stringsTerm(f.UnknownRules)},
			[2]*ast.Term{ast.StringTerm("judged"), ast.BooleanTerm(f.Judged)},
			[2]*ast.Term{ast.StringTerm("until"), until},
			[2]*ast.Term{ast.StringTerm("expired"), ast.BooleanTerm(f.Expired)},
			[2]*ast.Term{ast.StringTerm("problem"), ast.StringTerm(f.Problem)},
		)
	}
	return ast.NewObject([2]*ast.Term{ast.StringTerm("suppressions"), ast.ArrayTerm(list...)})
}

func stringsTerm(ss []string) *ast.Term {
	terms := make([]*ast.Term, len(ss))
	for i, s := range ss {
		terms[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(terms...)
}
