package config

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
)

// Workload is `workload:` in .kvlint.yaml, at the top level or under a
// deployment: the traffic the deployment is meant to carry, which verify
// runs it at.
//
//	workload:
//	  concurrency: 32                         # requests in flight at peak
//	  prompt_tokens: {median: 2000, max: 8000}
//	  output_tokens: {median: 300, max: 1000}
//	  tenants: 16
//
// Every key is required: a half-declared workload would be completed by
// guesses that then read as the user's.
type Workload struct {
	W deploy.Workload
	// Line and Column are where the mapping starts, for messages.
	Line, Column int
	set          bool
}

// Bounds of a declared workload: beyond these a run would take minutes, and
// no context window is longer than maxWorkloadTokens.
const (
	maxWorkloadConcurrency = 4096
	// The runtime generates at most 64 tenants (verify/workload.go
	// maxTenants); a larger count would be run as 64 while verify says it
	// ran the declared load.
	maxWorkloadTenants = 64
	maxWorkloadTokens  = 10_000_000
)

// UnmarshalYAML reads the mapping, each mistake placed on its node.
func (w *Workload) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nodeErrorf(n, "workload must be a mapping with concurrency, prompt_tokens, output_tokens and tenants")
	}
	out := Workload{Line: n.Line, Column: n.Column, set: true}
	out.W.Source = deploy.WorkloadDeclared
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return nodeErrorf(k, "workload.%s is given twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "concurrency":
			c, err := positiveInt(v, "workload.concurrency", maxWorkloadConcurrency)
			if err != nil {
				return err
			}
			out.W.Concurrency = c
		case "tenants":
			t, err := positiveInt(v, "workload.tenants", maxWorkloadTenants)
			if err != nil {
				return err
			}
			out.W.Tenants = t
		case "prompt_tokens", "output_tokens":
			d, err := tokenDist(v, "workload."+k.Value)
			if err != nil {
				return err
			}
			if k.Value == "prompt_tokens" {
				out.W.Prompt = d
			} else {
				out.W.Output = d
			}
		default:
			return nodeErrorf(k, "workload: unknown key %q (concurrency, prompt_tokens, output_tokens, tenants)", k.Value)
		}
	}
	for _, key := range []string{"concurrency", "prompt_tokens", "output_tokens", "tenants"} {
		if !seen[key] {
			return nodeErrorf(n, "workload: %s is missing; declare concurrency, prompt_tokens, output_tokens and tenants", key)
		}
	}
	*w = out
	return nil
}

func positiveInt(v *yaml.Node, what string, limit int) (int, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, nodeErrorf(v, "%s must be a whole number", what)
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil || n < 1 || n > limit {
		return 0, nodeErrorf(v, "%s must be a whole number from 1 to %d, not %q", what, limit, v.Value)
	}
	return n, nil
}

// tokenDist reads {median: M, max: X}.
func tokenDist(n *yaml.Node, what string) (deploy.TokenDist, error) {
	var d deploy.TokenDist
	if n.Kind != yaml.MappingNode {
		return d, nodeErrorf(n, "%s must be a mapping {median: N, max: N}", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return d, nodeErrorf(k, "%s.%s is given twice", what, k.Value)
		}
		seen[k.Value] = true
		x, err := positiveInt(v, what+"."+k.Value, maxWorkloadTokens)
		if err != nil {
			return d, err
		}
		switch k.Value {
		case "median":
			d.Median = x
		case "max":
			d.Max = x
			if d.Median > 0 && x < d.Median {
				return d, nodeErrorf(v, "%s.max (%d) must not be below its median (%d)", what, x, d.Median)
			}
		default:
			return d, nodeErrorf(k, "%s: unknown key %q (median, max)", what, k.Value)
		}
	}
	if !seen["median"] || !seen["max"] {
		return d, nodeErrorf(n, "%s needs both median and max", what)
	}
	if d.Max < d.Median {
		return d, nodeErrorf(n, "%s.max (%d) must not be below its median (%d)", what, d.Max, d.Median)
	}
	return d, nil
}

// Where is the mapping's position: ".kvlint.yaml:3:3".
func (w Workload) Where(path string) string {
	return fmt.Sprintf("%s:%d:%d", path, w.Line, w.Column)
}
