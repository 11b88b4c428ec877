package k8s

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// FuzzK8s checks that no input makes Parse panic, and that every span it
// returns points into the file.
func FuzzK8s(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(podHead + "      command: [sh, -c, \"python3 -m sglang.launch_server --tp-size $(TP) \\\n  --port 1\"]\n      env: [{name: TP, value: '2'}]\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Pod, spec: {containers: [{command: [a]}]}}]\n"))
	f.Add([]byte("a: &a [*a]\n---\n\tb\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, errs := Parse("f.yaml", data, noFiles)
		lines := 1
		for _, b := range data {
			if b == '\n' || b == '\r' {
				lines++
			}
		}
		check := func(what string, s deploy.Span) {
			if s.IsZero() {
				return
			}
			if s.File != "f.yaml" || s.Line < 1 || s.Col < 1 || s.Line > lines || s.EndLine < s.Line ||
				(s.EndLine == s.Line && s.EndCol < s.Col) {
				t.Fatalf("%s: bad span %+v", what, s)
			}
		}
		for _, e := range errs {
			if e.Span.IsZero() {
				t.Fatalf("error without a position: %v", e)
			}
			check("error", e.Span)
		}
		for _, s := range servers {
			check("server", s.Span)
			for k, v := range s.Args {
				check(k, v.Span)
			}
			check("gpu", s.GPU.Span)
			check("gpu count", s.GPUCount.Span)
			check("replicas", s.Replicas.Span)
		}
	})
}
