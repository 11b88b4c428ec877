package source

import (
	"fmt"
	"testing"
)

// pos is a 1-based line and byte column.
type pos struct{ line, col int }

func TestIndexLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		breaks Breaks
		lines  []string // the content of each line, breaks left out
	}{
		{"empty", "", LF, []string{""}},
		{"LF", "a\nbc\n", LF, []string{"a", "bc", ""}},
		{"no final newline", "a\nbc", LF, []string{"a", "bc"}},
		{"CRLF under LF keeps the CR", "a\r\nb\r\n", LF, []string{"a\r", "b\r", ""}},
		{"lone CR under LF is text", "a\rb\n", LF, []string{"a\rb", ""}},
		{"CRLF", "a\r\nb\r\n", Newlines, []string{"a", "b", ""}},
		{"lone CR ends a line", "a\rb\r\rc", Newlines, []string{"a", "b", "", "c"}},
		{"CR at the end", "a\r", Newlines, []string{"a", ""}},
		{"NEL, LS and PS are text", "a\u0085b\u2028c", Newlines, []string{"a\u0085b\u2028c"}},
		{"YAML breaks at NEL, LS and PS", "a\u0085b\u2028c\u2029d\r\ne", YAML, []string{"a", "b", "c", "d", "e"}},
		{"YAML skips a byte order mark", "\ufeffa\nb", YAML, []string{"a", "b"}},
		{"a byte order mark elsewhere is text", "\ufeffa", LF, []string{"\ufeffa"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewIndex([]byte(tc.text), tc.breaks)
			if x.Lines() != len(tc.lines) {
				t.Fatalf("%d lines, want %d", x.Lines(), len(tc.lines))
			}
			for i, want := range tc.lines {
				got, ok := x.Line(i + 1)
				if !ok || string(got) != want {
					t.Errorf("line %d = %q, %v; want %q", i+1, got, ok, want)
				}
				if start := x.Start(i + 1); x.Offset(i+1, 1) != start {
					t.Errorf("line %d: Offset(1) = %d, Start = %d", i+1, x.Offset(i+1, 1), start)
				}
			}
			for _, n := range []int{0, len(tc.lines) + 1} {
				if _, ok := x.Line(n); ok {
					t.Errorf("line %d exists", n)
				}
			}
		})
	}
}

func TestIndexPositions(t *testing.T) {
	//         offsets: 0 1 2 3  4  5 6 7 8
	crlf := NewIndex([]byte("ab\r\ncd\ne"), LF)
	yaml := NewIndex([]byte("ab\r\ncd\re"), YAML)
	bom := NewIndex([]byte("\ufeffab\nc"), YAML)
	for _, tc := range []struct {
		x    *Index
		off  int
		want pos
	}{
		{crlf, 0, pos{1, 1}},
		{crlf, 2, pos{1, 3}}, // the \r is a byte of line 1
		{crlf, 3, pos{1, 4}}, // the \n too
		{crlf, 4, pos{2, 1}},
		{crlf, 7, pos{3, 1}},
		{crlf, 8, pos{3, 2}},  // one past the end is a position
		{crlf, 99, pos{3, 2}}, // past it is clamped
		{crlf, -5, pos{1, 1}},
		{yaml, 4, pos{2, 1}},
		{yaml, 7, pos{3, 1}}, // after the lone \r
		{bom, 0, pos{1, 1}},  // inside the mark
		{bom, 3, pos{1, 1}},
		{bom, 6, pos{2, 1}},
	} {
		if l, c := tc.x.Pos(tc.off); (pos{l, c}) != tc.want {
			t.Errorf("%q: Pos(%d) = %d:%d, want %v", tc.x.Data(), tc.off, l, c, tc.want)
		}
	}
	for _, tc := range []struct {
		line, col, want int
	}{
		{1, 1, 0}, {1, 3, 2}, {1, 9, 3}, // a column past the line stops at its \n
		{2, 2, 5}, {3, 1, 7}, {3, 5, 8}, // the last line ends at the end
		{0, 4, 0}, {4, 1, 8}, // lines outside the text
	} {
		if got := crlf.Offset(tc.line, tc.col); got != tc.want {
			t.Errorf("Offset(%d, %d) = %d, want %d", tc.line, tc.col, got, tc.want)
		}
	}
	if sp := crlf.Span("f", 4, 6); sp.File != "f" || sp.Line != 2 || sp.Col != 1 || sp.EndLine != 2 || sp.EndCol != 3 {
		t.Errorf("Span(4, 6) = %+v", sp)
	}
	if sp := crlf.Span("f", 5, 2); sp.Line != 2 || sp.Col != 2 || sp.EndCol != 2 {
		t.Errorf("a reversed span is empty at its start: %+v", sp)
	}
}

