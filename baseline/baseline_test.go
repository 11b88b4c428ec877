package baseline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

func at(rule, file string, line int, server int, arg string) diag.Diagnostic {
	return diag.Diagnostic{Rule: rule, Severity: "high", Message: rule + " message", Span: deploy.Span{File: file, Line: line, Col: 3}, Server: server, Arg: arg}
}

// held is the run's file set after reading paths.
func held(t *testing.T, paths ...string) *source.Set {
	t.Helper()
	files := source.NewSet()
	for _, p := range paths {
		if _, err := files.Read(p, source.SyntaxOf(p)); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// The fingerprint takes the line's text from the run's file set: a file
// changed on disk after the run read it, or one the run never read, does
// not reach it.
func TestFingerprintReadsTheRunsText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.sh")
	if err := os.WriteFile(file, []byte("--tp 2\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := at("KV402", file, 1, -1, "--tp-size")
	files := held(t, file)
	want := Build([]diag.Diagnostic{f}, nil, files).Findings[0].Fingerprint
	if err := os.WriteFile(file, []byte("--tp 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Build([]diag.Diagnostic{f}, nil, files).Findings[0].Fingerprint; got != want {
		t.Error("the fingerprint changed with the file on disk")
	}
	unread := Build([]diag.Diagnostic{f}, nil, source.NewSet()).Findings[0].Fingerprint
	if unread == want {
		t.Error("a file the run did not read was read")
	}
	if lf := Build([]diag.Diagnostic{f}, nil, held(t, file)).Findings[0].Fingerprint; lf == want {
		t.Error("the fingerprint ignores the line's text")
	}
	if err := os.WriteFile(file, []byte("--tp 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if crlf := Build([]diag.Diagnostic{f}, nil, held(t, file)).Findings[0].Fingerprint; crlf != want {
		t.Error("a CRLF line fingerprints unlike the same line with LF")
	}
}

func TestRoundTripSurvivesLineShifts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "serve.sh")
	before := "#!/bin/sh\npython3 -m sglang.launch_server \\\n  --max-total-tokens 4096 \\\n  --tp 2\npython3 -m sglang.launch_server --max-total-tokens 4096\n"
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []*deploy.Server{{Name: file + ":2", Span: deploy.Span{File: file, Line: 2}}, {Name: file + ":5", Span: deploy.Span{File: file, Line: 5}}}
	old := []diag.Diagnostic{
		at("KV101", file, 3, 0, "--max-total-tokens"),
		at("KV402", file, 4, 0, "--tp-size"),
		at("KV101", file, 5, 1, "--max-total-tokens"),
	}
	suppressed := at("KV103", file, 3, 0, "")
	suppressed.Suppression = &diag.Suppression{Kind: "inline"}
	b := Build(append(old, suppressed), servers, held(t, file))
	if len(b.Findings) != 3 {
		t.Fatalf("baseline holds %d findings, want 3 (the suppressed one left out)", len(b.Findings))
	}
	var buf bytes.Buffer
	if err := Write(&buf, b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "base.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}

	// Two lines are inserted at the top; the second command's value changes.
	after := "#!/bin/sh\n# a new comment\nset -e\npython3 -m sglang.launch_server \\\n  --max-total-tokens 4096 \\\n  --tp 2\npython3 -m sglang.launch_server --max-total-tokens 2048\n"
	if err := os.WriteFile(file, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	servers = []*deploy.Server{{Name: file + ":4", Span: deploy.Span{File: file, Line: 4}}, {Name: file + ":7", Span: deploy.Span{File: file, Line: 7}}}
	now := []diag.Diagnostic{
		at("KV101", file, 5, 0, "--max-total-tokens"),
		at("KV402", file, 6, 0, "--tp-size"),
		at("KV101", file, 7, 1, "--max-total-tokens"),
	}
	if n := loaded.Apply(now, servers, held(t, file), path); n != 2 {
		t.Errorf("Apply matched %d, want 2", n)
	}
	for i, want := range []bool{true, true, false} {
		if got := now[i].Suppression != nil; got != want {
			t.Errorf("finding %d suppressed %v, want %v", i, got, want)
		}
	}
	if s := now[0].Suppression; s.Kind != "baseline" || s.Span.File != path || !strings.Contains(s.Reason, path) {
		t.Errorf("suppression %+v", s)
	}
}

func TestOccurrences(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("- --x\n- --x\n- --x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	two := []diag.Diagnostic{at("KV401", file, 1, -1, "--x"), at("KV401", file, 2, -1, "--x")}
	b := Build(two, nil, held(t, file))
	if b.Findings[0].Fingerprint != b.Findings[1].Fingerprint || b.Findings[1].Occurrence != 2 {
		t.Fatalf("entries %+v: want one fingerprint, occurrences 1 and 2", b.Findings)
	}
	three := []diag.Diagnostic{at("KV401", file, 1, -1, "--x"), at("KV401", file, 2, -1, "--x"), at("KV401", file, 3, -1, "--x")}
	if n := b.Apply(three, nil, held(t, file), "b.json"); n != 2 || three[2].Suppression != nil {
		t.Errorf("matched %d; the third equal finding must be new", n)
	}
}

func TestFingerprintParts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.sh")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []*deploy.Server{{Name: "decode"}, {Name: "prefill"}}
	base := at("KV101", file, 1, 0, "--a")
	fp := func(f diag.Diagnostic) string {
		return Build([]diag.Diagnostic{f}, servers, held(t, file)).Findings[0].Fingerprint
	}
	same := base
	same.Span.Col, same.Message, same.Severity = 9, "reworded", "low"
	if fp(same) != fp(base) {
		t.Error("column, message and severity changed the fingerprint")
	}
	for name, f := range map[string]func(*diag.Diagnostic){
		"rule":   func(f *diag.Diagnostic) { f.Rule = "KV102" },
		"server": func(f *diag.Diagnostic) { f.Server = 1 },
		"arg":    func(f *diag.Diagnostic) { f.Arg = "--b" },
		"line":   func(f *diag.Diagnostic) { f.Span.Line = 2 },
		"file":   func(f *diag.Diagnostic) { f.Span.File = filepath.Join(dir, "b.sh") },
	} {
		changed := base
		f(&changed)
		if fp(changed) == fp(base) {
			t.Errorf("a different %s kept the fingerprint", name)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"not json":      "{",
		"other tool":    `{"version": 1, "tool": "trivy", "findings": []}`,
		"newer version": `{"version": 2, "tool": "kvlint", "findings": []}`,
		"unknown field": `{"version": 1, "tool": "kvlint", "findings": [], "extra": 1}`,
		"no occurrence": `{"version": 1, "tool": "kvlint", "findings": [{"fingerprint": "ab", "rule": "KV101"}]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: Load accepted it", name)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// A baseline that cannot be used is reported at the place to fix.
func TestLoadErrorsArePlaced(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"{\n  \"tool\": \"kvlint\",\n", "b.json:3:1: not a kvlint baseline: unexpected end of file"},
		{"{\"findings\": \"no\"}", "b.json:1:14: not a kvlint baseline: findings must be an array, not a JSON string"},
		{"{\"tool\": \"kvlint\", \"version\": 1,\n \"extra\": 1}", `b.json:2:2: not a kvlint baseline: unknown field "extra"`},
		{"{\"tool\": \"kvlint\", \"version\": \"1\"}", "b.json:1:31: not a kvlint baseline: version must be a number, not a JSON string"},
		{"{\"tool\": \"kvlint\", \"version\": true}", "b.json:1:31: not a kvlint baseline: version must be a number, not a JSON bool"},
		{"{\"tool\": \"kvlint\", \"version\": 99}", "b.json:1:31: version 99, want a kvlint baseline of version 1"},
		{"{\"tool\": \"other\", \"version\": 1}", "b.json:1:10: tool \"other\", want a kvlint baseline"},
		{"{\"tool\": \"kvlint\", \"version\": 1, \"findings\": [\n  {\"fingerprint\": \"ab\", \"occurrence\": 1},\n  {\"fingerprint\": \"\"}]}", "b.json:3:3: finding 1 has no fingerprint or occurrence"},
		{"{\"tool\": \"kvlint\",\n \"version\": 1, ]", "b.json:2:16: not a kvlint baseline: invalid character ']'"},
	} {
		p := filepath.Join(dir, "b.json")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.want)) {
			t.Errorf("Load(%q) = %v, want %s…", tc.text, err, tc.want)
		}
	}
	if _, err := Load(dir); err == nil || err.Error() != dir+": is a directory, expected a file" {
		t.Errorf("Load(dir) = %v", err)
	}
}
