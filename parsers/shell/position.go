package shell

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// NewLines indexes text for byte offset ↔ 1-based line:col (byte columns)
// conversion, lines ending at "\n" (source.LF). The shell parser's own
// positions are not used for this: they pack line and column into 32 bits
// and lose the column past 16383 bytes, while an offset never overflows.
func NewLines(text []byte) *source.Index { return source.NewIndex(text, source.LF) }

// ByteMapper returns the Mapper of a text whose i-th byte was written at byte
// at[i] of a file indexed by file; positions in that file map further through
// outer (nil = identity). A position at or past the end of the text maps one
// column past the position of its last byte. at must have one entry per byte
// of the text; text lines index the text itself.
func ByteMapper(text *source.Index, at []int, file *source.Index, outer Mapper) Mapper {
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
	lines *source.Index
	mapf  Mapper
	ev    *evalText // the text of an eval: positions go through its words
}

func (lc locator) pos(off int) (int, int) {
	if lc.ev != nil {
		return lc.ev.pos(off)
	}
	l, c := lc.lines.Pos(off)
	if lc.mapf != nil {
		l, c = lc.mapf(l, c)
	}
	return l, c
}

// span covers text[start:end]. The end is placed one column past the mapped
// position of the last byte, so an escape in a nested string cannot shift it.
func (lc locator) span(start, end int) deploy.Span {
	if lc.ev != nil {
		return lc.ev.span(start, end)
	}
	if end <= start {
		end = start + 1
	}
	l, c := lc.pos(start)
	el, ec := lc.pos(end - 1)
	return deploy.Span{File: lc.file, Line: l, Col: c, EndLine: el, EndCol: ec + 1}
}