// Columns for SARIF count UTF-16 code units: two-byte and three-byte UTF-8
// characters are one unit, an astral character (four bytes) two.
func TestIndexUTF16Columns(t *testing.T) {
	// é is 2 bytes, ✓ 3, 😀 4: a, é, ✓, 😀 and x start at byte columns
	// 1, 2, 4, 7 and 11, and at UTF-16 columns 1, 2, 3, 4 and 6.
	x := NewIndex([]byte("aé✓😀x\r\nsecond\rthird"), Newlines)
	for _, tc := range []struct{ line, col, want int }{
		{1, 1, 1},
		{1, 2, 2},  // é
		{1, 4, 3},  // ✓
		{1, 7, 4},  // 😀 starts at unit 4…
		{1, 11, 6}, // …and takes two: x is unit 6
		{1, 12, 7}, // just past the line
		{1, 14, 9}, // further past it: one unit a byte
		{2, 3, 3},  // ASCII agrees
		{3, 6, 6},  // the line after a lone \r
		{4, 5, 5},  // no such line: the byte column
		{1, 0, 0},  // no column
		{1, 3, 3},  // inside é: the units before it, plus one
	} {
		if got := x.UTF16Col(tc.line, tc.col); got != tc.want {
			t.Errorf("UTF16Col(%d, %d) = %d, want %d", tc.line, tc.col, got, tc.want)
		}
	}
	for line, want := range map[int]int{1: 7, 2: 7, 3: 6, 4: 0} {
		if got := x.UTF16End(line); got != want {
			t.Errorf("UTF16End(%d) = %d, want %d", line, got, want)
		}
	}
	if got := NewIndex([]byte("\xff\xfe"), Newlines).UTF16End(1); got != 3 {
		t.Errorf("invalid bytes: UTF16End = %d, want 3 (one unit each)", got)
	}
}

// yaml.v3 counts columns in characters; CharOffset converts them to bytes.
func TestIndexCharOffset(t *testing.T) {
	x := NewIndex([]byte("k: é😀v\nnext"), YAML)
	for col, want := range map[int]int{1: 0, 4: 3, 5: 5, 6: 9, 7: 10, 99: 10} {
		if got := x.CharOffset(1, col); got != want {
			t.Errorf("CharOffset(1, %d) = %d, want %d", col, got, want)
		}
	}
	if got := x.CharOffset(2, 3); got != 13 {
		t.Errorf("CharOffset(2, 3) = %d, want 13", got)
	}
}

// FuzzIndex: any text under any rule indexes without panicking, and every
// offset converts to a position that converts back to it.
func FuzzIndex(f *testing.F) {
	for _, seed := range []string{"", "a\nb", "a\r\nb\rc", "\ufeffa\u2028b\u0085", "é😀\n\xff\r", "\r\r\n\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for b := range breakRules {
			x := NewIndex(data, b)
			for off := 0; off <= len(data); off++ {
				line, col := x.Pos(off)
				if line < 1 || line > x.Lines() || col < 1 {
					t.Fatalf("rule %d: Pos(%d) = %d:%d of %d lines", b, off, line, col, x.Lines())
				}
				start, end := x.Start(line), x.End(line)
				if back := x.Offset(line, col); back != off && (off >= start && off <= end) {
					t.Fatalf("rule %d: Pos(%d) = %d:%d, Offset back = %d", b, off, line, col, back)
				}
				if u := x.UTF16Col(line, col); u < 1 {
					t.Fatalf("rule %d: UTF16Col(%d, %d) = %d", b, line, col, u)
				}
			}
		}
	})
}

func ExampleIndex() {
	x := NewIndex([]byte("serve:\r\n  --tp 2\n"), LF)
	line, col := x.Pos(12)
	text, _ := x.Line(line)
	fmt.Printf("%d:%d %q\n", line, col, text)
	// Output: 2:5 "  --tp 2"
}
