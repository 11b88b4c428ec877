package edit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/internal/confined"
)

func TestApply(t *testing.T) {
	data := []byte("abc def ghi")
	got, err := Apply(data, []Edit{{8, 11, "XYZ"}, {0, 0, ">"}, {4, 7, ""}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != ">abc  XYZ" {
		t.Errorf("Apply = %q", got)
	}
	// The same edit asked for twice (two findings with one fix) is applied once.
	got, err = Apply(data, []Edit{{0, 3, "A"}, {0, 3, "A"}})
	if err != nil || string(got) != "A def ghi" {
		t.Errorf("Apply(same edit twice) = %q, %v", got, err)
	}
}

func TestApplyRefusesOverlap(t *testing.T) {
	for _, es := range [][]Edit{
		{{0, 5, "x"}, {3, 7, "y"}},
		{{0, 5, "x"}, {2, 2, "ins"}},
		{{4, 4, "a"}, {4, 4, "b"}},
		{{0, 3, "A"}, {0, 3, "B"}},
	} {
		if _, err := Apply([]byte("abc def ghi"), es); err == nil {
			t.Errorf("Apply(%v) accepted overlapping edits", es)
		}
	}
	// Adjacent edits and an insertion at a replacement's edge do not overlap.
	if _, err := Apply([]byte("abc def"), []Edit{{0, 3, "x"}, {3, 4, "y"}, {4, 4, "z"}}); err != nil {
		t.Errorf("adjacent edits refused: %v", err)
	}
}

func TestLiteralKeepsQuoting(t *testing.T) {
	tests := []struct{ old, text, want string }{
		{`"--tp"`, "--tp-size", `"--tp-size"`},
		{`'--tp'`, "--tp-size", `'--tp-size'`},
		{`--tp`, "--tp-size", `--tp-size`},
		{`"--tp"`, `"--tp-size"`, `"--tp-size"`},
		{`"--x", "1"`, "", ""},
		{`"--x", "1"`, "y", "y"},
	}
	for _, tt := range tests {
		got, err := Literal([]byte(tt.old), tt.text)
		if err != nil || got != tt.want {
			t.Errorf("Literal(%s, %s) = %s, %v; want %s", tt.old, tt.text, got, err, tt.want)
		}
	}
	if _, err := Literal([]byte(`'x'`), "it's"); err == nil {
		t.Error("Literal put a quote inside single quotes")
	}
	if _, err := Literal([]byte(`"x"`), "$HOME"); err == nil {
		t.Error("Literal put a $ inside double quotes")
	}
}

// deleteWords deletes the first occurrence of first and the first
// occurrence of last after it, as two words.
func deleteWords(t *testing.T, text, first, last string) string {
	t.Helper()
	s := strings.Index(text, first)
	ls := s + len(first) + strings.Index(text[s+len(first):], last)
	if first == last {
		ls = s
	}
	from, to, ok := Deletion([]byte(text), [][2]int{{s, s + len(first)}, {ls, ls + len(last)}})
	if !ok {
		return "<refused>"
	}
	return text[:from] + text[to:]
}

func TestDeletion(t *testing.T) {
	tests := []struct{ name, text, first, last, want string }{
		{"shell line of its own", "python -m sglang.launch_server \\\n  --tp-size 2 \\\n  --tp-size 4 \\\n  --port 1\n", "--tp-size", "2",
			"python -m sglang.launch_server \\\n  --tp-size 4 \\\n  --port 1\n"},
		{"shell last line", "serve \\\n  --port 1 \\\n  --foo 2\necho\n", "--foo", "2", "serve \\\n  --port 1\necho\n"},
		{"shell inline", "serve --foo 2 --port 1\n", "--foo", "2", "serve --port 1\n"},
		{"yaml block items", "args:\n  - --foo\n  - \"2\" # two\n  - --port\n", "--foo", "2", "args:\n  - --port\n"},
		{"json array middle", `CMD ["--a", "1", "--foo", "2", "--b"]`, `--foo`, `2`, `CMD ["--a", "1", "--b"]`},
		{"json array first", `CMD ["--foo", "2", "--b"]`, `--foo`, `2`, `CMD ["--b"]`},
		{"json array only", `CMD ["--foo"]`, `--foo`, `--foo`, `CMD []`},
		{"folded scalar", "args: >-\n  --port 1\n  --foo 2\n", "--foo", "2", "args: >-\n  --port 1\n"},
		{"glued", "x=--foo", "--foo", "--foo", "<refused>"},
		{"first in the text", "--foo 2 --port 1", "--foo", "2", "--port 1"},
	}
	for _, tt := range tests {
		if got := deleteWords(t, tt.text, tt.first, tt.last); got != tt.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	data := []byte("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\nl14\nl15\nl16")
	var b bytes.Buffer
	// l2 → L2 and an inserted line after l5 are one hunk; l16 (no final
	// break) another.
	if err := Diff(&b, "x.sh", data, []Edit{{3, 5, "L2"}, {15, 15, "new\n"}, {51, 54, "end"}}); err != nil {
		t.Fatal(err)
	}
	want := `--- a/x.sh
+++ b/x.sh
@@ -1,8 +1,9 @@
 l1
-l2
+L2
 l3
 l4
 l5
+new
 l6
 l7
 l8
@@ -13,4 +14,4 @@
 l13
 l14
 l15
-l16
\ No newline at end of file
+end
\ No newline at end of file
`
	if b.String() != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := Diff(&b, "x.sh", data, nil); err != nil || b.Len() != 0 {
		t.Errorf("Diff of no edits = %q, %v", b.String(), err)
	}
	if err := Diff(&b, "x.sh", data, []Edit{{0, 4, "a"}, {2, 6, "b"}}); err == nil {
		t.Error("Diff accepted overlapping edits")
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.sh")
	if err := os.WriteFile(path, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := NewTree([]string{dir})
	if err := tree.Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(got) != "new" || info.Mode().Perm() != 0o755 {
		t.Errorf("after Write: %q, mode %v", got, info.Mode())
	}
	// A link inside the tree to a file inside it is still refused.
	link := filepath.Join(dir, "link.sh")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := tree.Write(link, []byte("x")); !errors.Is(err, ErrLink) {
		t.Errorf("Write through a link: %v", err)
	}
	// A file outside the checked tree is refused.
	outside := filepath.Join(t.TempDir(), "other.sh")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tree.Write(outside, []byte("x")); !errors.Is(err, confined.ErrOutside) {
		t.Errorf("Write outside the tree: %v", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "keep" {
		t.Errorf("outside file changed to %q", got)
	}
	// A directory linked inside the tree is no way in either.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x.sh"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sub, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := tree.Write(filepath.Join(dir, "linked", "x.sh"), []byte("x")); !errors.Is(err, ErrLink) {
		t.Errorf("Write through a linked directory: %v", err)
	}
	// The checked path itself may be a link: the user named it.
	named := filepath.Join(t.TempDir(), "named")
	if err := os.Symlink(dir, named); err != nil {
		t.Fatal(err)
	}
	if err := NewTree([]string{named}).Write(filepath.Join(named, "serve.sh"), []byte("via the named link")); err != nil {
		t.Errorf("Write below a linked checked path: %v", err)
	}
}
