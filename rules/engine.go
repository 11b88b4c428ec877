package rules

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// Settings are the facts about a deployment that no launch command states.
type Settings struct {
	Tenancy deploy.Tenancy
	// ExpectedConcurrency is how many requests one server is expected to run
	// at once (.kvlint.yaml); 0 means not declared.
	ExpectedConcurrency int
	// Deployments group the servers (deploy.Group) with each group's tenancy
	// and isolation. Nil: every server is its own deployment with Tenancy.
	Deployments []deploy.Deployment
}

// Rule describes one policy, from its METADATA.
type Rule struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Severity    string   `json:"severity"` // the default; a finding may raise or lower it
	Description string   `json:"description"`
	Remediation string   `json:"remediation"`
	References  []string `json:"references,omitempty"`
	Package     string   `json:"package"` // kvlint.rules.<name> (kvlint.suppressions.<name> for KV00x, kvlint.coverage.<name> for KV5xx)
	// File is the policy file of a custom rule (--policy); "" for kvlint's own.
	File string `json:"file,omitempty"`
	// StopsStart is the lowest severity at which the rule's findings mean
	// the server does not start (argparse exits, the engine raises while
	// it sizes its pools); 0 when none of them does. METADATA
	// custom.stops_start: true (every finding) or a severity name (a rule
	// whose findings at that severity or above are the fatal ones, such as
	// KV404's removed flags among its deprecated ones).
	StopsStart diag.Severity `json:"-"`
	// Assumes names what a finding of the rule rests on when the
	// configuration does not declare it: "tenancy" for a rule that fires
	// only because tenants are taken to share the deployment. The text
	// report says such a finding once per deployment. METADATA
	// custom.assumes.
	Assumes string `json:"-"`
}

// AssumesTenancy is Rule.Assumes for a rule whose findings exist because
// the deployment's tenancy is taken to be multi when not declared.
const AssumesTenancy = "tenancy"

// Stops reports whether the finding f, made by r, means its server does not
// start.
func (r Rule) Stops(f diag.Diagnostic) bool {
	return r.StopsStart.Valid() && f.AtLeast(r.StopsStart)
}

// Engine holds the compiled policies. It is safe for concurrent use, and
// Evaluate does no compiling: build one Engine per process.
type Engine struct {
	rules  []Rule           // sorted by ID
	byName map[string]*Rule // last package segment → rule, under kvlint.rules
	query  rego.PreparedEvalQuery
	// The rules about suppressions (KV00x), judged by EvaluateSuppressions.
	suppressionByName map[string]*Rule
	suppressionQuery  rego.PreparedEvalQuery
	// The rules about what kvlint could not see (KV5xx), judged by
	// EvaluateCoverage.
	coverageByName map[string]*Rule
	coverageQuery  rego.PreparedEvalQuery
	timeout        time.Duration // bounds each evaluation
	// custom are the --policy rules, each evaluated on its own
	// (evaluateCustom): an error in one is an error at that policy, and
	// every other rule's findings survive it.
	custom []customQuery
	// customSources are the custom modules' texts by file, for the worker
	// process that evaluates them (custom_worker.go).
	customSources map[string]string
}

// customQuery is one custom rule's deny set, prepared.
type customQuery struct {
	rule  *Rule
	query rego.PreparedEvalQuery
	// deny is where the module's first deny rule is: the place of an
	// error when the worker evaluating it was stopped and OPA could not
	// say which expression was running.
	deny deploy.Span
}

// denyQuery collects every rule's deny set in one evaluation; pkg binds the
// rule package's name.
const denyQuery = "data.kvlint.rules[pkg].deny[finding]"

// suppressionQuery collects the deny sets of the rules about suppressions.
const suppressionQuery = "data.kvlint.suppressions[pkg].deny[finding]"

// coverageQuery collects the deny sets of the rules about coverage.
const coverageQuery = "data.kvlint.coverage[pkg].deny[finding]"

