package parsers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDiscoverAndParse writes arbitrary bytes under a name of every kind
// kvlint reads (and one it only sniffs), discovers the directory, and
// parses what discovery chose. The guard turns a parser's panic into an
// "internal error" diagnostic, so the target fails on that message: the
// guard is the last line of defence, not the first.
func FuzzDiscoverAndParse(f *testing.F) {
	f.Add(uint8(0), []byte("#!/bin/sh\npython3 -m sglang.launch_server --model-path m --context-length 8192\n"))
	f.Add(uint8(2), []byte("services:\n  s:\n    command: python3 -m sglang.launch_server --tp 2\n"))
	f.Add(uint8(3), []byte("apiVersion: v1\nkind: Pod\nspec:\n  containers: [{command: [sglang, serve]}]\n"))
	f.Add(uint8(4), []byte("locals {\n  a = local.b\n  b = local.a\n}\n"))
	f.Add(uint8(5), []byte("#!/usr/bin/env bash\nvllm serve m --max-model-len 4096\n"))
	f.Add(uint8(6), []byte("decode:\n  maxTotalTokens: 4096\n"))
	f.Add(uint8(1), []byte("FROM x\nCMD [\"python3\", \"-m\", \"sglang.launch_server\"]\n"))
	names := []string{"run.sh", "Dockerfile", "compose.yaml", "deploy.yaml", "main.tf", "launch", "values.yaml", "notes.txt"}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		dir := t.TempDir()
		name := names[int(which)%len(names)]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		files, errs := Discover([]string{dir}, nil)
		for _, e := range errs {
			t.Logf("discover: %v", e)
		}
		p := ParseFileSet(files)
		for _, e := range p.Errors {
			if e == nil {
				t.Fatal("a nil error")
			}
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("%s: %s", name, e.Message)
			}
			if e.Span.File == "" {
				t.Errorf("an error names no file: %q", e.Message)
			}
		}
	})
}
