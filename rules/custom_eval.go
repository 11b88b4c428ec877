package rules

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// evaluateCustom runs one custom rule's deny set over input. A rule that
// fails (a builtin error such as to_number of a word that is no number,
// a timeout) yields no findings: it adds an input error at the place in the
// policy OPA names to errs, and the other rules' findings stand. The
// results carry the rule's package name as the pkg binding the shared
// query would have given.
func (e *Engine) evaluateCustom(ctx context.Context, c customQuery, input ast.Value, errs *[]diag.Diagnostic) rego.ResultSet {
	rs, err := e.eval(ctx, c.query, input)
	if err != nil {
		if ctx.Err() != nil {
			return nil // the run is being cancelled: not the policy's fault
		}
		*errs = append(*errs, *policyFailure(c, err))
		return nil
	}
	name := strings.TrimPrefix(c.rule.Package, rulePackagePrefix)
	for i := range rs {
		rs[i].Bindings = rego.Vars{"pkg": name, "finding": rs[i].Bindings["finding"]}
	}
	return rs
}

// policyFailure is the input error for a custom rule that failed: at the
// expression OPA reports (topdown.Error's Location, v1/topdown/errors.go),
// else (a timeout) at the rule's first deny rule.
func policyFailure(c customQuery, err error) *diag.Diagnostic {
	r := c.rule
	span := c.deny
	msg := err.Error()
	var te *topdown.Error
	if errors.As(err, &te) {
		msg = te.Message
		if te.Location != nil && te.Location.File != "" {
			span = deploy.Span{File: te.Location.File, Line: te.Location.Row, Col: te.Location.Col,
				EndLine: te.Location.Row, EndCol: te.Location.Col + len(te.Location.Text)}
		}
	}
	msg = strings.TrimPrefix(msg, "rules: ")
	return diag.Errorf(span, "policy %s (%s) failed, so it was not applied: %s", r.ID, r.Package, msg)
}

// policyErrorKey dedups the same failure met in several batches.
func policyErrorKey(d diag.Diagnostic) string {
	return fmt.Sprintf("%s\x00%s", d.Span, d.Message)
}