// New parses and compiles the embedded policies, and the custom policies of
// opts (at most one Options; none means the built-in policies only), and
// prepares the queries. It fails when a policy breaks the layout conventions
// (see ruleFromModule); a failure caused by a custom policy is a
// *PolicyError.
func New(ctx context.Context, opts ...Options) (*Engine, error) {
	if len(opts) > 1 {
		return nil, fmt.Errorf("rules: New takes at most one Options, got %d", len(opts))
	}
	var opt Options
	if len(opts) == 1 {
		opt = opts[0]
	}
	set, err := parsePolicies(policyFS, "policies")
	if err != nil {
		return nil, err
	}
	e := &Engine{byName: map[string]*Rule{}, suppressionByName: map[string]*Rule{}, coverageByName: map[string]*Rule{}, timeout: opt.timeout()}
	ids := map[string]string{}
	for _, file := range set.ruleFiles() {
		r, err := ruleFromModule(file, set.modules[file])
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		if prev, dup := ids[r.ID]; dup {
			return nil, fmt.Errorf("rules: %s: id %s is already used by %s", file, r.ID, prev)
		}
		ids[r.ID] = file
		e.rules = append(e.rules, r)
	}
	custom, err := loadCustomPolicies(opt.PolicyDirs, set.modules)
	if err != nil {
		return nil, err
	}
	for _, r := range custom.rules {
		if prev, dup := ids[r.ID]; dup {
			return nil, &PolicyError{fmt.Errorf("%s: METADATA custom.id %s is already used by %s", r.File, r.ID, prev)}
		}
		ids[r.ID] = r.File
		e.rules = append(e.rules, r)
	}
	slices.SortFunc(e.rules, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	for i := range e.rules {
		r := &e.rules[i]
		if name, ok := strings.CutPrefix(r.Package, suppressionPackagePrefix); ok {
			e.suppressionByName[name] = r
		} else if name, ok := strings.CutPrefix(r.Package, coveragePackagePrefix); ok {
			e.coverageByName[name] = r
		} else {
			e.byName[strings.TrimPrefix(r.Package, rulePackagePrefix)] = r
		}
	}

	modules := maps.Clone(set.modules)
	maps.Copy(modules, custom.modules)
	compiler := newCompiler()
	if compiler.Compile(modules); compiler.Failed() {
		err := fmt.Errorf("compiling policies: %w", compiler.Errors)
		if len(custom.modules) > 0 {
			return nil, &PolicyError{err}
		}
		return nil, fmt.Errorf("rules: %w", err)
	}
	// kvlint's own rules are evaluated together, compiled without the
	// custom modules, so that a custom rule's error cannot stop them.
	builtinCompiler := compiler
	if len(custom.modules) > 0 {
		builtinCompiler = newCompiler()
		if builtinCompiler.Compile(set.modules); builtinCompiler.Failed() {
			return nil, fmt.Errorf("rules: compiling policies: %w", builtinCompiler.Errors)
		}
		for _, r := range custom.rules {
			name := strings.TrimPrefix(r.Package, rulePackagePrefix)
			q, err := prepare(ctx, compiler, "data."+rulePackagePrefix+name+".deny[finding]")
			if err != nil {
				return nil, &PolicyError{err}
			}
			e.custom = append(e.custom, customQuery{rule: e.byName[name], query: q, deny: denySpan(r.File, custom.modules[r.File])})
		}
		e.customSources = custom.sources
	}
	if e.query, err = prepare(ctx, builtinCompiler, denyQuery); err != nil {
		return nil, err
	}
	if e.suppressionQuery, err = prepare(ctx, builtinCompiler, suppressionQuery); err != nil {
		return nil, err
	}
	if e.coverageQuery, err = prepare(ctx, builtinCompiler, coverageQuery); err != nil {
		return nil, err
	}
	return e, nil
}

func prepare(ctx context.Context, compiler *ast.Compiler, query string) (rego.PreparedEvalQuery, error) {
	q, err := rego.New(
		rego.Query(query),
		rego.Compiler(compiler),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return q, fmt.Errorf("rules: preparing %s: %w", query, err)
	}
	return q, nil
}

// newCompiler is the compiler every policy runs under, in the engine and in
// the Rego tests: Rego v1, strict, and without builtins that reach outside
// or depend on the clock or chance (see forbiddenBuiltin).
func newCompiler() *ast.Compiler {
	return ast.NewCompiler().
		WithCapabilities(restrictedCapabilities()).
		WithStrict(true).
		WithDefaultRegoVersion(ast.RegoV1)
}

func restrictedCapabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	caps.Builtins = slices.DeleteFunc(slices.Clone(caps.Builtins), func(b *ast.Builtin) bool {
		return forbiddenBuiltin(b) != ""
	})
	caps.AllowNet = []string{}
	return caps
}

// Rules lists the rules, sorted by ID.
func (e *Engine) Rules() []Rule { return slices.Clone(e.rules) }

