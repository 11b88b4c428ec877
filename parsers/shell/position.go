package shell

import (
	"sort"

	"github.com/kvlint/kvlint/deploy"
)

// Lines indexes where the lines of a text start, so byte offsets convert to
// 1-based line:col (byte columns) and back. The shell parser's own positions
// are not used for this: they pack line and column into 32 bits and lose the
// column past 16383 bytes, while an offset never overflows.
type Lines struct {
	starts []int // offset of the first byte of each line
	size   int   // length of the text
}

// NewLines indexes text.
func NewLines(text []byte) Lines {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return Lines{starts: starts, size: len(text)}
}

// Pos returns the 1-based line and byte column of offset off (clamped to the
// text; the offset one past the end is a valid position).
func (l Lines) Pos(off int) (line, col int) {
	off = max(0, min(off, l.size))
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return i + 1, off - l.starts[i] + 1
}

// Offset is the inverse of Pos. A position past the end of its line is
// clamped to the line's end.
func (l Lines) Offset(line, col int) int {
	if len(l.starts) == 0 || line < 1 {
		return 0
	}
	if line > len(l.starts) {
		return l.size
	}
	start := l.starts[line-1]
	end := l.size
	if line < len(l.starts) {
		end = l.starts[line] - 1
	}
	return max(start, min(start+col-1, end))
}

// ByteMapper returns the Mapper of a text whose i-th byte was written at byte
// at[i] of a file indexed by file; positions in that file map further through
// outer (nil = identity). A position at or past the end of the text maps one
// column past the position of its last byte. at must have one entry per byte
// of the text; text lines index the text itself.
func ByteMapper(text Lines, at []int, file Lines, outer Mapper) Mapper {
	return func(line, col int) (int, int) {
		if len(at) == 0 {
			return 1, 1
		}
		off := text.Offset(line, col)
		extra := 0
		if off >= len(at) {
			off, extra = len(at)-1, 1
		}
		l, c := file.Pos(at[off])
		if outer != nil {
			l, c = outer(l, c)
		}
		return l, c + extra
	}
}

// locator turns offsets of one text into spans of the user's file.
type locator struct {
	file  string
	lines Lines
	mapf  Mapper
}

func (lc locator) pos(off int) (int, int) {
	l, c := lc.lines.Pos(off)
	if lc.mapf != nil {
		l, c = lc.mapf(l, c)
	}
	return l, c
}

// span covers text[start:end]. The end is placed one column past the mapped
// position of the last byte, so an escape in a nested string cannot shift it.
func (lc locator) span(start, end int) deploy.Span {
	if end <= start {
		end = start + 1
	}
	l, c := lc.pos(start)
	el, ec := lc.pos(end - 1)
	return deploy.Span{File: lc.file, Line: l, Col: c, EndLine: el, EndCol: ec + 1}
}
