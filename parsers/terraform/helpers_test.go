package terraform

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// writeModule writes files (name → content) into a fresh directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// at renders a span relative to dir as file:line:col-endline:endcol.
func at(dir string, s deploy.Span) string {
	if s.IsZero() {
		return "-"
	}
	f := strings.TrimPrefix(filepath.ToSlash(s.File), filepath.ToSlash(dir)+"/")
	return f + ":" + itoa(s.Line) + ":" + itoa(s.Col) + "-" + itoa(s.EndLine) + ":" + itoa(s.EndCol)
}

// chain renders a value's span, then each step of its origin as
// "kind file:line:col-endline:endcol".
func chain(dir string, v deploy.Value) []string {
	out := []string{at(dir, v.Span)}
	for _, s := range v.Origin {
		out = append(out, string(s.Kind)+" "+at(dir, s.Span))
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func errorTexts(dir string, errs []*diag.Diagnostic) []string {
	var out []string
	for _, e := range errs {
		out = append(out, at(dir, e.Span)+": "+e.Message)
	}
	return out
}

func serverNamed(t *testing.T, servers []*deploy.Server, name string) *deploy.Server {
	t.Helper()
	for _, s := range servers {
		if s.Name == name {
			return s
		}
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	t.Fatalf("no server %q among %v", name, names)
	return nil
}
