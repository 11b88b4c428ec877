package terraform

import (
	"sort"

	"github.com/hashicorp/hcl/v2"

	"github.com/kvlint/kvlint/deploy"
)

// file is one file the module reads (.tf, .tfvars, a template), indexed so
// byte offsets convert to deploy spans.
type file struct {
	name  string // as it appears in spans
	data  []byte
	lines []int // byte offset where each line starts
}

func newFile(name string, data []byte) *file {
	f := &file{name: name, data: data, lines: []int{0}}
	for i, b := range data {
		if b == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// pos converts a byte offset to a 1-based line and byte column. HCL counts
// columns in grapheme clusters; kvlint's spans count bytes, so every HCL
// position is converted through its Byte offset.
func (f *file) pos(off int) (line, col int) {
	off = max(0, min(off, len(f.data)))
	i := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	return i + 1, off - f.lines[i] + 1
}

// span is the span of bytes [start, end).
func (f *file) span(start, end int) deploy.Span {
	end = max(start, end)
	l, c := f.pos(start)
	el, ec := f.pos(end)
	return deploy.Span{File: f.name, Line: l, Col: c, EndLine: el, EndCol: ec}
}

// rangeSpan converts an HCL range of this file.
func (f *file) rangeSpan(r hcl.Range) deploy.Span { return f.span(r.Start.Byte, r.End.Byte) }

// text is the source text of an HCL range.
func (f *file) text(r hcl.Range) string {
	a, b := r.Start.Byte, r.End.Byte
	if a < 0 || b > len(f.data) || a > b {
		return ""
	}
	return string(f.data[a:b])
}

// files finds the indexed file of an HCL range by name.
type files map[string]*file

func (fs files) span(r hcl.Range) deploy.Span {
	if f := fs[r.Filename]; f != nil {
		return f.rangeSpan(r)
	}
	return deploy.Span{File: r.Filename, Line: r.Start.Line, Col: r.Start.Column, EndLine: r.End.Line, EndCol: r.End.Column}
}

func (fs files) text(r hcl.Range) string {
	if f := fs[r.Filename]; f != nil {
		return f.text(r)
	}
	return ""
}
