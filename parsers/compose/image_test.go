package compose

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

var testImages = engine.NewImageTable([]engine.Image{
	{Repository: "corp/vllm", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}, Cmd: []string{"--help"}, Source: "row-vllm"},
})

func TestImageEntrypoint(t *testing.T) {
	head := "services:\n  s:\n    image: corp/vllm:1\n"
	tests := []struct {
		name, service string
		servers       int
		model         string // the model's span, line:col-endcol
		program       string // the server's span
		words         []string
	}{
		{"string command after the image's entrypoint", "    command: --model m --max-model-len 4096\n",
			1, "4:22-23", "3:12-23", []string{"vllm", "serve"}},
		{"list command", "    command: [Qwen/Qwen2.5-7B-Instruct, --max-model-len, \"4096\"]\n",
			1, "4:15-39", "3:12-23", []string{"vllm", "serve"}},
		{"positional model in a string", "    command: \"m --max-model-len 4096\"\n",
			1, "4:15-16", "3:12-23", []string{"vllm", "serve"}},
		{"entrypoint replaces the image's and drops its CMD", "    entrypoint: [vllm, serve, m]\n",
			1, "4:31-32", "4:18-22", nil},
		{"empty entrypoint clears the image's", "    entrypoint: []\n    command: [--model, m]\n", 0, "", "", nil},
		{"empty string entrypoint clears it too", "    entrypoint: ''\n    command: [--model, m]\n", 0, "", "", nil},
		{"no command: the image's default", "    ports: [\"8000:8000\"]\n", 1, "", "3:12-23", []string{"vllm", "serve", "--help"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			servers, errs := ParseFileWith(source.NewFile("c.yaml", []byte(head+tc.service), source.SyntaxYAML), noFiles, testImages)
			for _, e := range errs {
				t.Errorf("unexpected error: %v", e)
			}
			if len(servers) != tc.servers {
				t.Fatalf("servers %d, want %d", len(servers), tc.servers)
			}
			if tc.servers == 0 {
				return
			}
			s := servers[0]
			span := func(sp deploy.Span) string {
				if sp.Line == 0 {
					return ""
				}
				return spanText(sp)
			}
			if got := span(s.Model.Span); got != tc.model {
				t.Errorf("model at %q, want %q", got, tc.model)
			}
			if got := span(s.Span); got != tc.program {
				t.Errorf("server at %q, want %q", got, tc.program)
			}
			var words []string
			if s.Entrypoint != nil {
				words = s.Entrypoint.Words
			}
			if !reflect.DeepEqual(words, tc.words) {
				t.Errorf("entrypoint words %q, want %q", words, tc.words)
			}
		})
	}
}

func spanText(sp deploy.Span) string {
	return fmt.Sprintf("%d:%d-%d", sp.Line, sp.Col, sp.EndCol)
}
