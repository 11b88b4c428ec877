package sarif

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// repoRoot is the repository's root: tests run in sarif/.
var repoRoot = func() string {
	abs, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	return abs
}()

var testEngine = sync.OnceValues(func() (*rules.Engine, error) { return rules.New(context.Background()) })

func engine(t testing.TB) *rules.Engine {
	t.Helper()
	e, err := testEngine()
	if err != nil {
		t.Fatalf("rules.New: %v", err)
	}
	return e
}

// logOf runs kvlint's pipeline over paths and returns the SARIF input for
// it, with URIs relative to workDir and a fixed version.
func logOf(t testing.TB, workDir string, paths ...string) Log {
	t.Helper()
	e := engine(t)
	res, err := check.Run(context.Background(), e, check.Options{Paths: paths})
	if err != nil {
		t.Fatalf("check.Run(%v): %v", paths, err)
	}
	code := 0
	if len(res.Errors) > 0 {
		code = 3
	} else if diag.MaxSeverity(res.Findings) >= diag.SeverityHigh {
		code = 1
	}
	return Log{
		Rules: e.Rules(), Findings: res.Findings, Errors: res.Errors, Servers: res.Servers, Files: res.Files,
		ExitCode: code, Version: "0.0.0-test", WorkDir: workDir,
	}
}

func encode(t testing.TB, l Log) []byte {
	t.Helper()
	data, err := Encode(l)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return data
}

// exampleDirs lists examples/*/ and examples/ itself, relative to the
// repository root.
func exampleDirs(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"examples"}
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, "examples/"+e.Name())
		}
	}
	return dirs
}

// scriptFixtures extracts the files of every end-to-end script
// (cmd/kvlint/testdata/script/*.txtar) into a directory of its own, so the
// SARIF tests see the same shapes of input the CLI tests do. It returns the
// directories by script name.
func scriptFixtures(t testing.TB) map[string]string {
	t.Helper()
	scripts, err := filepath.Glob(filepath.Join(repoRoot, "cmd", "kvlint", "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, script := range scripts {
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		if len(ar.Files) == 0 {
			continue
		}
		dir := t.TempDir()
		for _, f := range ar.Files {
			name := filepath.FromSlash(f.Name)
			if !filepath.IsLocal(name) {
				continue
			}
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs[strings.TrimSuffix(filepath.Base(script), ".txtar")] = dir
	}
	return dirs
}

// corpus is every log the constraint and schema tests check: the examples,
// the script fixtures, and synthetic runs that exercise what the examples
// do not yet (suppressions, provenance chains, files outside the working
// directory, input errors). Keys name each log in failures.
func corpus(t *testing.T) map[string][]byte {
	t.Helper()
	logs := map[string][]byte{}
	t.Chdir(repoRoot)
	for _, dir := range exampleDirs(t) {
		logs[dir] = encode(t, logOf(t, repoRoot, dir))
	}
	for name, dir := range scriptFixtures(t) {
		t.Chdir(dir)
		logs["script "+name] = encode(t, logOf(t, dir, "."))
	}
	t.Chdir(repoRoot)
	for name, l := range syntheticLogs(t) {
		logs["synthetic "+name] = encode(t, l)
	}
	return logs
}

func jsonValue(data []byte) (any, error) {
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}
