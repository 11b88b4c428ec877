package helm

import (
	"sort"

	"github.com/kvlint/kvlint/deploy"
)

// lines indexes the line starts of a text (templates and rendered output
// break lines at \n only, as text/template counts them).
type lines struct {
	text   string
	starts []int
}

func newLines(s string) *lines {
	l := &lines{text: s, starts: []int{0}}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

func (l *lines) count() int { return len(l.starts) }

func (l *lines) lineStart(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(l.starts) {
		return len(l.text)
	}
	return l.starts[n-1]
}

// lineEnd is the offset of line n's \n (or the end of the text).
func (l *lines) lineEnd(n int) int {
	if n >= 1 && n < len(l.starts) {
		return l.starts[n] - 1
	}
	return len(l.text)
}

// position converts an offset to a 1-based line and byte column.
func (l *lines) position(off int) (int, int) {
	off = max(0, min(off, len(l.text)))
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return i + 1, off - l.starts[i] + 1
}

// offset converts a 1-based line and byte column to an offset (-1 when the
// line does not exist).
func (l *lines) offset(line, col int) int {
	if line < 1 || line > len(l.starts) || col < 1 {
		return -1
	}
	off := l.starts[line-1] + col - 1
	if off > len(l.text) {
		return len(l.text)
	}
	return off
}

func (l *lines) span(file string, start, end int) deploy.Span {
	if end < start {
		end = start
	}
	ln, c := l.position(start)
	el, ec := l.position(end)
	return deploy.Span{File: file, Line: ln, Col: c, EndLine: el, EndCol: ec}
}
