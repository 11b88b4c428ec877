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
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// Source is the text of one YAML file with an index of its lines.
//
// Lines are broken where yaml.v3 breaks them (source.YAML: CR LF, CR, LF,
// and the Unicode NEL, LS and PS characters), so the line numbers yaml.v3
// reports agree with ours. Columns are byte columns, as deploy.Span wants.
type Source struct {
	File  string
	Data  []byte
	lines *source.Index
}

// NewSource indexes data, the content of file.
func NewSource(file string, data []byte) *Source {
	return &Source{File: file, Data: data, lines: source.NewIndex(data, source.YAML)}
}

// FromFile indexes a file of the run's source set, sharing its index.
func FromFile(f *source.File) *Source {
	return &Source{File: f.Name, Data: f.Data, lines: f.Index(source.YAML)}
}

// breakWidth returns the length of the line break at data[i], or 0.
func breakWidth(data []byte, i int) int { return source.YAML.Width(data, i) }

// Lines is the number of lines in the file.
func (s *Source) Lines() int { return s.lines.Lines() }

// LineStart is the byte offset of a 1-based line (clamped to the file).
func (s *Source) LineStart(line int) int { return s.lines.Start(line) }

// LineEnd is the byte offset of the end of a line's content, before its break.
func (s *Source) LineEnd(line int) int { return s.lines.End(line) }

// Offset converts a yaml.v3 position (1-based line, 1-based column counted in
// characters) to a byte offset. Positions beyond the text are clamped.
func (s *Source) Offset(line, col int) int { return s.lines.CharOffset(line, col) }

// Position converts a byte offset to a 1-based line and byte column.
func (s *Source) Position(off int) (line, col int) { return s.lines.Pos(off) }

// Span is the span of the bytes [start, end).
func (s *Source) Span(start, end int) deploy.Span { return s.lines.Span(s.File, start, end) }

// LineSpan covers the content of a whole line, for a diagnostic that knows
// only the line.
func (s *Source) LineSpan(line int) deploy.Span {
	line = max(1, min(line, s.lines.Lines()))
	start, end := s.LineStart(line), s.LineEnd(line)
	if end == start { // an empty line: still a one-column span on that line
		return deploy.Span{File: s.File, Line: line, Col: 1, EndLine: line, EndCol: 1}
	}
	return s.Span(start, end)
}
