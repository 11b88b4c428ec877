package config

import "testing"

// FuzzParse feeds arbitrary text to the .kvlint.yaml decoder: it must return a
// configuration or an error naming the file, never panic.
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
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("k.yaml", data)
		if err == nil && c == nil {
			t.Fatal("nil config without an error")
		}
	})
}
