package compose

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// FuzzCompose checks that no compose file (nor .env file) makes Parse panic
// and that spans point into the file they name.
func FuzzCompose(f *testing.F) {
	env, _ := os.ReadFile(filepath.Join("testdata", "dotenv"))
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, env)
		}
	}
	f.Add([]byte("services:\n  s:\n    command: sh -c \"python3 -m sglang.launch_server --tp-size $${TP:-${X:-1}}\"\n    environment: [TP=2]\n"), []byte("X=\"a\\\"b\n"))
	f.Add([]byte("services:\n  s:\n    command: ${\n    gpus: [{count: all}]\n"), []byte("export A='x\n"))
	f.Fuzz(func(t *testing.T, data, env []byte) {
		read := func(p string) (string, []byte, error) {
			if p == ".env" {
				return ".env", env, nil
			}
			return p, nil, os.ErrNotExist
		}
		servers, errs := Parse("c.yaml", data, read)
		check := func(what string, s deploy.Span) {
			if s.IsZero() {
				return
			}
			if (s.File != "c.yaml" && s.File != ".env") || s.Line < 1 || s.Col < 1 || s.EndLine < s.Line ||
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
				for _, via := range v.Origin.Spans() {
					check(k+" via", via)
				}
			}
			check("gpu count", s.GPUCount.Span)
		}
	})
}
