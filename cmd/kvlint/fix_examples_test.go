package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/edit"
	"github.com/kvlint/kvlint/rules"
)

// noLiteralFix names each finding on examples/ of a fixed rule family
// that carries no writable fix, with the reason none can exist. Anything
// else without one fails TestExamplesFixesMakeTheirFindingsDisappear; an
// entry that no longer matches a finding fails it too, so the list cannot
// grow stale.
var noLiteralFix = map[exampleFinding]string{
	// KV105 asks for the GPU the server runs on. Neither file names it
	// (compose reserves "count: 2" nvidia devices, of no model), and no
	// file in the tree does: any value written would be invented. Its
	// fixes are what-ifs (the pool on each GPU tried), which kvlint fix
	// neither applies nor refuses.
	{"KV105", "scripts/Dockerfile", "scripts/Dockerfile:6", ""}: "the GPU is not written anywhere in the tree",
	{"KV105", "scripts/compose.yaml", "sglang", ""}:             "the GPU is not written anywhere in the tree",
}

// exampleFinding knows a finding across two runs on different copies:
// by rule, file, server (relative to the copy) and the flag it names.
type exampleFinding struct{ rule, file, server, arg string }

func (k exampleFinding) String() string {
	return strings.TrimSpace(k.rule + " " + k.file + " " + k.server + " " + k.arg)
}

var severityRank = map[string]int{"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

// fixedFamily reports whether every finding of rule must carry a fix:
// capacity (KV1xx), disaggregation (KV2xx) and flags (KV4xx).
func fixedFamily(rule string) bool {
	return strings.HasPrefix(rule, "KV1") || strings.HasPrefix(rule, "KV2") || strings.HasPrefix(rule, "KV4")
}

// copyExamples copies examples/ into a new temporary directory.
func copyExamples(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkDir runs check over dir as `kvlint check DIR` does: the nearest
// configuration, and each directory's own below it.
func checkDir(t *testing.T, engine *rules.Engine, dir string) *analysis.Result {
	t.Helper()
	paths := []string{dir}
	cfg, err := config.FindFor(dir, paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: paths, Config: cfg, NestedConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("checking %s: %v", dir, res.Errors)
	}
	return res
}

func keyIn(res *analysis.Result, d diag.Diagnostic, root string) exampleFinding {
	server := ""
	if d.Server >= 0 && d.Server < len(res.Servers) {
		// A script's server is named by its path and line.
		server = filepath.ToSlash(strings.TrimPrefix(res.Servers[d.Server].Name, root+string(filepath.Separator)))
	}
	rel, _ := filepath.Rel(root, d.Span.File)
	return exampleFinding{d.Rule, filepath.ToSlash(rel), server, d.Arg}
}

// writeFixes applies the first writable fix of each finding of res the
// way `kvlint fix --write` does (planFixes, then edit.Tree.Write), and
// fails on a refusal.
func writeFixes(t *testing.T, res *analysis.Result, dir string) *fixPlan {
	t.Helper()
	tree := edit.NewTree([]string{dir})
	plan := planFixes(res, nil, tree)
	for _, r := range plan.refused {
		t.Errorf("%s %s: refused: %s", r.finding.Span, r.finding.Rule, r.reason)
	}
	for _, name := range plan.names() {
		f := plan.files[name]
		if err := tree.Write(f.file.Name, f.after); err != nil {
			t.Fatal(err)
		}
	}
	return plan
}

// TestExamplesFixesMakeTheirFindingsDisappear holds issue 18's promise on
// examples/: every capacity, disaggregation and flag finding carries a
// fix that `kvlint fix --write` can apply; applied alone to a copy, each
// fix makes its finding disappear and brings no finding more severe than
// it; and all of them applied together, as one `kvlint fix --write`
// does, leave none of those findings behind.
func TestExamplesFixesMakeTheirFindingsDisappear(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline twice per fix")
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	base := copyExamples(t)
	res := checkDir(t, engine, base)
	before := map[exampleFinding]bool{}
	for _, d := range res.Findings {
		before[keyIn(res, d, base)] = true
	}
	exempt := map[exampleFinding]bool{}
	type fixAt struct {
		finding int // index in the findings of a fresh run
		fix     int
	}
	var tries []fixAt
	for i, d := range res.Findings {
		if !fixedFamily(d.Rule) || d.Suppression != nil {
			continue
		}
		k := keyIn(res, d, base)
		writable := 0
		for j, f := range d.Fixes {
			if f.Unwritable == "" && len(f.Replacements) > 0 {
				writable++
				tries = append(tries, fixAt{i, j})
			}
		}
		if why, ok := noLiteralFix[k]; ok {
			exempt[k] = true
			if writable > 0 {
				t.Errorf("%s now has a writable fix: drop it from noLiteralFix (%s)", k, why)
			}
			continue
		}
		if writable == 0 {
			t.Errorf("%s at %s: no writable fix (%d described): %s", k, d.Span, len(d.Fixes), d.Message)
		}
	}
	for k := range noLiteralFix {
		if !exempt[k] {
			t.Errorf("noLiteralFix names %s, which no run finds", k)
		}
	}
	if len(tries) == 0 {
		t.Fatal("no writable fix on examples/")
	}

	// gone checks that finding k (of severity sev) is not in after and
	// that no finding more severe than it is new.
	gone := func(what string, k exampleFinding, sev string, after *analysis.Result, dir string) {
		t.Helper()
		for _, e := range after.Findings {
			ek := keyIn(after, e, dir)
			if ek == k {
				t.Errorf("%s: %s is still there: %s", what, k, e.Message)
			}
			if !before[ek] && severityRank[e.Severity] > severityRank[sev] {
				t.Errorf("%s: a new %s %s appeared: %s", what, e.Severity, ek, e.Message)
			}
		}
	}

	// Each fix alone, on its own copy.
	for _, at := range tries {
		dir := copyExamples(t)
		fresh := checkDir(t, engine, dir)
		if len(fresh.Findings) != len(res.Findings) {
			t.Fatalf("a copy of examples/ has %d findings, the first %d", len(fresh.Findings), len(res.Findings))
		}
		d := fresh.Findings[at.finding]
		k := keyIn(fresh, d, dir)
		f := d.Fixes[at.fix]
		what := fmt.Sprintf("%s fix %d (%s)", k, at.fix, f.Description)
		one := *fresh
		d.Fixes = []diag.Fix{f}
		one.Findings = []diag.Diagnostic{d}
		if plan := writeFixes(t, &one, dir); len(plan.applied) != 1 {
			t.Errorf("%s: not applied", what)
			continue
		}
		gone(what, k, d.Severity, checkDir(t, engine, dir), dir)
	}

	// Every finding's first writable fix at once: `kvlint fix --write`.
	dir := copyExamples(t)
	all := checkDir(t, engine, dir)
	plan := writeFixes(t, all, dir)
	after := checkDir(t, engine, dir)
	for _, a := range plan.applied {
		if fixedFamily(a.finding.Rule) {
			gone("kvlint fix --write", keyIn(all, a.finding, dir), a.finding.Severity, after, dir)
		}
	}
	for _, e := range after.Findings {
		// A finding a fix brought is judged above, by severity.
		if k := keyIn(after, e, dir); before[k] && fixedFamily(e.Rule) && noLiteralFix[k] == "" {
			t.Errorf("after kvlint fix --write, %s remains: %s", k, e.Message)
		}
	}
}
