package rules

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	kvengine "github.com/kvlint/kvlint/engine"
)

// TestPoliciesReadTypedValues: a policy reads the engine's typed value, not
// the text. --enable-dp-attention set by "enable-dp-attention: false" in a
// --config file is not set at all (SGLang passes only true booleans of
// store_true flags on), and on the command line it is true; the policy's
// dp_attention helper agrees with both.
func TestPoliciesReadTypedValues(t *testing.T) {
	read := func(path string) (string, []byte, error) {
		return "cfg/" + path, []byte("enable-dp-attention: false\ndp-size: 2\n"), nil
	}
	launch := func(argv string) *deploy.Server {
		var words []deploy.Value
		for i, w := range strings.Fields(argv) {
			words = append(words, arg("run.sh", 1, 1+10*i, w))
		}
		s, errs, ok := kvengine.Server(words, read)
		if !ok || len(errs) > 0 {
			t.Fatalf("%s: launch %v, errors %v", argv, ok, errs)
		}
		return s
	}
	servers := []*deploy.Server{
		launch("python -m sglang.launch_server --config c.yaml"),
		launch("python -m sglang.launch_server --config c.yaml --enable-dp-attention"),
	}
	if v, ok := servers[1].Args["--enable-dp-attention"]; !ok || v.Typed.Kind() != deploy.KindBool {
		t.Fatalf("--enable-dp-attention: %+v", v)
	}
	est := []capacity.Estimate{{DP: 2}, {DP: 2}}
	input, err := buildInput(servers, est, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := prepareQuery(t, "on := [i | some i, s in input.servers; data.kvlint.rules.pool_below_concurrency.dp_attention(s)]")
	rs, err := q.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval: %v %v", rs, err)
	}
	on := rs[0].Bindings["on"].([]any)
	if fmt.Sprint(on) != "[1]" {
		t.Errorf("DP attention on for servers %v, want only [1] (the flag on the command line)", on)
	}
}
