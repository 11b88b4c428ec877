package rules

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/worker"
)

// Custom policies are code from the checked repository's owner or, in a
// pull request, from a stranger: a deny rule can build a string by
// doubling it in a comprehension or ask numbers.range(1, 1e11) for a
// list of a hundred billion numbers, and OPA allocates what it is asked.
// The per-evaluation timeout cannot stop that: memory runs out first and
// a Go runtime out of memory ends the whole run. So custom rules are
// evaluated in a worker process (internal/worker) with bounded memory,
// CPU and wall-clock time; a rule that exhausts them is an error at its
// deny rule and every other rule's findings survive. kvlint's own rules
// stay in process: they are kvlint's code.

const regoWorker = "rego"

func init() { worker.Handle(regoWorker, serveRego) }

// regoRequest is one batch's input for some custom rules.
type regoRequest struct {
	Sources  map[string]string // the custom modules' texts by file
	Packages []string          // the rules' packages, kvlint.rules.<name>
	Input    []byte            // the Rego input, as JSON
	Timeout  time.Duration     // for each rule, as in process
}

// regoAnswer is one rule's outcome: its deny objects as JSON, or why it
// failed.
type regoAnswer struct {
	Findings []byte
	Err      *regoError
}

// regoError is a topdown.Error (or another failure) sent across.
type regoError struct {
	Message  string
	File     string
	Row, Col int
	Text     string
	Topdown  bool
}

func (e *regoError) error() error {
	if !e.Topdown {
		return errors.New(e.Message)
	}
	te := &topdown.Error{Message: e.Message}
	if e.File != "" {
		te.Location = &ast.Location{File: e.File, Row: e.Row, Col: e.Col, Text: []byte(e.Text)}
	}
	return te
}

// evaluateCustomRules runs every custom rule over one batch's input: in a
// worker process where one can run, else in process. Failures are added
// to errs, at the policy.
func (e *Engine) evaluateCustomRules(ctx context.Context, input ast.Value, errs *[]diag.Diagnostic) rego.ResultSet {
	if len(e.custom) == 0 {
		return nil
	}
	if worker.Available() {
		if rs, ok := e.customInWorker(ctx, e.custom, input, errs); ok {
			return rs
		}
	}
	var rs rego.ResultSet
	for _, c := range e.custom {
		rs = append(rs, e.evaluateCustom(ctx, c, input, errs)...)
	}
	return rs
}

// customInWorker evaluates cs in one worker. When the worker is stopped
// by a limit and more than one rule was in it, each rule is run again in
// a worker of its own, so only the rule that exhausted the limit fails.
// ok is false when no worker could be started.
func (e *Engine) customInWorker(ctx context.Context, cs []customQuery, input ast.Value, errs *[]diag.Diagnostic) (rego.ResultSet, bool) {
	v, err := ast.JSON(input)
	if err != nil {
		return nil, false // not JSON: evaluate in process
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	req := regoRequest{Sources: e.customSources, Input: data, Timeout: e.timeout}
	for _, c := range cs {
		req.Packages = append(req.Packages, c.rule.Package)
	}
	// Each rule may use its whole timeout; compiling the policies again
	// in the child takes the rest.
	lim := worker.LimitsFor(time.Duration(len(cs))*e.timeout + 30*time.Second)
	var answers []regoAnswer
	err = worker.Call(ctx, regoWorker, lim, req, &answers)
	if errors.Is(err, worker.ErrUnavailable) {
		return nil, false
	}
	var le *worker.LimitError
	switch {
	case ctx.Err() != nil:
		return nil, true // the run is being cancelled: not the policy's fault
	case errors.As(err, &le) && len(cs) > 1:
		var rs rego.ResultSet
		for _, c := range cs {
			r, _ := e.customInWorker(ctx, []customQuery{c}, input, errs)
			rs = append(rs, r...)
		}
		return rs, true
	case err != nil:
		for _, c := range cs {
			d := diag.Errorf(c.deny, "policy %s (%s) was stopped, so it was not applied: %v", c.rule.ID, c.rule.Package, err)
			*errs = append(*errs, *d)
		}
		return nil, true
	case len(answers) != len(cs):
		for _, c := range cs {
			d := diag.Errorf(c.deny, "policy %s (%s) was not applied: the worker evaluating it gave %d answers for %d rules", c.rule.ID, c.rule.Package, len(answers), len(cs))
			*errs = append(*errs, *d)
		}
		return nil, true
	}
	var rs rego.ResultSet
	for i, c := range cs {
		a := answers[i]
		if a.Err != nil {
			*errs = append(*errs, *policyFailure(c, a.Err.error()))
			continue
		}
		var findings []any
		dec := json.NewDecoder(bytes.NewReader(a.Findings))
		dec.UseNumber() // as rego.ResultSet holds numbers (json.Number)
		if err := dec.Decode(&findings); err != nil {
			*errs = append(*errs, *policyFailure(c, fmt.Errorf("reading its findings: %w", err)))
			continue
		}
		name := c.rule.Package[len(rulePackagePrefix):]
		for _, f := range findings {
			rs = append(rs, rego.Result{Bindings: rego.Vars{"pkg": name, "finding": f}})
		}
	}
	return rs, true
}

// serveRego is the worker's side: it compiles kvlint's policies with the
// custom modules sent, exactly as New does, and evaluates each rule asked
// for under the timeout.
func serveRego(dec *gob.Decoder, enc *gob.Encoder) error {
	var req regoRequest
	if err := dec.Decode(&req); err != nil {
		return err
	}
	answers, err := evaluateSent(req)
	if err != nil {
		return err
	}
	return enc.Encode(answers)
}

func evaluateSent(req regoRequest) ([]regoAnswer, error) {
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		return nil, err
	}
	modules := maps.Clone(set.modules)
	for name, src := range req.Sources {
		mod, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		modules[name] = mod
	}
	compiler := newCompiler()
	if compiler.Compile(modules); compiler.Failed() {
		return nil, fmt.Errorf("compiling policies: %w", compiler.Errors)
	}
	var raw any
	if err := json.Unmarshal(req.Input, &raw); err != nil {
		return nil, err
	}
	input, err := ast.InterfaceToValue(raw)
	if err != nil {
		return nil, err
	}
	e := &Engine{timeout: req.Timeout}
	ctx := context.Background()
	answers := make([]regoAnswer, len(req.Packages))
	for i, pkg := range req.Packages {
		q, err := prepare(ctx, compiler, "data."+pkg+".deny[finding]")
		if err != nil {
			// This rule's failure, not the batch's: the other rules'
			// findings survive.
			answers[i].Err = sendable(err)
			continue
		}
		rs, err := e.eval(ctx, q, input)
		if err != nil {
			answers[i].Err = sendable(err)
			continue
		}
		findings := make([]any, len(rs))
		for j, r := range rs {
			findings[j] = r.Bindings["finding"]
		}
		if answers[i].Findings, err = json.Marshal(findings); err != nil {
			answers[i].Err = sendable(err)
		}
	}
	return answers, nil
}

// sendable keeps what policyFailure reads of an evaluation error.
func sendable(err error) *regoError {
	var te *topdown.Error
	if errors.As(err, &te) {
		r := &regoError{Message: te.Message, Topdown: true}
		if te.Location != nil {
			r.File, r.Row, r.Col, r.Text = te.Location.File, te.Location.Row, te.Location.Col, string(te.Location.Text)
		}
		return r
	}
	return &regoError{Message: err.Error()}
}
