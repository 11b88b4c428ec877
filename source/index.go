package source

import (
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kvlint/kvlint/deploy"
)

// Breaks is a rule for where a line ends. kvlint needs three, and they
// differ on purpose; this is the one place that says how.
type Breaks int

const (
	// LF ends a line at "\n" only. It is the rule of kvlint's own spans in
	// every format but YAML (shell, Dockerfile, HCL, JSON, Helm templates,
	// which text/template and the shell parser count the same way), of the
	// text reporter's excerpts, of the suppression scanner and of baseline
	// fingerprints. A "\r" before the "\n" belongs to the line's bytes:
	// Line keeps it, and a caller that shows or compares text trims it.
	LF Breaks = iota
	// Newlines ends a line at "\n", "\r\n" and a lone "\r", as GitHub counts
	// lines: SARIF regions and primaryLocationLineHash follow it.
	Newlines
	// YAML is Newlines plus the Unicode NEL, LS and PS characters, with a
	// UTF-8 byte order mark outside line 1's columns: the line numbers
	// yaml.v3 reports agree with it.
	YAML
	breakRules // how many rules there are
)

// Width is the length of the line break that starts at data[i] under
// rule b, or 0 when none does.
func (b Breaks) Width(data []byte, i int) int {
	switch data[i] {
	case '\n':
		return 1
	case '\r':
		if b == LF {
			return 0
		}
		if i+1 < len(data) && data[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2: // NEL is C2 85
		if b == YAML && i+1 < len(data) && data[i+1] == 0x85 {
			return 2
		}
	case 0xE2: // LS is E2 80 A8, PS E2 80 A9
		if b == YAML && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// Index maps byte offsets of a text to 1-based lines and columns and back.
// Columns count bytes, as deploy.Span does; UTF16Col converts them for
// SARIF. Offsets and positions outside the text are clamped, never a panic.
type Index struct {
	data   []byte
	breaks Breaks
	starts []int // offset of the first byte of each line
}

// NewIndex indexes data under the line-break rule b.
func NewIndex(data []byte, b Breaks) *Index {
	x := &Index{data: data, breaks: b, starts: []int{0}}
	from := 0
	if b == YAML && len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		from = 3
		x.starts[0] = 3
	}
	if b == LF {
		// The common case, and the hot one: one byte to look for.
		for i := from; i < len(data); i++ {
			if data[i] == '\n' {
				x.starts = append(x.starts, i+1)
			}
		}
		return x
	}
	for i := from; i < len(data); {
		if n := b.Width(data, i); n > 0 {
			i += n
			x.starts = append(x.starts, i)
			continue
		}
		i++
	}
	return x
}

// Data is the indexed text.
func (x *Index) Data() []byte { return x.data }

// Lines is the number of lines: one more than the number of breaks, so a
// text that ends with a break has an empty last line.
func (x *Index) Lines() int { return len(x.starts) }

// Start is the offset of line n's first byte. A line before the first is
// line 1; a line after the last starts at the end of the text.
func (x *Index) Start(n int) int {
	if n < 1 {
		n = 1
	}
	if n > len(x.starts) {
		return len(x.data)
	}
	return x.starts[n-1]
}

// End is the offset just past line n's content, before its break (clamped
// as Start is).
func (x *Index) End(n int) int {
	if n < 1 {
		n = 1
	}
	if n >= len(x.starts) {
		return len(x.data)
	}
	start, next := x.starts[n-1], x.starts[n]
	for i := start; i < next; i++ {
		if x.breaks.Width(x.data, i) > 0 {
			return i
		}
	}
	return next
}

// Line is the content of line n without its break, and false when the text
// has no line n.
func (x *Index) Line(n int) ([]byte, bool) {
	if n < 1 || n > len(x.starts) {
		return nil, false
	}
	return x.data[x.Start(n):x.End(n)], true
}

// Pos converts an offset to a 1-based line and byte column. The offset one
// past the end is a valid position; offsets beyond it are clamped to it, and
// an offset inside a byte order mark is the first column of line 1.
func (x *Index) Pos(off int) (line, col int) {
	off = max(0, min(off, len(x.data)))
	i := max(0, sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })-1)
	return i + 1, max(off, x.starts[i]) - x.starts[i] + 1
}

// Offset is the inverse of Pos for a byte column. A line before the first
// is the start of the text, a line after the last its end, and a column
// past the end of its line is the line's end.
func (x *Index) Offset(line, col int) int {
	switch {
	case line < 1:
		return x.Start(1)
	case line > len(x.starts):
		return len(x.data)
	}
	start := x.Start(line)
	return max(start, min(start+col-1, x.End(line)))
}

// CharOffset is Offset for a column counted in characters (UTF-8
// sequences), as yaml.v3 counts them.
func (x *Index) CharOffset(line, col int) int {
	off, end := x.Start(line), x.End(line)
	for c := 1; c < col && off < end; c++ {
		_, w := utf8.DecodeRune(x.data[off:end])
		off += w
	}
	return off
}

// Span is the span of the bytes [start, end) of the text named file.
func (x *Index) Span(file string, start, end int) deploy.Span {
	end = max(start, end)
	l, c := x.Pos(start)
	el, ec := x.Pos(end)
	return deploy.Span{File: file, Line: l, Col: c, EndLine: el, EndCol: ec}
}

// UTF16Col converts a 1-based byte column on a 1-based line into the
// 1-based UTF-16 column SARIF counts by default (run.columnKind
// utf16CodeUnits); the two agree on ASCII text. A column past the end of
// the line (a span ending at the line break) counts what lies beyond as
// single units. A line the text does not have keeps the byte column.
func (x *Index) UTF16Col(line, col int) int {
	text, ok := x.Line(line)
	if !ok || col < 1 {
		return col
	}
	if col-1 > len(text) {
		return utf16Len(text) + (col - len(text))
	}
	return utf16Len(text[:col-1]) + 1
}

// UTF16End is the UTF-16 column just past the last character of a line, or
// 0 when the text has no such line.
func (x *Index) UTF16End(line int) int {
	text, ok := x.Line(line)
	if !ok {
		return 0
	}
	return utf16Len(text) + 1
}

// utf16Len counts the UTF-16 code units of UTF-8 text; an invalid byte is
// U+FFFD, one unit.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n += utf16.RuneLen(r)
	}
	return n
}
