package workflow

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

const wf = `on: push
env:
  MODEL: Qwen/Qwen3-8B
defaults:
  run:
    shell: bash
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: |
          vllm serve $MODEL --max-model-len ${{ inputs.len }} \
            --block-size '${{ inputs.bs }}' --gpu-memory-utilization 0.8
  b:
    runs-on: windows-latest
    defaults:
      run:
        shell: pwsh
    steps:
      - run: vllm serve x --max-model-len 4096
      - shell: python
        run: vllm serve y
      - shell: sh -e {0}
        run: "vllm serve z --max-model-len\t2048"
`

func TestWorkflowSteps(t *testing.T) {
	servers, errs := ParseFile(source.NewFile(".github/workflows/w.yml", []byte(wf), source.SyntaxYAML), nil)
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if len(servers) != 2 {
		t.Fatalf("servers %d, want 2 (pwsh and python steps are not shell)", len(servers))
	}
	s := servers[0]
	if s.Name != ".github/workflows/w.yml:a:12" {
		t.Errorf("name %q", s.Name)
	}
	if m := s.Positionals[0]; m.Raw != "Qwen/Qwen3-8B" || !m.Known || m.Span.Line != 12 || m.Span.Col != 22 {
		t.Errorf("model from the workflow env: %+v", m)
	}
	l := s.Args["--max-model-len"]
	if l.Known || l.Raw != "${{ inputs.len }}" || l.Span.Line != 12 || l.Span.Col != 45 || l.Span.EndCol != 62 {
		t.Errorf("--max-model-len: %+v to %d:%d", l, l.Span.EndLine, l.Span.EndCol)
	}
	// Single-quoted, the placeholder would be literal text: still unknown.
	b := s.Args["--block-size"]
	if b.Known || b.Raw != "${{ inputs.bs }}" || b.Typed != (deploy.Typed{}) {
		t.Errorf("--block-size: %+v", b)
	}
	g := s.Args["--gpu-memory-utilization"]
	if g.Raw != "0.8" || g.Span.Line != 13 || g.Span.Col != 70 {
		t.Errorf("--gpu-memory-utilization at %s", g.Span)
	}
	// A double-quoted run: with an escape: the flag still maps to its line.
	z := servers[1].Args["--max-model-len"]
	if z.Raw != "2048" || z.Span.Line != 24 || z.Span.Col != 45 {
		t.Errorf("sh step --max-model-len: %+v at %s", z, z.Span)
	}
}

func TestIsWorkflowPath(t *testing.T) {
	for p, want := range map[string]bool{
		".github/workflows/ci.yml":       true,
		"repo/.github/workflows/ci.yaml": true,
		".github/workflows/sub/ci.yml":   false,
		".github/ci.yml":                 false,
		"workflows/ci.yml":               false,
		".github/workflows/notes.md":     false,
	} {
		if IsWorkflowPath(p) != want {
			t.Errorf("%s: %v", p, !want)
		}
	}
}
