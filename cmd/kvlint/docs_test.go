package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRuleDocsAreFresh fails when docs/rules no longer matches the rules'
// METADATA: a page is missing, differs, or belongs to a rule that is gone.
// The SARIF helpUri of every rule points at these pages.
func TestRuleDocsAreFresh(t *testing.T) {
	rs, err := loadRules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ruleDocs(rs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", ruleDocsDir)
	const fix = "docs/rules is stale: run `go run ./cmd/kvlint docs` from the repository root and commit the result"
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, fix)
			continue
		}
		if string(got) != string(data) {
			t.Errorf("%s differs from what the METADATA generates\n%s", name, fix)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok && rulePagePattern.MatchString(e.Name()) {
			t.Errorf("%s: no rule has this ID any more\n%s", e.Name(), fix)
		}
	}
}

// The generator writes every page, removes pages of rules that are gone and
// leaves other files alone.
func TestDocsCommand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"KV999.md", "notes.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut stringWriter
	if code := run([]string{"docs", dir}, &out, &errOut); code != 0 {
		t.Fatalf("kvlint docs: exit %d: %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, want := range []string{"KV101.md", "KV405.md", "README.md", "notes.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	if slices.Contains(names, "KV999.md") {
		t.Errorf("the page of a rule that does not exist was kept: %v", names)
	}
}

func TestClosestRule(t *testing.T) {
	rs, err := loadRules(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string]string{
		"KV11": "KV101", "KV1O1": "KV101", "KV4055": "KV405", "KV10": "KV101", "POOL": "", "KV9999": "",
	} {
		if got := closestRule(typed, rs); got != want {
			t.Errorf("closestRule(%q) = %q, want %q", typed, got, want)
		}
	}
}

type stringWriter struct{ b []byte }

func (w *stringWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *stringWriter) String() string              { return string(w.b) }
