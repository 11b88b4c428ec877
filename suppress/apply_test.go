package suppress

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func finding(rule, file string, line int) diag.Diagnostic {
	return diag.Diagnostic{Rule: rule, Severity: "high", Span: deploy.Span{File: file, Line: line, Col: 3, EndLine: line, EndCol: 9}}
}

const manifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
  annotations:
    kvlint.io/ignore: "KV101,KV301"  # -- pool sized by the gateway's prompt cap
spec:
  template:
    spec:
      containers:
        - name: decode
          args: ["--max-total-tokens", "4096"]
---
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata:
      name: prefill
    spec:
      template:
        metadata:
          annotations:
            kvlint.io/ignore: KV104
            kvlint.io/ignore-reason: prefill only
        spec:
          containers: []
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: router
      annotations:
        kvlint.io/ignore: "kv1"
`

func TestAnnotations(t *testing.T) {
	got := found(source.SyntaxYAML, manifest)
	want := []string{
		"annotation KV101,KV301 1-12 pool sized by the gateway's prompt cap",
		"annotation KV104 17-28 prefill only",
		`annotation problem: kvlint.io/ignore: "kv1" is not a rule ID: write kvlint.io/ignore: "KV101,KV301"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestApply(t *testing.T) {
	dir := t.TempDir()
	sh := write(t, dir, "serve.sh", `#!/bin/sh
# kvlint:ignore KV101 -- sized for short prompts
python3 -m sglang.launch_server \
  --max-total-tokens 4096
python3 -m sglang.launch_server --tp 2 # kvlint:ignore KV402,KV999
# kvlint:ignore KV105 -- nothing here fires
echo
`)
	k8s := write(t, dir, "deploy/decode.yaml", manifest)
	whole := write(t, dir, "vendor/chart.yaml", "# kvlint:ignore-file -- vendored, tracked upstream\nargs: []\n")
	values := write(t, dir, "values.yaml", "maxTokens: 4096  # kvlint:ignore KV103 -- via the values file\n")
	broken := write(t, dir, "broken.sh", "# kvlint:ignore KV101 -- r\n")
	cfg := &config.Config{Dir: dir, Path: filepath.Join(dir, ".kvlint.yaml"), Ignore: []config.IgnoreEntry{
		{Path: "deploy/*.yaml", Rules: []string{"KV102"}, Reason: "capacity planned elsewhere", Until: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC), Line: 3, Column: 5, Key: "path"},
		{Path: "serve.sh", Rules: []string{"KV405"}, Reason: "old", Until: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), Line: 7, Column: 5, Key: "path"},
		{Path: "other/**", Rules: []string{"KV101"}, Reason: "nothing there is checked", Line: 11, Column: 5, Key: "path"},
	}}

	viaValues := finding("KV103", k8s, 12)
	viaValues.Origin = deploy.Origin{deploy.At(deploy.StepValuesFile, deploy.Span{File: values, Line: 1, Col: 12, EndLine: 1, EndCol: 16})}
	findings := []diag.Diagnostic{
		finding("KV101", sh, 4),    // 0: inline, line above the command
		finding("KV402", sh, 5),    // 1: trailing, no reason
		finding("KV104", sh, 4),    // 2: not named: stays
		finding("KV101", k8s, 12),  // 3: annotation
		finding("KV102", k8s, 12),  // 4: config entry, still valid on the 15th of June
		finding("KV405", sh, 3),    // 5: config entry expired: fires again
		finding("KV401", whole, 2), // 6: ignore-file, every rule
		viaValues,                  // 7: suppressed where its value was written
		finding("KV104", k8s, 30),  // 8: outside the objects whose annotation names KV104
	}
	now := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	files := []File{{Path: sh, Syntax: source.SyntaxShell}, {Path: k8s, Syntax: source.SyntaxYAML}, {Path: whole, Syntax: source.SyntaxYAML}, {Path: broken, Syntax: source.SyntaxShell}}
	facts := Apply(findings, Options{
		Files: files, Config: cfg, Now: now,
		Errors: []*diag.Diagnostic{{Span: deploy.Span{File: broken, Line: 1}}},
		IsRule: func(id string) bool { return id != "KV999" },
	})

	wantKind := []string{"inline", "inline", "", "annotation", "config", "", "file", "inline", ""}
	for i, f := range findings {
		got := ""
		if f.Suppression != nil {
			got = f.Suppression.Kind
		}
		if got != wantKind[i] {
			t.Errorf("finding %d (%s at %d): suppression %q, want %q", i, f.Rule, f.Span.Line, got, wantKind[i])
		}
	}
	if s := findings[0].Suppression; s.Reason != "sized for short prompts" || s.Span.File != sh || s.Span.Line != 2 || s.Span.Col != 1 {
		t.Errorf("finding 0 suppression %+v", s)
	}
	if s := findings[3].Suppression; s.Reason != "pool sized by the gateway's prompt cap" || s.Span.Line != 6 || s.Span.Col != 5 {
		t.Errorf("annotation suppression %+v", s)
	}
	if s := findings[4].Suppression; s.Reason != "capacity planned elsewhere" || s.Span.Line != 3 || s.Span.EndCol != 9 {
		t.Errorf("config suppression %+v", s)
	}
	if s := findings[7].Suppression; s.Span.File != values {
		t.Errorf("via suppression %+v", s)
	}

	type summary struct {
		text            string
		used, judged    bool
		unused, unknown []string
		expired         bool
	}
	var got []summary
	for _, f := range facts {
		got = append(got, summary{f.Text, f.Used, f.Judged, f.UnusedRules, f.UnknownRules, f.Expired})
	}
	want := []summary{
		{"kvlint:ignore KV101", true, true, nil, nil, false},
		{"kvlint:ignore KV402,KV999", true, true, []string{"KV999"}, []string{"KV999"}, false},
		{"kvlint:ignore KV105", false, true, []string{"KV105"}, nil, false},
		{`annotation kvlint.io/ignore: "KV101,KV301"`, true, true, []string{"KV301"}, nil, false},
		{`annotation kvlint.io/ignore: "KV104"`, false, true, []string{"KV104"}, nil, false},
		{`annotation kvlint.io/ignore: "kv1"`, false, true, nil, nil, false},
		{"kvlint:ignore-file", true, true, nil, nil, false},
		{"kvlint:ignore KV101", false, false, []string{"KV101"}, nil, false}, // broken.sh: not judged
		{"kvlint:ignore KV103", true, true, nil, nil, false},                 // values.yaml, read for the origin
		{"the .kvlint.yaml ignore entry for deploy/*.yaml", true, true, nil, nil, false},
		{"the .kvlint.yaml ignore entry for serve.sh", false, true, []string{"KV405"}, nil, true},
		{"the .kvlint.yaml ignore entry for other/**", false, false, []string{"KV101"}, nil, false},
	}
	if len(got) != len(want) {
		t.Fatalf("facts:\n%+v\nwant:\n%+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.text != w.text || g.used != w.used || g.judged != w.judged || !slices.Equal(g.unused, w.unused) || !slices.Equal(g.unknown, w.unknown) || g.expired != w.expired {
			t.Errorf("fact %d = %+v, want %+v", i, g, w)
		}
	}
	if facts[1].Reason != "" || facts[10].Until != "2026-06-30" && facts[10].Until != "2026-01-31" {
		t.Errorf("fact reasons/until: %+v / %+v", facts[1], facts[10])
	}
}

