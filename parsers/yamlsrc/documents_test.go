package yamlsrc

import "testing"

// TestSyntaxErrorLines checks that yaml.v3's error lines (0-based for its
// parser's errors, 1-based for its scanner's) come out as the file's lines,
// also in a document that starts further down the file.
func TestSyntaxErrorLines(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
	}{
		{"a: 1\nb: [1, 2\nc: 3\n", 2, 1},            // parser: flow sequence never closed
		{"a: 1\nb: c: d\n", 2, 1},                   // scanner
		{"a:\n  - x\n  y: 1\n", 2, 1},               // parser: block sequence context
		{"a: 1\nb: 2\n- c\n", 3, 1},                 // parser: problem line
		{"a: 1\nkind: Pod\n\tspec: {}\n", 3, 1},     // the tab itself
		{"x: 0\n---\na: 1\nb: [1, 2\nc: 3\n", 4, 1}, // second document
		{"a: \"x\x01y\"\n", 1, 6},                   // control character, no line from yaml.v3
		{"---\n# comment\nb: *nope\n", 3, 1},        // unknown anchor: no line, the document's start
		{"a: 1\n---\n---\n\"unterminated\n", 4, 1},  // scanner at the end of the stream
		{"k: |\n  ok\n---\n  [\n", 4, 1},            // after a block scalar
	}
	for _, c := range cases {
		src := NewSource("f.yaml", []byte(c.in))
		_, errs := src.Documents()
		if len(errs) != 1 {
			t.Errorf("%q: errors %v, want one", c.in, errs)
			continue
		}
		if sp := errs[0].Span; sp.Line != c.line || sp.Col != c.col {
			t.Errorf("%q: %v, want %d:%d", c.in, errs[0], c.line, c.col)
		}
	}
}

func TestPositionsWithByteOrderMarkAndWideCharacters(t *testing.T) {
	src := NewSource("f.yaml", []byte("\xef\xbb\xbfname: \"é\"\nk: x\n"))
	docs, errs := src.Documents()
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	name := Get(docs[0].Root, "name")
	if sp := src.ContentSpan(name); sp.Line != 1 || sp.Col != 8 || sp.EndCol != 10 {
		t.Errorf("name span %+v, want 1:8-10 (byte columns after the BOM)", sp)
	}
	k := Get(docs[0].Root, "k")
	if sp := src.ContentSpan(k); sp.Line != 2 || sp.Col != 4 {
		t.Errorf("k span %+v", sp)
	}
}

// TestPartAt checks that the part holding a line is the one Documents
// decodes it in: from its marker to the next, the first and last parts
// bounded by the file.
func TestPartAt(t *testing.T) {
	in := "a: 1\n---\nb: [\n---\nc: 3"
	src := NewSource("f.yaml", []byte(in))
	cases := []struct {
		line int
		want string
	}{
		{1, "a: 1\n"},
		{2, "---\nb: [\n"},
		{3, "---\nb: [\n"},
		{5, "---\nc: 3"},
		{9, "---\nc: 3"},
		{0, "a: 1\n"},
	}
	for _, c := range cases {
		s, e := src.PartAt(c.line)
		if got := in[s:e]; got != c.want {
			t.Errorf("line %d: %q, want %q", c.line, got, c.want)
		}
	}
}
