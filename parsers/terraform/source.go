package terraform

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// file is one file the module reads (.tf, .tfvars, a template), indexed so
// byte offsets convert to deploy spans.
type file struct {
	name  string // as it appears in spans
	data  []byte
	lines *source.Index // lines end at \n, as HCL counts them
}

func fromSource(sf *source.File) *file {
	return &file{name: sf.Name, data: sf.Data, lines: sf.Index(source.LF)}
}

// newFile indexes a file the module read from disk under its own path and
// puts it in the run's source set, so a span into it can be quoted.
func (m *module) newFile(name string, data []byte) *file { return fromSource(m.keep(name, data)) }

// keep puts a file the module read from disk in the run's source set.
func (m *module) keep(name string, data []byte) *source.File {
	sf := source.NewFile(name, data, source.SyntaxOf(name))
	if m.opt.Files != nil {
		sf = m.opt.Files.Add(sf)
	}
	return sf
}

// span is the span of bytes [start, end). HCL counts columns in grapheme
// clusters; kvlint's spans count bytes, so every HCL position is converted
// through its Byte offset.
func (f *file) span(start, end int) deploy.Span { return f.lines.Span(f.name, start, end) }

// offsetOf converts a 1-based line and byte column of f to an offset: 0 for
// a line f does not have, and a column past its line running on into the
// text (as the declaration ranges it converts never do).
func offsetOf(f *file, line, col int) int {
	if line < 1 || line > f.lines.Lines() {
		return 0
	}
	return min(f.lines.Start(line)+col-1, len(f.data))
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