// Rule returns the rule with the given ID.
func (e *Engine) Rule(id string) (Rule, bool) {
	i := slices.IndexFunc(e.rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return e.rules[i], true
}

// Evaluate runs every rule over the servers. est[i] is the capacity estimate
// of servers[i]. Findings come sorted by file, line, column and rule. A
// custom rule that fails adds an input error (no Rule) at the failing
// expression of its policy instead of findings; the other rules' findings
// are kept.
//
// Cancelling ctx stops a running evaluation, and so does the engine's
// timeout (Options.Timeout): a policy that loops cannot hang a CI job.
func (e *Engine) Evaluate(ctx context.Context, servers []*deploy.Server, est []capacity.Estimate, s Settings) ([]diag.Diagnostic, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	bs, err := batches(servers, est, s)
	if err != nil {
		return nil, err
	}
	findings, err := e.evaluateBatches(ctx, bs, s)
	if err != nil {
		return nil, err
	}
	if findings == nil {
		findings = []diag.Diagnostic{}
	}
	sortFindings(findings)
	return findings, nil
}

// finding turns one deny object into a finding, resolving what it points at
// into a span: "issue" → that flag issue as written, "at": "image" → the
// container image, "at": "release" → the pin of the server's release (else
// its image), "at": "model" → the model as written (vllm serve's
// positional model is no flag "arg" can name), "arg" → the value of that
// flag, neither (or an absent flag, image or model) → the launch command.
func (e *Engine) finding(rule *Rule, raw any, servers []*deploy.Server) (diag.Diagnostic, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return diag.Diagnostic{}, fmt.Errorf("deny element %v is not an object", raw)
	}
	msg, _ := obj["msg"].(string)
	if strings.TrimSpace(msg) == "" {
		return diag.Diagnostic{}, fmt.Errorf("deny element %v has no msg", raw)
	}
	idx, ok := intField(obj, "server")
	if !ok || idx < 0 || idx >= len(servers) {
		return diag.Diagnostic{}, fmt.Errorf("deny element %v: server must be an index below %d", raw, len(servers))
	}
	srv := servers[idx]
	f := diag.Diagnostic{Rule: rule.ID, Severity: rule.Severity, Title: rule.Title, Message: msg, Span: srv.Span, Server: idx}

	if sevText, present := obj["severity"]; present {
		s, _ := sevText.(string)
		sev, err := diag.ParseSeverity(s)
		if err != nil {
			return diag.Diagnostic{}, fmt.Errorf("deny element %v: %w", raw, err)
		}
		f.Severity = sev.String()
	}

	if _, present := obj["issue"]; present {
		k, ok := intField(obj, "issue")
		if !ok || k < 0 || k >= len(srv.FlagIssues) {
			return diag.Diagnostic{}, fmt.Errorf("deny element %v: issue must be an index below %d", raw, len(srv.FlagIssues))
		}
		if span := srv.FlagIssues[k].Span; !span.IsZero() {
			f.Span = span
		}
		f.Arg = srv.FlagIssues[k].Flag
		return f, nil
	}
	switch at, _ := obj["at"].(string); at {
	case "image":
		if !srv.Image.Span.IsZero() {
			f.Span = srv.Image.Span
			f.Origin = srv.Image.Origin
		}
		return f, nil
	case "release":
		// Where the release was read: the pin in a file, else the image.
		switch {
		case !srv.Release.Span.IsZero():
			f.Span = srv.Release.Span
		case !srv.Image.Span.IsZero():
			f.Span = srv.Image.Span
			f.Origin = srv.Image.Origin
		}
		return f, nil
	case "model":
		if !srv.Model.Span.IsZero() {
			f.Span = srv.Model.Span
			f.Origin = srv.Model.Origin
		}
		return f, nil
	}
	if arg, _ := obj["arg"].(string); arg != "" {
		if v, ok := srv.Args[arg]; ok && !v.Span.IsZero() {
			f.Span = v.Span
			f.Origin = v.Origin
			f.Arg = arg
		}
	}
	return f, nil
}

// intField reads an integral number from a result object (numbers arrive as
// json.Number).
func intField(obj map[string]any, key string) (int, bool) {
	n, ok := obj[key].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		return 0, false
	}
	return int(i), true
}

// sortFindings orders findings by position, then rule, then server and
// message, so equal inputs always print in the same order.
func sortFindings(fs []diag.Diagnostic) {
	slices.SortFunc(fs, func(a, b diag.Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Span.File, b.Span.File),
			cmp.Compare(a.Span.Line, b.Span.Line),
			cmp.Compare(a.Span.Col, b.Span.Col),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Server, b.Server),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
