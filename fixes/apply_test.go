package fixes_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/edit"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/source"
)

var severityRank = map[string]int{"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

// copyTree copies the examples into dir, so a fix can be applied to them.
func copyTree(t *testing.T, from, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func runIn(t *testing.T, engine *rules.Engine, dir, gpu string) *analysis.Result {
	t.Helper()
	paths := []string{dir}
	cfg, err := config.FindFor(dir, paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: paths, Config: cfg, NestedConfig: true, GPU: gpu})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// apply writes a fix's replacements into the files with the edit
// package's own span arithmetic (edit.Offsets, edit.Apply), as kvlint fix
// does, refusing a span that is not a place in the file.
func apply(t *testing.T, f diag.Fix) {
	t.Helper()
	byFile := map[string][]diag.Replacement{}
	for _, r := range f.Replacements {
		byFile[r.Span.File] = append(byFile[r.Span.File], r)
	}
	for name, reps := range byFile {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		syn := source.SyntaxOf(name)
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			syn = source.SyntaxYAML
		}
		file := source.NewFile(name, data, syn)
		var edits []edit.Edit
		for _, r := range reps {
			start, end, err := edit.Offsets(file, r.Span)
			if err != nil {
				t.Fatalf("%s: %v", f.Description, err)
			}
			edits = append(edits, edit.Edit{Start: start, End: end, Text: r.NewText})
		}
		out, err := edit.Apply(data, edits)
		if err != nil {
			t.Fatalf("%s: %v", f.Description, err)
		}
		if err := os.WriteFile(name, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// key names a finding across runs: two flag findings of one server differ
// by the flag they are about.
type key struct{ rule, file, server, arg string }

func keyOf(res *analysis.Result, d diag.Diagnostic, root string) key {
	name := ""
	if d.Server >= 0 && d.Server < len(res.Servers) {
		// A server without a name is named by its file and line.
		name = strings.ReplaceAll(res.Servers[d.Server].Name, root+string(filepath.Separator), "")
	}
	rel, _ := filepath.Rel(root, d.Span.File)
	return key{d.Rule, rel, name, d.Arg}
}

// unpack writes the files of a testscript archive into dir.
func unpack(t *testing.T, archive, dir string) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixesMakeTheirFindingDisappear applies each capacity, PD and flag
// fix the examples and the fix fixtures get to a fresh copy of them and
// checks again: the finding is gone, and no finding more severe than it
// appeared.
func TestFixesMakeTheirFindingDisappear(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline once per fix")
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	trees := []struct {
		name, gpu string
		fill      func(t *testing.T, dir string)
	}{
		{"examples", "", func(t *testing.T, dir string) { copyTree(t, "../examples", dir) }},
		{"disaggregation", "H100-80GB", func(t *testing.T, dir string) {
			unpack(t, "../cmd/kvlint/testdata/script/disaggregation.txtar", dir)
		}},
		{"fixes_pd", "H100-80GB", func(t *testing.T, dir string) {
			unpack(t, "../cmd/kvlint/testdata/script/fixes_pd.txtar", dir)
		}},
		// Insertions in a script, a Dockerfile exec form and a Kubernetes
		// args list, and vLLM's estimated length.
		{"fixes_capacity", "L4", func(t *testing.T, dir string) {
			unpack(t, "../cmd/kvlint/testdata/script/fixes_capacity.txtar", dir)
		}},
		// The router's bootstrap port, the disaggregation flags, the vLLM
		// transfer roles and connectors.
		{"fixes_pd_hazards", "H100-80GB", func(t *testing.T, dir string) {
			unpack(t, "../cmd/kvlint/testdata/script/fixes_pd_hazards.txtar", dir)
		}},
		// Flags newer than a pinned release, values out of range.
		{"fix_release", "H100-80GB", func(t *testing.T, dir string) {
			unpack(t, "../cmd/kvlint/testdata/script/fix_release.txtar", dir)
		}},
	}
	rulesTried := map[string]bool{}
	for _, tree := range trees {
		t.Run(tree.name, func(t *testing.T) {
			applied := 0
			defer func() {
				if applied == 0 {
					t.Errorf("no fix was applied in %s", tree.name)
				}
			}()
			base := t.TempDir()
			tree.fill(t, base)
			res := runIn(t, engine, base, tree.gpu)
			before := map[key]bool{}
			for _, d := range res.Findings {
				before[keyOf(res, d, base)] = true
			}
			for _, d := range res.Findings {
				if !strings.HasPrefix(d.Rule, "KV1") && !strings.HasPrefix(d.Rule, "KV2") && !strings.HasPrefix(d.Rule, "KV4") {
					continue
				}
				k := keyOf(res, d, base)
				for i, f := range d.Fixes {
					if f.Unwritable != "" || len(f.Replacements) == 0 {
						continue
					}
					rulesTried[d.Rule] = true
					applied++
					dir := t.TempDir()
					tree.fill(t, dir)
					for j := range f.Replacements {
						rel, _ := filepath.Rel(base, f.Replacements[j].Span.File)
						f.Replacements[j].Span.File = filepath.Join(dir, rel)
					}
					apply(t, f)
					after := runIn(t, engine, dir, tree.gpu)
					for _, e := range after.Findings {
						ek := keyOf(after, e, dir)
						if ek == k {
							t.Errorf("%s %s fix %d (%s): the finding is still there: %s", k.rule, k.file, i, f.Description, e.Message)
						}
						if !before[ek] && severityRank[e.Severity] > severityRank[d.Severity] {
							t.Errorf("%s %s fix %d (%s): a new %s %s appeared: %s", k.rule, k.file, i, f.Description, e.Severity, e.Rule, e.Message)
						}
					}
					if len(after.Errors) > len(res.Errors) {
						t.Errorf("%s fix %d (%s): the fixed files no longer parse: %v", k.rule, i, f.Description, after.Errors)
					}
				}
			}
		})
	}
	for _, rule := range []string{"KV101", "KV104", "KV201", "KV202", "KV203", "KV204", "KV205", "KV206", "KV207", "KV208", "KV209", "KV210", "KV401", "KV405"} {
		if !rulesTried[rule] {
			t.Errorf("no fix of a %s finding was tried", rule)
		}
	}
}
