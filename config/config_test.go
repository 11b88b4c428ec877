package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	c, err := Parse("k.yaml", []byte("tenancy: single\nexpected_concurrency: 16\ngpu: H100\nmodels:\n  /models/llama: meta-llama/Llama-3.1-8B-Instruct\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tenancy != "single" || c.ExpectedConcurrency != 16 || c.GPU != "H100" || c.Models["/models/llama"] == "" {
		t.Errorf("parsed %+v", c)
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"tennancy: multi\n", `k.yaml:1:1: unknown key "tennancy" (known keys: deployments, engine_release, exclude, expected_concurrency, fail_on, gpu, helm, hf_cache, ignore, images, isolation, models, tenancy, workload)`},
		{"gpu: H100\ntenancy: shared\n", `k.yaml:2:10: tenancy must be "multi" or "single"`},
		{"expected_concurrency: -1\n", "k.yaml:1:23: expected_concurrency must not be negative"},
		{"expected_concurrency: lots\n", "k.yaml:1:23: cannot unmarshal !!str `lots` into int"},
		{"tenancy: single\ngpu: [a, b]\n", "k.yaml:2:6: cannot unmarshal !!seq into string"},
		{"gpu: [\n", "k.yaml:1:1: invalid YAML: did not find expected node content"},
		{"gpu: a\n---\ngpu: b\n", "k.yaml:2:1: .kvlint.yaml holds one YAML document; this is a second one"},
	} {
		_, err := Parse("k.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.text, err, tc.want)
		}
	}
}

func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, FileName), []byte("tenancy: single\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Find(deep)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tenancy != "single" || c.Dir != root {
		t.Errorf("Find = %+v", c)
	}
}
