package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Flag values are the user's, but a CI job may build them from a pull
// request (a branch name, a file list): whatever they hold, neither stdout
// nor stderr carries a raw control or starts a line with a workflow command
// (SECURITY.md). Part of the hostile suite; the scripts cannot pass these
// bytes as arguments.
func TestHostileFlagValues(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.sh")
	if err := os.WriteFile(good, []byte("#!/bin/sh\npython3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --max-total-tokens 4096 --context-length 8192\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const evil = "x\x1b]52;c;cHduZWQ=\x07\n::stop-commands::tok\n::error::pwned\u202e\u009b"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"check", "--tenancy", evil, good}, exitUsage},
		{[]string{"check", "--format", evil, good}, exitUsage},
		{[]string{"check", "--fail-on", evil, good}, exitUsage},
		{[]string{"check", "--gpu", evil, good}, -1},
		{[]string{"check", "--format", "github", "--gpu", evil, good}, -1},
		{[]string{"check", "--set", evil, good}, -1},
		{[]string{"check", filepath.Join(dir, evil)}, exitInput},
		{[]string{"check", "--exclude", evil, "--format", "github", good}, -1},
		{[]string{evil}, exitUsage},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if tt.code >= 0 && code != tt.code {
			t.Errorf("%q: exit %d, want %d; stderr %s", tt.args, code, tt.code, stderr.String())
		}
		if code == exitInternal {
			t.Errorf("%q: internal error: %s", tt.args, stderr.String())
		}
		github := strings.Contains(strings.Join(tt.args, " "), "github")
		for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if i := strings.IndexFunc(out, func(r rune) bool {
				return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r == '\u202e'
			}); i >= 0 {
				t.Errorf("%q: %s holds a raw control at %d: %q", tt.args, name, i, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "::") && !(github && name == "stdout" && kvlintCommand.MatchString(line)) {
					t.Errorf("%q: %s line starts a workflow command: %q", tt.args, name, line)
				}
			}
		}
	}
}

// kvlintCommand is an annotation the github format writes itself.
var kvlintCommand = regexp.MustCompile(`^::(error|warning|notice) file=[^:]*,title=[^:]*::`)
