package dockerfile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func FuzzDockerfile(f *testing.F) {
	seeds := []string{
		"FROM lmsysorg/sglang:latest\nCMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--port\", \"30000\"]\n",
		"ARG B=img\nFROM ${B} AS base\nENV M=m \\\n    P=1\nFROM base\nCMD python3 -m sglang.launch_server \\\n# c\n  --model-path $M --port \"${P}\"\n",
		"# escape=`\nFROM img\nENTRYPOINT [\"/bin/bash\", \"-c\", \"exec sglang serve \\\"$@\\\"\", \"--\"]\nCMD [\"--tp\", \"\\u00e92\"]\n",
		"FROM img\r\nRUN <<-EOF cat\r\n\tx\r\n\tEOF\r\nSHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]\r\nCMD --x\r\n",
		"FROM img\nENV LEGACY a \"b\" c\nENV A=${X:-d} B=${Y:+e} C=${Z#p} D=${W/a/b}\nARG\nCMD ['a']\n",
		"\xef\xbb\xbfFROM a b\nCOMAND\nONBUILD RUN <<EOF\nEOF\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dockerfile string) {
		data := []byte(dockerfile)
		lines := bytes.Count(data, []byte("\n")) + 1
		p, final := analyse("Dockerfile", data)
		check := func(s deploy.Span, what string) {
			if s.File != "Dockerfile" || s.Line != 0 && (s.Line < 1 || s.Col < 1 || s.EndLine < s.Line ||
				s.EndLine == s.Line && s.EndCol <= s.Col || s.EndLine > lines) {
				t.Fatalf("bad %s span %+v for %q", what, s, dockerfile)
			}
		}
		if final != nil {
			cmds, _ := p.commands(final)
			for _, c := range cmds {
				check(c.Span, "command")
				for _, w := range c.Words {
					if w.Span.Line == 0 {
						t.Fatalf("word %q without a span for %q", w.Raw, dockerfile)
					}
					check(w.Span, "word")
				}
			}
		}
		_, errs := Parse("Dockerfile", data, nil)
		for _, e := range append(p.errs, errs...) {
			check(e.Span, "error")
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("%v for %q", e, dockerfile)
			}
		}
	})
}
