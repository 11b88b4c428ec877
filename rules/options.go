package rules

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// DefaultTimeout bounds one evaluation of the policies when Options.Timeout
// is not set. The built-in policies take milliseconds on hundreds of servers;
// the bound is for custom policies that loop.
const DefaultTimeout = 10 * time.Second

// Options configure an Engine beyond kvlint's own policies.
type Options struct {
	// PolicyDirs are directories of custom policies (--policy), read
	// recursively: *.rego files other than *_test.rego, under the same
	// conventions as the built-in ones (see loadCustomPolicies).
	PolicyDirs []string
	// Timeout bounds each evaluation (--policy-timeout); 0 means DefaultTimeout.
	Timeout time.Duration
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// PolicyError is a custom policy kvlint cannot use: it does not parse,
// breaks the conventions, calls a forbidden builtin or does not compile.
// It is the user's to fix, so the CLI reports it as a usage error.
type PolicyError struct{ Err error }

func (e *PolicyError) Error() string { return e.Err.Error() }
func (e *PolicyError) Unwrap() error { return e.Err }

// eval runs a prepared query under the engine's timeout.
func (e *Engine) eval(parent context.Context, q rego.PreparedEvalQuery, input ast.Value) (rego.ResultSet, error) {
	ctx, cancel := context.WithTimeout(parent, e.timeout)
	defer cancel()
	rs, err := q.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("rules: the policies did not finish within %s (--policy-timeout); a custom policy may loop or do too much work", e.timeout)
		}
		return nil, fmt.Errorf("rules: evaluating policies: %w", err)
	}
	return rs, nil
}
