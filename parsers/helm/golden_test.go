package helm

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected renders under testdata/rendered")

// The rendered manifests are what `helm template` prints for the fixtures
// (the engine is Helm's own; these files were reviewed when written). Run
// `go test ./parsers/helm -run TestTemplateOutput -update` after changing a
// fixture chart.
func TestTemplateOutput(t *testing.T) {
	tests := []struct {
		name   string
		chart  string
		values []string
		set    []string
	}{
		{"sglang-pd", "sglang-pd", nil, nil},
		{"sglang-pd-dev", "sglang-pd", []string{"values-dev.yaml"}, nil},
		{"sglang-pd-prod", "sglang-pd", []string{"values-prod.yaml"}, nil},
		{"sglang-pd-prod-set", "sglang-pd", []string{"values-prod.yaml"}, []string{"decode.maxTotalTokens=65536,decode.extraArgs=null"}},
		{"with-subchart", "with-subchart", nil, nil},
		{"computed", "computed", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "charts", tc.chart)
			r := Release{Chart: dir}
			for _, v := range tc.values {
				r.Values = append(r.Values, Values{File: filepath.Join(dir, v)})
			}
			for _, s := range tc.set {
				r.Set = append(r.Set, Set{Expr: s})
			}
			got, errs := Template(r)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			golden := filepath.Join("testdata", "rendered", tc.name+".yaml")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("render differs from %s:\n%s", golden, got)
			}
		})
	}
}
