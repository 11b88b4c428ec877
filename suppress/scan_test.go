package suppress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/source"
)

// found describes the suppressions of src compactly: "kind RULES from-to reason".
func found(format source.Syntax, src string) []string {
	var out []string
	for _, s := range scanFile("f", source.NewFile("f", []byte(src), format), format) {
		d := fmt.Sprintf("%s %s %d-%d %s", s.kind, strings.Join(s.rules, ","), s.from, s.to, s.reason)
		if s.problem != "" {
			d = s.kind + " problem: " + s.problem
		}
		out = append(out, d)
	}
	return out
}

func checkFound(t *testing.T, format source.Syntax, src string, want []string) {
	t.Helper()
	got := found(format, src)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("suppressions:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestScanYAML(t *testing.T) {
	checkFound(t, source.SyntaxYAML, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: x
  annotations:
    note: "has # kvlint:ignore KV999 -- inside quotes"
    other: 'it''s # kvlint:ignore KV998 -- inside quotes'
    plain: don't # kvlint:ignore KV102 -- after a plain scalar with an apostrophe
spec:
  template:
    spec:
      containers:
        # kvlint:ignore KV104 -- the whole item
        - name: decode
          image: x
          # kvlint:ignore KV101 -- the args block
          args:
            - --context-length
            - "131072"

          command: ["python3", "#x"]  # kvlint:ignore KV401 -- trailing, after a flow sequence
        - name: other
          msg: "one line
            # kvlint:ignore KV997 -- still inside the string"
`, []string{
		"inline KV102 8-8 after a plain scalar with an apostrophe",
		"inline KV104 14-21 the whole item",
		"inline KV101 17-19 the args block",
		"inline KV401 21-21 trailing, after a flow sequence",
	})
}

func TestScanYAMLCompactSequenceAndStacking(t *testing.T) {
	checkFound(t, source.SyntaxYAML, `args:   # kvlint:ignore KV101 -- every item
- --a
- --b
other:
# kvlint:ignore KV401 -- one
# kvlint:ignore KV402 -- stacked
- --c
- --d
# kvlint:ignore KV403 -- nothing below

last: 1
`, []string{
		"inline KV101 1-3 every item",
		"inline KV401 7-7 one",
		"inline KV402 7-7 stacked",
		"inline KV403 10-10 nothing below",
	})
}

func TestScanYAMLBlockScalarScript(t *testing.T) {
	checkFound(t, source.SyntaxYAML, `containers:
  - name: s
    command: ["sh", "-c"]
    args:
      - |
        # kvlint:ignore KV101 -- inside the script
        python3 -m sglang.launch_server \
        --max-total-tokens 4096 \
          --context-length 8192
        echo "# kvlint:ignore KV999 -- a string in the script"
        echo done # kvlint:ignore KV102 -- trailing in the script
    env: []   # kvlint:ignore KV103 -- YAML again
`, []string{
		"inline KV101 7-9 inside the script",
		"inline KV102 11-11 trailing in the script",
		"inline KV103 12-12 YAML again",
	})
}

func TestScanYAMLTemplateComments(t *testing.T) {
	checkFound(t, source.SyntaxYAML, `args:
  {{- /* kvlint:ignore KV101 -- Helm template comment */}}
  - --max-total-tokens
  - {{ .Values.tokens | quote }}   {{/* kvlint:ignore KV102 -- trailing */}}
  - '{{ "#" }}' # kvlint:ignore KV103 -- after a template
`, []string{
		"inline KV101 3-3 Helm template comment",
		"inline KV102 4-4 trailing",
		"inline KV103 5-5 after a template",
	})
}

func TestScanShell(t *testing.T) {
	checkFound(t, source.SyntaxShell, `#!/bin/sh
# kvlint:ignore KV101 -- above a continued command
python3 -m sglang.launch_server \
  --model-path x \
  --max-total-tokens 4096
echo "# kvlint:ignore KV999 -- in a string" '#kvlint:ignore KV998'
python3 -m sglang.launch_server --x 1 # kvlint:ignore KV401 -- trailing
# kvlint:ignore KV104 -- a whole if
if true; then
  python3 -m sglang.launch_server
fi
# kvlint:ignore-file KV105 -- the whole file
`, []string{
		"inline KV101 3-5 above a continued command",
		"inline KV401 7-7 trailing",
		"inline KV104 9-11 a whole if",
		"file KV105 1-12 the whole file",
	})
}

func TestScanShellThatDoesNotParse(t *testing.T) {
	checkFound(t, source.SyntaxShell, `# kvlint:ignore KV101 -- r
python3 -m sglang.launch_server \
  --max-total-tokens 4096
if then fi ((
`, []string{"inline KV101 2-3 r"})
}

func TestScanDockerfile(t *testing.T) {
	checkFound(t, source.SyntaxDockerfile, "# escape=`\n"+`FROM python:3.12
# kvlint:ignore KV101 -- the CMD
CMD ["python3", "-m", "sglang.launch_server", `+"`"+`
# a comment inside the continuation
     "--max-total-tokens", "4096"]
RUN echo hi # kvlint:ignore KV999 -- not a comment in a Dockerfile
RUN <<EOF
# kvlint:ignore KV998 -- inside a heredoc
EOF
  # kvlint:ignore-file -- indented comment
`, []string{
		"inline KV101 4-6 the CMD",
		"file  1-11 indented comment",
	})
}

func TestScanHCL(t *testing.T) {
	checkFound(t, source.SyntaxHCL, `# kvlint:ignore KV101 -- the block
resource "kubernetes_deployment" "x" {
  args = [
    "--max-total-tokens", "4096", // kvlint:ignore KV401 -- trailing
    "${lookup(var.m, "k")} # kvlint:ignore KV999",
    "$${literal} // kvlint:ignore KV998",
  ]
  /* kvlint:ignore KV104 -- block comment */
  x = "a"
  user_data = <<EOT
# kvlint:ignore KV997 -- heredoc
EOT
  y = 1 /* kvlint:ignore KV105 -- after code */
  /*
   kvlint:ignore KV106 -- multi-line
  */
  z = [
    1,
  ]
}
`, []string{
		"inline KV101 2-20 the block",
		"inline KV401 4-4 trailing",
		"inline KV104 9-9 block comment",
		"inline KV105 13-13 after code",
		"inline KV106 17-19 multi-line",
	})
}

func TestScanProblemsAndOtherFormats(t *testing.T) {
	checkFound(t, source.SyntaxOther, `# kvlint:ignore -- no ids
run # kvlint:ignore KV101 -- r
`, []string{
		"inline problem: kvlint:ignore names no rule: write kvlint:ignore KV101 -- reason (kvlint:ignore-file silences a whole file)",
		"inline KV101 2-2 r",
	})
}

func TestTextLines(t *testing.T) {
	for text, want := range map[string][]string{
		"":           {},
		"a":          {"a"},
		"a\n":        {"a"},
		"a\r\nb":     {"a", "b"},
		"a\n\n":      {"a", ""},
		"a\r\r\nb\r": {"a\r", "b"}, // one trailing CR of a line goes
	} {
		got := textLines(source.NewIndex([]byte(text), source.LF))
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("textLines(%q) = %q, want %q", text, got, want)
		}
	}
}
