package yamlsrc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/diag"
)

// Document is one YAML document of a stream.
type Document struct {
	// Root is the document's content (never a yaml.DocumentNode); nil for an
	// empty document.
	Root *yaml.Node
	// Line is the first line of the document's text.
	Line int
}

// Documents decodes every document of the stream. The stream is split at
// document markers (a line starting with "---") and each part is decoded on
// its own, so a syntax error in one document is reported at its line and the
// documents after it are still read. YAML ends any scalar at a document marker
// in column 1, so the split agrees with a YAML parser on valid streams.
// Node lines are absolute lines of the file.
func (s *Source) Documents() ([]Document, []*diag.Diagnostic) {
	var starts []int
	for line := 1; line <= s.Lines(); line++ {
		if line == 1 || s.isDocumentStart(line) {
			starts = append(starts, line)
		}
	}
	var docs []Document
	var errs []*diag.Diagnostic
	for i, first := range starts {
		last := s.Lines()
		end := len(s.Data)
		if i+1 < len(starts) {
			last = starts[i+1] - 1
			end = s.LineStart(starts[i+1])
		}
		d, e := s.decodePart(first, last, s.Data[s.LineStart(first):end])
		docs = append(docs, d...)
		errs = append(errs, e...)
	}
	return docs, errs
}

func (s *Source) isDocumentStart(line int) bool {
	off := s.LineStart(line)
	if !bytes.HasPrefix(s.Data[off:], []byte("---")) {
		return false
	}
	return off+3 == len(s.Data) || isSpace(s.Data[off+3]) || breakWidth(s.Data, off+3) > 0
}

// decodePart decodes the documents of lines first..last, whose text is part.
func (s *Source) decodePart(first, last int, part []byte) (docs []Document, errs []*diag.Diagnostic) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a linter must
		// report the file, not crash on it.
		if r := recover(); r != nil {
			errs = append(errs, diag.Errorf(s.LineSpan(s.firstContentLine(first, last)),
				"the YAML parser failed on this document: %v", r))
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(part))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, errs
		}
		if err != nil {
			return docs, append(errs, s.syntaxError(err, first, last, part))
		}
		shiftLines(&doc, first-1)
		d := Document{Line: doc.Line}
		if d.Line < first {
			d.Line = first
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
			d.Root = doc.Content[0]
		}
		docs = append(docs, d)
	}
}

// shiftLines adds delta to the line of every node under n.
func shiftLines(n *yaml.Node, delta int) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		top.Line += delta
		stack = append(stack, top.Content...)
	}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the errors of yaml.v3's parser (parserc.go, the
// yaml_parser_set_parser_error calls). For these yaml.v3 (decode.go,
// parser.fail) prints the 0-based line of the mark; scanner errors get
// 1-based lines.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// syntaxError turns a yaml.v3 error into a diagnostic at the line it names.
// yaml.v3 names a line but no column, so the span covers the line.
func (s *Source) syntaxError(err error, first, last int, part []byte) *diag.Diagnostic {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			n++
		}
		line := min(max(first-1+n, first), last)
		// An error at the end of the stream names the empty line after
		// the last line break: point at the last line with text instead.
		for line > first && strings.TrimSpace(string(s.Data[s.LineStart(line):s.LineEnd(line)])) == "" {
			line--
		}
		if strings.Contains(m[2], "tab character") {
			// yaml.v3 names the line where the enclosing token began;
			// the tab itself is at the start of a later line.
			if off, ok := s.leadingTab(line, last); ok {
				return diag.Errorf(s.Span(off, off+1), "invalid YAML: %s", m[2])
			}
		}
		return diag.Errorf(s.LineSpan(line), "invalid YAML: %s", m[2])
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// Errors about the bytes themselves carry no line: find the bytes.
	base := s.LineStart(first)
	if i := badByte(part); i >= 0 {
		return diag.Errorf(s.Span(base+i, base+i+1), "invalid YAML: %s", msg)
	}
	return diag.Errorf(s.LineSpan(s.firstContentLine(first, last)), "invalid YAML: %s", msg)
}

// badByte finds the first byte YAML does not accept: invalid UTF-8 or a
// control character other than tab and line breaks.
func badByte(b []byte) int {
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w <= 1 {
			return i
		}
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7F && r <= 0x9F && r != 0x85) ||
			(r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF {
			if !(i == 0 && r == 0xFEFF) {
				return i
			}
		}
		i += w
	}
	return -1
}

// firstContentLine is the first line of first..last that holds more than
// blanks, comments or a document marker: where a document begins.
func (s *Source) firstContentLine(first, last int) int {
	for l := first; l <= last; l++ {
		text := strings.TrimSpace(string(s.Data[s.LineStart(l):s.LineEnd(l)]))
		if text != "" && !strings.HasPrefix(text, "#") && text != "---" {
			return l
		}
	}
	return first
}

// Describe names a node's kind for messages: "a mapping", "the string \"x\"".
func Describe(n *yaml.Node) string {
	n = Resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.Tag, "!!"), v)
	}
	return "an unexpected node"
}

// leadingTab finds the first tab in the indentation of lines from..last.
func (s *Source) leadingTab(from, last int) (int, bool) {
	for l := from; l <= last; l++ {
		for i := s.LineStart(l); i < s.LineEnd(l); i++ {
			if s.Data[i] == '\t' {
				return i, true
			}
			if s.Data[i] != ' ' {
				break
			}
		}
	}
	return 0, false
}

// PartAt is the text of the document holding a line, as Documents splits
// the stream: the byte offsets from its document marker (or the start of
// the file) to the next marker (or the end of the file).
func (s *Source) PartAt(line int) (start, end int) {
	first := max(min(line, s.Lines()), 1)
	for first > 1 && !s.isDocumentStart(first) {
		first--
	}
	last := max(line, 1) + 1
	for last <= s.Lines() && !s.isDocumentStart(last) {
		last++
	}
	end = len(s.Data)
	if last <= s.Lines() {
		end = s.LineStart(last)
	}
	return s.LineStart(first), end
}
