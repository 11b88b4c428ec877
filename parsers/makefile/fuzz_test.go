package makefile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

func FuzzMakefile(f *testing.F) {
	for _, s := range []string{
		"TP := 4\nARGS = --tp $(TP)\nARGS += --port ${PORT}\nrun:\n\t@sglang serve $(ARGS) \\\n\t  --x $$Y $@ $(shell id)\n",
		"ifdef X\nA = 1\nelse\nA = 2\nendif\ndefine D\n\tx\nendef\nr: ; sglang serve $(A)\n",
		"A = $(B)\nB = $(A)\nr:\n\t-sglang serve --tp $(A) # c\n",
		"r:\n\tsglang serve --port=$(P)0 '$(Q)' \"$(\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines := bytes.Count([]byte(text), []byte("\n")) + 1
		servers, errs := ParseFile(source.NewFile("Makefile", []byte(text), source.SyntaxShell), nil, nil)
		check := func(s deploy.Span, what string) {
			if s.File != "Makefile" || s.Line < 1 || s.Col < 1 || s.EndLine < s.Line ||
				s.EndLine == s.Line && s.EndCol <= s.Col || s.EndLine > lines {
				t.Fatalf("bad %s span %+v for %q", what, s, text)
			}
		}
		for _, s := range servers {
			check(s.Span, "server")
			for _, v := range s.Values() {
				if v.IsSet() {
					check(v.Span, "value")
				}
			}
		}
		for _, e := range errs {
			check(e.Span, "error")
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("%v for %q", e, text)
			}
		}
	})
}
