package skypilot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

func TestTask(t *testing.T) {
	task := `resources:
  accelerators: H100:8
num_nodes: 2
envs:
  MODEL: Qwen/Qwen3-32B
  HF_TOKEN:
run: |
  vllm serve $MODEL -tp $SKYPILOT_NUM_GPUS_PER_NODE \
    --max-model-len 32768
`
	servers, errs := ParseFile(source.NewFile("t.yaml", []byte(task), source.SyntaxYAML), nil)
	if len(errs) != 0 || len(servers) != 1 {
		t.Fatalf("%d servers, errors %v", len(servers), errs)
	}
	s := servers[0]
	at := func(what string, v deploy.Value, raw string, line, col, endCol int) {
		t.Helper()
		if v.Raw != raw || !v.Known || v.Span.Line != line || v.Span.Col != col || v.Span.EndCol != endCol {
			t.Errorf("%s: %+v to %d", what, v, v.Span.EndCol)
		}
	}
	at("gpu", s.GPU, "H100", 2, 17, 21)
	at("gpu count", s.GPUCount, "8", 2, 22, 23)
	at("replicas", s.Replicas, "2", 3, 12, 13)
	at("nodes", s.Nodes, "2", 3, 12, 13)
	if s.GPUKey != deploy.GPUKeySkyPilot || len(s.GPUCandidates) != 0 {
		t.Errorf("gpu key %q, candidates %v", s.GPUKey, s.GPUCandidates)
	}
	at("model", s.Positionals[0], "Qwen/Qwen3-32B", 8, 14, 20)
	// SKYPILOT_NUM_GPUS_PER_NODE is the accelerators count: the value
	// spans its use, and its origin names the accelerators line.
	tp := s.Args["--tensor-parallel-size"]
	if tp.Raw != "8" || !tp.Known || tp.Span.Line != 8 || tp.Span.Col != 25 {
		t.Errorf("-tp: %+v", tp)
	}
	at("--max-model-len", s.Args["--max-model-len"], "32768", 9, 21, 26)
}

func TestAccelerators(t *testing.T) {
	for _, tc := range []struct {
		acc             string
		gpu, count      string
		gpuKnown, known bool
	}{
		{"A100", "A100", "1", true, true},
		{"[L4:1, H100:1]", "L4,H100", "1", false, true},
		{"{A100-80GB:8, H100:8}", "A100-80GB,H100", "8", false, true},
		{"{H100:8, H100:4}", "H100", "8,4", true, false},
		{"\n    H100: 8", "H100", "8", true, true},
		{"T4:0.5", "T4", "0.5", true, false},
		{"{L4, A10g, a10G}", "L4,A10g", "1", false, true},
		{"\n    L4: 4\n    L40S: 4", "L4,L40S", "4", false, true},
		{"\n    L4: 4\n    L40S: 8", "L4,L40S", "4,8", false, false},
	} {
		task := "resources:\n  accelerators: " + tc.acc + "\nrun: vllm serve m\n"
		servers, errs := ParseFile(source.NewFile("t.yaml", []byte(task), source.SyntaxYAML), nil)
		if len(errs) != 0 || len(servers) != 1 {
			t.Fatalf("%s: %d servers, errors %v", tc.acc, len(servers), errs)
		}
		s := servers[0]
		g, c := s.GPU, s.GPUCount
		if g.Raw != tc.gpu || g.Known != tc.gpuKnown || c.Raw != tc.count || c.Known != tc.known || g.Span.Line < 2 {
			t.Errorf("%s: gpu %+v count %+v", tc.acc, g, c)
		}
		// Several names are candidates, and several counts too.
		if got := strings.Join(s.GPUCandidates, ","); !tc.gpuKnown && got != tc.gpu {
			t.Errorf("%s: candidates %v", tc.acc, s.GPUCandidates)
		}
		if got := strings.Join(s.GPUCountCandidates, ","); !tc.known && isWhole(strings.Split(tc.count, ",")[0]) && got != tc.count {
			t.Errorf("%s: count candidates %v", tc.acc, s.GPUCountCandidates)
		}
	}
}

