package skypilot

import (
	"bytes"
	"testing"

	"github.com/kvlint/kvlint/source"
)

// FuzzSkyPilot checks that no input makes ParseFile panic, and that every span
// of a server points into the file.
func FuzzSkyPilot(f *testing.F) {
	f.Add([]byte("resources:\n  accelerators: {A:1, B: 2}\nrun: |\n  vllm serve m --max-model-len 1\n"))
	f.Add([]byte("envs: {A: ~}\nrun: \"sglang serve --tp $SKYPILOT_NUM_GPUS_PER_NODE\"\n"))
	f.Add([]byte("resources:\n  accelerators:\n    L4: 4\n    L40S: 8\n  any_of:\n    - accelerators: [H100:8, A100]\n    - use_spot: true\nnum_nodes: 2\nrun: vllm serve m\n"))
	f.Add([]byte("x: &a\n  accelerators: [A:1, B:2]\nresources:\n  any_of: [*a, *a, *a]\nrun: vllm serve m\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _ := ParseFile(source.NewFile("f.yaml", data, source.SyntaxYAML), nil)
		lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r"))
		for _, s := range servers {
			for _, v := range s.Values() {
				sp := v.Span
				if sp.IsZero() || sp.File != "f.yaml" {
					continue
				}
				if sp.Line < 1 || sp.Col < 1 || sp.Line > lines || sp.EndLine < sp.Line {
					t.Fatalf("bad span %+v", sp)
				}
			}
		}
	})
}
