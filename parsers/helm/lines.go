package helm

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// lines indexes a template or rendered output, whose lines break at \n only
// as text/template counts them (source.LF). Its methods keep the contracts
// the provenance code was written against: an offset of -1 for a line that
// does not exist, a column past its line running on into the text.
type lines struct {
	text string
	idx  *source.Index
}

func newLines(s string) *lines { return &lines{text: s, idx: source.NewIndex([]byte(s), source.LF)} }

func (l *lines) count() int { return l.idx.Lines() }

func (l *lines) lineStart(n int) int {
	if n < 1 {
		return 0
	}
	return l.idx.Start(n)
}

// lineEnd is the offset of line n's \n (or the end of the text).
func (l *lines) lineEnd(n int) int {
	if n < 1 {
		return len(l.text)
	}
	return l.idx.End(n)
}

// position converts an offset to a 1-based line and byte column.
func (l *lines) position(off int) (int, int) { return l.idx.Pos(off) }

// offset converts a 1-based line and byte column to an offset (-1 when the
// line does not exist).
func (l *lines) offset(line, col int) int {
	if line < 1 || line > l.idx.Lines() || col < 1 {
		return -1
	}
	return min(l.idx.Start(line)+col-1, len(l.text))
}

func (l *lines) span(file string, start, end int) deploy.Span { return l.idx.Span(file, start, end) }
