package yamlsrc

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// firstScalar returns the value node under key in the first document.
func scalarAt(t *testing.T, src *Source, key string) *yaml.Node {
	t.Helper()
	docs, errs := src.Documents()
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	n := Get(docs[0].Root, key)
	if n == nil {
		t.Fatalf("no %q", key)
	}
	return n
}

// TestScalarMapsEveryWordToItsSource checks, for each scalar style, that the
// position of each word of the decoded value maps to where the word is
// written in the file.
func TestScalarMapsEveryWordToItsSource(t *testing.T) {
	cases := []struct {
		name, yaml string
	}{
		{"plain", "k: python -m sglang.launch_server --tp 2\n"},
		{"plain multi-line", "k: python -m\n  sglang.launch_server\n\n  --tp 2\n"},
		{"double", "k: \"python -m \\\"sglang\\\" --tp\\t2\"\n"},
		{"double folded", "k: \"python -m\n   sglang --tp \\\n   2\"\n"},
		{"single", "k: 'python ''-m'' sglang\n\n  --tp 2'\n"},
		{"literal", "k: |\n  python -m sglang \\\n    --tp 2\n  echo done\n"},
		{"literal keep", "k: |+ # comment\n    python -m sglang\n\n"},
		{"folded", "k: >-\n  python -m sglang\n  --tp 2\n\n  echo\n     more indented\n"},
		{"anchored", "k: &a !!str \"python --tp 2\"\n"},
		{"unicode", "k: \"héllo wörld --tp 2\"\n"},
		{"crlf", "k: |\r\n  python -m sglang\r\n  --tp 2\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := NewSource("f.yaml", []byte(c.yaml))
			n := scalarAt(t, src, "k")
			text, exact := src.Scalar(n)
			if !exact {
				t.Fatalf("alignment failed for %q", n.Value)
			}
			for _, w := range strings.Fields(text.S) {
				w = strings.Trim(w, `"'`)
				i := strings.Index(text.S, w)
				a, b := text.Range(i, i+len(w))
				got := string(src.Data[a:b])
				// Escapes are spelled differently in the source; compare
				// after the same decoding by checking the first byte only.
				if got != w && !strings.ContainsAny(got, "\\'") {
					t.Errorf("word %q maps to %q", w, got)
				}
			}
		})
	}
}

func TestMapperGivesFilePositions(t *testing.T) {
	src := NewSource("f.yaml", []byte("a: 1\nscript: |\n  python -m sglang \\\n    --tp 2\n"))
	n := scalarAt(t, src, "script")
	text, _ := src.Scalar(n)
	m := src.Mapper(text)
	// "--tp" is on line 2 of the script, column 3 (after two spaces).
	if l, c := m(2, 3); l != 4 || c != 5 {
		t.Errorf("--tp maps to %d:%d, want 4:5", l, c)
	}
	// One past "--tp": column 7 in the script, 9 in the file.
	if l, c := m(2, 7); l != 4 || c != 9 {
		t.Errorf("end of --tp maps to %d:%d, want 4:9", l, c)
	}
	if l, c := m(1, 1); l != 3 || c != 3 {
		t.Errorf("python maps to %d:%d, want 3:3", l, c)
	}
}

func TestContentSpanInsideQuotes(t *testing.T) {
	src := NewSource("f.yaml", []byte("args: [\"--tp\", '8', 16, \"\"]\n"))
	docs, _ := src.Documents()
	seq := Get(docs[0].Root, "args")
	want := [][4]int{{1, 9, 1, 13}, {1, 17, 1, 18}, {1, 21, 1, 23}, {1, 26, 1, 26}}
	for i, n := range seq.Content {
		sp := src.ContentSpan(n)
		got := [4]int{sp.Line, sp.Col, sp.EndLine, sp.EndCol}
		if got != want[i] {
			t.Errorf("item %d %q: span %v, want %v", i, n.Value, got, want[i])
		}
	}
}

func TestDocumentsKeepGoingAfterABrokenOne(t *testing.T) {
	in := "a: 1\n---\nb: [1, 2\nc: 3\n---\nd: 4\n"
	src := NewSource("f.yaml", []byte(in))
	docs, errs := src.Documents()
	if len(errs) != 1 {
		t.Fatalf("errors %v", errs)
	}
	if errs[0].Span.Line < 3 || errs[0].Span.Line > 4 {
		t.Errorf("error at line %d, want 3 or 4: %v", errs[0].Span.Line, errs[0])
	}
	if len(docs) != 2 || Get(docs[1].Root, "d") == nil || Get(docs[1].Root, "d").Line != 6 {
		t.Errorf("documents %+v", docs)
	}
}

func TestMergeKeys(t *testing.T) {
	in := "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n"
	src := NewSource("f.yaml", []byte(in))
	docs, _ := src.Documents()
	m := Get(docs[0].Root, "m")
	if v, _ := Str(Get(m, "x")); v != "1" {
		t.Errorf("x = %q", v)
	}
	if v, _ := Str(Get(m, "y")); v != "3" {
		t.Errorf("y = %q", v)
	}
}
