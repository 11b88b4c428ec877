// Package yamlsrc locates what yaml.v3 decoded in the file it came from:
// byte offsets and 1-based byte columns for nodes, the exact span of a
// scalar's content, and a map from every byte of a decoded scalar back to the
// bytes that wrote it (so a shell script inside a YAML string can report
// positions in the YAML file). It also splits a stream into documents so one
// broken document does not hide the others.
//
// It lives under parsers/k8s because Kubernetes manifests need it first;
// parsers/compose uses it too.
package yamlsrc

import (
	"unicode/utf8"

	"github.com/kvlint/kvlint/deploy"
)

// Source is the text of one YAML file with an index of its lines.
//
// Lines are broken where yaml.v3 breaks them (CR LF, CR, LF, and the Unicode
// NEL, LS and PS characters), so the line numbers yaml.v3 reports agree with
// ours. Columns are byte columns, as deploy.Span wants.
type Source struct {
	File  string
	Data  []byte
	lines []int // byte offset where each line starts
	bom   int   // length of a UTF-8 byte order mark, which yaml.v3 does not count
}

// NewSource indexes data, the content of file.
func NewSource(file string, data []byte) *Source {
	s := &Source{File: file, Data: data, lines: []int{0}}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		s.bom = 3
		s.lines[0] = 3
	}
	for i := s.bom; i < len(data); {
		if n := breakWidth(data, i); n > 0 {
			i += n
			s.lines = append(s.lines, i)
			continue
		}
		i++
	}
	return s
}

// breakWidth returns the length of the line break at data[i], or 0.
func breakWidth(data []byte, i int) int {
	switch data[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(data) && data[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(data) && data[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// Lines is the number of lines in the file.
func (s *Source) Lines() int { return len(s.lines) }

// LineStart is the byte offset of a 1-based line (clamped to the file).
func (s *Source) LineStart(line int) int {
	if line < 1 {
		line = 1
	}
	if line > len(s.lines) {
		return len(s.Data)
	}
	return s.lines[line-1]
}

// LineEnd is the byte offset of the end of a line's content, before its break.
func (s *Source) LineEnd(line int) int {
	end := len(s.Data)
	if line >= 1 && line < len(s.lines) {
		end = s.lines[line]
	}
	start := s.LineStart(line)
	for i := start; i < end; i++ {
		if breakWidth(s.Data, i) > 0 {
			return i
		}
	}
	return end
}

// Offset converts a yaml.v3 position (1-based line, 1-based column counted in
// characters) to a byte offset. Positions beyond the text are clamped.
func (s *Source) Offset(line, col int) int {
	off := s.LineStart(line)
	end := s.LineEnd(line)
	for c := 1; c < col && off < end; c++ {
		_, w := utf8.DecodeRune(s.Data[off:end])
		off += w
	}
	return off
}

// Position converts a byte offset to a 1-based line and byte column.
func (s *Source) Position(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > len(s.Data) {
		off = len(s.Data)
	}
	lo, hi := 0, len(s.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start := s.lines[lo]
	if off < start { // inside the byte order mark
		off = start
	}
	return lo + 1, off - start + 1
}

// Span is the span of the bytes [start, end).
func (s *Source) Span(start, end int) deploy.Span {
	if end < start {
		end = start
	}
	l, c := s.Position(start)
	el, ec := s.Position(end)
	return deploy.Span{File: s.File, Line: l, Col: c, EndLine: el, EndCol: ec}
}

// LineSpan covers the content of a whole line, for a diagnostic that knows
// only the line.
func (s *Source) LineSpan(line int) deploy.Span {
	if line < 1 {
		line = 1
	}
	if line > len(s.lines) {
		line = len(s.lines)
	}
	start, end := s.LineStart(line), s.LineEnd(line)
	if end == start { // an empty line: still a one-column span on that line
		return deploy.Span{File: s.File, Line: line, Col: 1, EndLine: line, EndCol: 1}
	}
	return s.Span(start, end)
}