// On the day after until:, the entry no longer applies.
func TestApplyUntilIsInclusive(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "a.sh", "python3 -m sglang.launch_server\n")
	cfg := &config.Config{Dir: dir, Ignore: []config.IgnoreEntry{{Path: "a.sh", Until: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)}}}
	for _, tt := range []struct {
		now        time.Time
		suppressed bool
	}{
		{time.Date(2026, 6, 30, 23, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 7, 1, 0, 30, 0, 0, time.UTC), false},
	} {
		fs := []diag.Diagnostic{finding("KV101", f, 1)}
		Apply(fs, Options{Files: []File{{Path: f, Syntax: source.SyntaxShell}}, Config: cfg, Now: tt.now})
		if (fs[0].Suppression != nil) != tt.suppressed {
			t.Errorf("at %v: suppressed %v, want %v", tt.now, fs[0].Suppression != nil, tt.suppressed)
		}
	}
}

// A file the run holds is scanned as the run read it, not as the disk
// holds it now: the directive written after parsing does not count, and a
// file only the disk has is read once and kept for the reporters.
func TestSuppressionsComeFromTheRunsText(t *testing.T) {
	dir := t.TempDir()
	const marked = "#!/bin/sh\n# kvlint:ignore KV101 -- sized on purpose\npython3 -m sglang.launch_server --max-total-tokens 4096\n"
	f := write(t, dir, "serve.sh", marked)
	files := source.NewSet()
	files.Add(source.NewFile(f, []byte("#!/bin/sh\n\npython3 -m sglang.launch_server --max-total-tokens 4096\n"), source.SyntaxShell))
	fs := []diag.Diagnostic{finding("KV101", f, 3)}
	Apply(fs, Options{Files: []File{{Path: f, Syntax: source.SyntaxShell}}, Sources: files})
	if fs[0].Suppression != nil {
		t.Error("a directive the run never read suppressed a finding")
	}

	other := write(t, dir, "other.sh", marked)
	fs = []diag.Diagnostic{finding("KV101", other, 3)}
	Apply(fs, Options{Sources: files})
	if fs[0].Suppression == nil {
		t.Error("the directive in a file findings point into was not read")
	}
	if kept := files.File(other); kept == nil || string(kept.Data) != marked {
		t.Errorf("the file read for its directives is not kept: %v", kept)
	}
}

// A file the parse let go (no server, no error, no directive in the text it
// read) is not read again for suppressions, even if a directive appears on
// disk afterwards: the run's text is the one it parsed.
func TestApplySkipsFilesTheParseLetGo(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "web.yaml", "# kvlint:ignore-file KV101 -- written after the parse\napiVersion: v1\nkind: ConfigMap\n")
	files := source.NewSet()
	files.Pass(f)
	facts := Apply(nil, Options{Files: []File{{Path: f, Syntax: source.SyntaxYAML}}, Sources: files})
	if len(facts) != 0 || files.File(f) != nil {
		t.Errorf("a file the parse let go was read again: facts %v", facts)
	}
	// Held, the same file's directive is found.
	files = source.NewSet()
	if _, err := files.Read(f, source.SyntaxYAML); err != nil {
		t.Fatal(err)
	}
	if facts := Apply(nil, Options{Files: []File{{Path: f, Syntax: source.SyntaxYAML}}, Sources: files}); len(facts) != 1 {
		t.Errorf("the directive of a held file: facts %v, want 1", facts)
	}
}
