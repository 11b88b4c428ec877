package makefile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

func at(v deploy.Value) string {
	k := "?"
	if v.Known {
		k = "="
	}
	return fmt.Sprintf("%s|%s|%d:%d-%d:%d", v.Raw, k, v.Span.Line, v.Span.Col, v.Span.EndLine, v.Span.EndCol)
}

func parse(t *testing.T, text string) []*deploy.Server {
	t.Helper()
	servers, errs := ParseFile(source.NewFile("Makefile", []byte(text), source.SyntaxShell), nil, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return servers
}

func TestRecipes(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // per server: name then flags
	}{
		{"recipe with prefixes and a continuation",
			"serve:\n\t@-python3 -m sglang.launch_server --tp 2 \\\n\t  --port 30000\n",
			[]string{"Makefile:2 --port=30000|=|3:11-3:16 --tp-size=2|=|2:41-2:42"}},
		{"variables of each flavour, spans at their definitions",
			"TP := 4\nPORT ?= 8000\nPORT ?= 9000\nARGS = --tp $(TP)\nARGS += --port ${PORT}\nrun:\n\tsglang serve $(ARGS)\n",
			[]string{"Makefile:7 --port=8000|=|2:9-2:13 --tp-size=4|=|1:7-1:8"}},
		{"a recursive variable has its last value",
			"run:\n\tsglang serve --tp $(TP)\nTP = 2\nTP = 8\n",
			[]string{"Makefile:2 --tp-size=8|=|4:6-4:7"}},
		{"a word mixing recipe and variable text spans the recipe",
			"P = 30\nrun:\n\tsglang serve --port=$(P)000\n",
			[]string{"Makefile:3 --port=30000|=|3:15-3:29"}},
		{"$$ is a dollar for the shell",
			"run:\n\tP=1; sglang serve --port $$P\n",
			[]string{"Makefile:2 --port=1|=|2:27-2:30"}},
		{"unknown variable and automatic variable stay unknown",
			"run:\n\tsglang serve --port $(PORT) --model-path $@ --served-model-name $(shell cat name)\n",
			[]string{"Makefile:2 --model-path=$(@)|?|2:43-2:45 --port=$(PORT)|?|2:22-2:29 --served-model-name=$(shell cat name)|?|2:66-2:83"}},
		{"a make function that is no shell command is one unknown word over the reference",
			"run:\n\tsglang serve --tp 2 --served-model-name $(if $(N),$(N),m)\n",
			[]string{"Makefile:2 --served-model-name=$(:)|?|2:42-2:59 --tp-size=2|=|2:20-2:21"}},
		{"conditional assignment is unknown",
			"TP = 2\nifdef BIG\nTP = 8\nendif\nrun:\n\tsglang serve --tp $(TP)\n",
			[]string{"Makefile:6 --tp-size=$(TP)|?|6:20-6:25"}},
		{"rule with an inline recipe",
			"run: ; sglang serve --tp 2\n",
			[]string{"Makefile:1 --tp-size=2|=|1:26-1:27"}},
		{"each line its own shell",
			"run:\n\tP=1\n\tsglang serve --port $$P\n",
			[]string{"Makefile:3 --port=$P|?|3:22-3:25"}},
		{".ONESHELL runs a rule's lines in one shell",
			".ONESHELL:\nrun:\n\tP=1\n\tsglang serve --port $$P\nother:\n\tsglang serve --port $$P\n",
			[]string{"Makefile:4 --port=1|=|4:22-4:25", "Makefile:6 --port=$P|?|6:22-6:25"}},
		{"define blocks are not recipes",
			"define CMD\n\tsglang serve --tp 2\nendef\nbuild:\n\tgo build ./...\n", nil},
		{"a tab line outside a rule is not a recipe",
			"\tsglang serve --tp 2\n", nil},
		{"self-reference is bounded",
			"A = $(B)\nB = $(A)\nrun:\n\tsglang serve --tp $(A)\n",
			[]string{"Makefile:4 --tp-size=$(A)|?|4:20-4:24"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range parse(t, tt.text) {
				parts := []string{s.Name}
				for _, n := range s.ArgNames() {
					parts = append(parts, n+"="+at(s.Args[n]))
				}
				got = append(got, strings.Join(parts, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("servers:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestOriginAtDefinition(t *testing.T) {
	s := parse(t, "P = 30\nrun:\n\tsglang serve --port=$(P)000\n")
	v := s[0].Args["--port"]
	var spans []string
	for _, sp := range v.Origin.Spans() {
		spans = append(spans, fmt.Sprintf("%d:%d", sp.Line, sp.Col))
	}
	if strings.Join(spans, ",") != "1:5" {
		t.Errorf("origin %v, want the definition at 1:5", spans)
	}
}

func TestOriginAtReference(t *testing.T) {
	s := parse(t, "TP := 2\nARGS = --tp $(TP)\nrun:\n\tsglang serve $(ARGS)\n")
	v := s[0].Args["--tp-size"]
	if at(v) != "2|=|1:7-1:8" {
		t.Fatalf("--tp-size %s", at(v))
	}
	var spans []string
	for _, sp := range v.Origin.Spans() {
		spans = append(spans, fmt.Sprintf("%d:%d", sp.Line, sp.Col))
	}
	if strings.Join(spans, ",") != "4:15" {
		t.Errorf("origin %v, want the recipe's $(ARGS) at 4:15", spans)
	}
}

func TestExpansionBounded(t *testing.T) {
	// Each variable doubles the one before: 2^40 bytes if not bounded.
	var b strings.Builder
	b.WriteString("V0 = " + strings.Repeat("x", 1024) + "\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "V%d = $(V%d)$(V%d)\n", i, i-1, i-1)
	}
	b.WriteString("run:\n\tsglang serve $(V40)\n")
	_, errs := ParseFile(source.NewFile("Makefile", []byte(b.String()), source.SyntaxShell), nil, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "expands to more than") || errs[0].Span.Line != 43 {
		t.Fatalf("errors %v", errs)
	}
}

// A recipe that names no engine cannot launch one: make syntax kvlint does
// not model there ($(if …) in a shell if, an unbalanced quote) is no error
// of the run's. The same in a recipe that names an engine is reported.
func TestRecipeErrorsOnlyWhereAnEngineIsNamed(t *testing.T) {
	quiet := "build:\n\tcargo build $(if $(T),--target $(T))\n\t@if [ -z x ]; then echo 'a\n"
	if _, errs := ParseFile(source.NewFile("Makefile", []byte(quiet), source.SyntaxShell), nil, nil); len(errs) != 0 {
		t.Errorf("a recipe naming no engine gave errors: %v", errs)
	}
	loud := "serve:\n\t@if [ -z x ]; then vllm serve m 'a\n"
	_, errs := ParseFile(source.NewFile("Makefile", []byte(loud), source.SyntaxShell), nil, nil)
	if len(errs) != 1 || errs[0].Span.Line != 2 {
		t.Errorf("a broken recipe naming vllm: errors %v, want one at line 2", errs)
	}
}