// The block form's candidates span from the first name to the last count,
// and any_of entries replace the base accelerators.
func TestAcceleratorAlternatives(t *testing.T) {
	task := "resources:\n  accelerators:\n    L4: 4\n    L40S: 4\nrun: vllm serve m\n"
	servers, _ := ParseFile(source.NewFile("t.yaml", []byte(task), source.SyntaxYAML), nil)
	if len(servers) != 1 {
		t.Fatalf("%d servers", len(servers))
	}
	g := servers[0].GPU
	if g.Known || g.Span.Line != 3 || g.Span.Col != 5 || g.Span.EndLine != 4 || g.Span.EndCol != 12 {
		t.Errorf("gpu %+v", g)
	}
	if c := servers[0].GPUCount; !c.Known || c.Raw != "4" || c.Span.Line != 3 {
		t.Errorf("count %+v", c)
	}
	task = "resources:\n  accelerators: A100:8\n  any_of:\n    - accelerators: H100:8\n    - use_spot: true\nrun: vllm serve m\n"
	servers, _ = ParseFile(source.NewFile("t.yaml", []byte(task), source.SyntaxYAML), nil)
	if len(servers) != 1 || strings.Join(servers[0].GPUCandidates, ",") != "H100,A100" || servers[0].GPUCount.Raw != "8" {
		t.Errorf("any_of: %+v", servers[0])
	}
	task = "resources:\n  accelerators: A100:8\n  any_of:\n    - use_spot: true\n    - use_spot: false\nrun: vllm serve m\n"
	servers, _ = ParseFile(source.NewFile("t.yaml", []byte(task), source.SyntaxYAML), nil)
	if len(servers) != 1 || len(servers[0].GPUCandidates) != 0 || servers[0].GPU.Raw != "A100" || !servers[0].GPU.Known {
		t.Errorf("any_of without accelerators: %+v", servers[0])
	}
}

// Detection takes a task and never a manifest, a compose file or a
// document that only has a run: key.
func TestDetect(t *testing.T) {
	for text, want := range map[string]bool{
		"resources:\n  accelerators: H100\nrun: vllm serve m\n": true,
		"name: x\n---\nenvs:\n  A: b\nrun: |\n  echo\n":         true,
		"run: echo hi\n": false,
		"apiVersion: v1\nkind: ConfigMap\nrun: x\nenvs: {}\n": false,
		"services:\n  a:\n    image: x\nrun: x\nsetup: y\n":   false,
		"steps:\n  - run: echo\nsetup: x\n":                   false,
		"resources:\n  cpus: 4\nrunner: x\n":                  false,
	} {
		if Detect([]byte(text)) != want {
			t.Errorf("%q: %v, want %v", text, !want, want)
		}
	}
}

func TestRuledOutByHead(t *testing.T) {
	for head, want := range map[string]bool{
		"apiVersion: v1\nkind: Pod\n":        true,
		"# comment\n---\nkind: Deployment\n": true,
		"services:\n  web: {}\n":             true,
		"resources:\n  accelerators: H100:8": false,
		"run: |\n  vllm serve m\n":           false,
		"name: x\napiVersion: v1\n":          false, // not the first key: Detect decides
	} {
		if got := RuledOutByHead([]byte(head)); got != want {
			t.Errorf("RuledOutByHead(%q) = %v, want %v", head, got, want)
		}
	}
}

// A few kilobytes that alias a list of 3,000 accelerators 3,000 times
// read as one list, and a list past maxAlternatives as an unknown GPU:
// the candidates are not multiplied by the aliases nor compared pairwise.
func TestAcceleratorAliasesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("x: &a\n  accelerators: [")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "G%d:1", i)
	}
	b.WriteString("]\nresources:\n  any_of: [")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*a")
	}
	b.WriteString("]\nrun: vllm serve m\n")
	servers, _ := ParseFile(source.NewFile("t.yaml", []byte(b.String()), source.SyntaxYAML), nil)
	if len(servers) != 1 {
		t.Fatalf("%d servers", len(servers))
	}
	if g := servers[0].GPU; g.Known || g.Raw != "any of 3000 accelerators" || len(servers[0].GPUCandidates) != 0 {
		t.Errorf("gpu %q (known %v), %d candidates", g.Raw, g.Known, len(servers[0].GPUCandidates))
	}
}
