package benchrepo

import (
	"context"
	"testing"

	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/rules"
)

// A small repository is what kvlint expects of the generator: every file
// parses, there are servers in every format and some findings.
func TestGenerateParsesCleanly(t *testing.T) {
	dir := t.TempDir()
	st, err := Generate(dir, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files < 300 || st.Kubernetes == 0 || st.Scripts == 0 || st.Charts == 0 || st.Modules == 0 {
		t.Fatalf("stats %+v", st)
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("generated file does not parse: %v", e)
	}
	if len(res.Servers) < 50 || len(res.Findings) == 0 {
		t.Errorf("%d servers, %d findings", len(res.Servers), len(res.Findings))
	}
}
