package config

import (
	"errors"
	"testing"

	"github.com/kvlint/kvlint/diag"
)

// FuzzParse feeds arbitrary text to the .kvlint.yaml decoder: it must return a
// configuration or an error placed in the file, never panic.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"tenancy: single\nexpected_concurrency: 16\n",
		"models:\n  /models/x: meta-llama/Llama-3.1-8B-Instruct\n",
		"exclude: [\"a/\", \"**/b\"]\nfail_on: medium\n",
		"gpu: [\n",
		"&a [*a, *a]\n",
		"tenancy: 3\n",
		"isolation: {cache_salt: gateway, per_tenant_deployments: true}\ndeployments: {a: {tenancy: single}}\n",
		"deployments: {\"\": {isolation: {external_kv: x}}}\n",
		"ignore:\n  - path: a\n    rules: [KV101, kv101]\n",
		"helm:\n  charts/x: {values: [a.yaml], set: [nope]}\n",
		"gpu: a\n---\ngpu: b\n",
		"expected_concurrency: lots\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("k.yaml", data)
		if err == nil {
			if c == nil {
				t.Fatal("nil config without an error")
			}
			return
		}
		var de *diag.Diagnostic
		if !errors.As(err, &de) {
			t.Fatalf("error %v is not a *diag.Diagnostic", err)
		}
		if de.Span.File != "k.yaml" || de.Span.Line < 1 || de.Span.Col < 1 {
			t.Fatalf("error %q not placed in the file: %+v", de.Message, de.Span)
		}
	})
}
