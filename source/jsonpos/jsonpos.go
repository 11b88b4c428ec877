// Package jsonpos places diagnostics in JSON text: at a byte, at the value
// of a key path, and where an encoding/json decoder stopped, so an error in
// a config.json or a baseline points at what must change.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// Span is the span of the byte at off (1-based line and byte column, as
// every kvlint span); an offset past the end points just after the last
// byte.
func Span(file string, data []byte, off int64) deploy.Span {
	line, col := LineCol(data, off)
	return deploy.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + 1}
}

// Errorf builds an error at the byte at off.
func Errorf(file string, data []byte, off int64, format string, args ...any) *diag.Diagnostic {
	return diag.Errorf(Span(file, data, off), format, args...)
}

// LineCol converts a byte offset into a 1-based line and byte column (lines
// end at "\n", source.LF).
func LineCol(data []byte, off int64) (line, col int) {
	return source.NewIndex(data, source.LF).Pos(int(min(max(off, 0), int64(len(data)))))
}

// SkipSpace returns the offset of the first byte at or after off that is
// not JSON white space.
func SkipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

// DecodeError places an error of encoding/json's decoder over data: a
// syntax error at the byte that broke it, a value of the wrong type at the
// start of that value (in words: "findings must be an array, not a JSON
// string"), an unknown field at its key, a text that stops short just
// after its last byte.
// The message has no "json: " prefix; callers say what the text is.
func DecodeError(file string, data []byte, err error) *diag.Diagnostic {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return Errorf(file, data, syn.Offset-1, "%s", syn.Error()) // Offset counts the byte
	case errors.As(err, &typ):
		return Errorf(file, data, valueStart(data, typ.Offset), "%s must be %s, not a JSON %s", typ.Field, kind(typ.Type), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Errorf(file, data, int64(len(data)), "unexpected end of file")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if quoted, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if name, uerr := strconv.Unquote(quoted); uerr == nil {
			if off, found := keyOffset(data, name); found {
				return Errorf(file, data, off, "%s", msg)
			}
		}
	}
	return Errorf(file, data, 0, "%s", msg)
}

// valueStart finds where the value that ends at offset end begins: a type
// error gives the end. For a string or a plain scalar that is exact; for
// an object or array it is the end.
func valueStart(data []byte, end int64) int64 {
	if len(data) == 0 {
		return 0
	}
	i := min(max(end, 1), int64(len(data))) - 1
	if data[i] == '"' {
		for j := i - 1; j >= 0; j-- {
			if data[j] == '"' && (j == 0 || data[j-1] != '\\') {
				return j
			}
		}
		return i
	}
	for i > 0 && !bytes.ContainsRune([]byte(" \t\r\n,:[{"), rune(data[i-1])) {
		i--
	}
	return i
}

// keyOffset finds the first object key written as name: the string
// followed by a colon.
func keyOffset(data []byte, name string) (int64, bool) {
	quoted, _ := json.Marshal(name)
	for from := 0; ; {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			return 0, false
		}
		at := from + i
		after := SkipSpace(data, int64(at+len(quoted)))
		if after < int64(len(data)) && data[after] == ':' {
			return int64(at), true
		}
		from = at + 1
	}
}

// kind names the JSON value that decodes into t.
func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// Index is where the values of a JSON text start, by key path: the values
// of the top-level keys and of their keys or elements, two levels down
// ("text_config.num_hidden_layers", "findings[3]").
type Index struct {
	file    string
	data    []byte
	lines   *source.Index
	offsets map[string]int64
}

// NewIndex indexes data, which must be valid JSON (decoded already).
func NewIndex(file string, data []byte) *Index {
	x := &Index{file: file, data: data, lines: source.NewIndex(data, source.LF), offsets: map[string]int64{}}
	s := &offsetScanner{data: data, offsets: x.offsets}
	s.value("", 0)
	return x
}

// File names the indexed text.
func (x *Index) File() string { return x.file }

// Span is the span of the value at path; for a path that is not there (a
// key the text lacks, or one too deep to be indexed), the start of the
// whole value, which is what holds it or lacks it.
func (x *Index) Span(path string) deploy.Span {
	off, ok := x.offsets[path]
	if !ok {
		off = SkipSpace(x.data, 0)
	}
	line, col := x.lines.Pos(int(off))
	return deploy.Span{File: x.file, Line: line, Col: col, EndLine: line, EndCol: col + 1}
}

// Errorf builds an error at the value of path.
func (x *Index) Errorf(path, format string, args ...any) *diag.Diagnostic {
	return diag.Errorf(x.Span(path), format, args...)
}

// offsetScanner walks valid JSON recording value offsets by key path.
type offsetScanner struct {
	data    []byte
	pos     int
	offsets map[string]int64
}

func (s *offsetScanner) ws() { s.pos = int(SkipSpace(s.data, int64(s.pos))) }

func (s *offsetScanner) value(path string, depth int) {
	s.ws()
	if s.pos >= len(s.data) {
		return
	}
	if path != "" && depth <= 2 {
		s.offsets[path] = int64(s.pos)
	}
	switch s.data[s.pos] {
	case '{':
		s.pos++
		for {
			s.ws()
			if s.pos >= len(s.data) || s.data[s.pos] == '}' {
				s.pos++
				return
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			key := s.str()
			s.ws()
			if s.pos < len(s.data) && s.data[s.pos] == ':' {
				s.pos++
			}
			child := key
			if path != "" {
				child = path + "." + key
			}
			s.value(child, depth+1)
		}
	case '[':
		s.pos++
		for i := 0; ; {
			s.ws()
			if s.pos >= len(s.data) || s.data[s.pos] == ']' {
				s.pos++
				return
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			s.value(path+"["+strconv.Itoa(i)+"]", depth+1)
			i++
		}
	case '"':
		s.str()
	default:
		for s.pos < len(s.data) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(s.data[s.pos])) {
			s.pos++
		}
	}
}

// str reads a string token and returns its decoded text.
func (s *offsetScanner) str() string {
	start := s.pos
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			var out string
			if err := json.Unmarshal(s.data[start:s.pos], &out); err != nil {
				return ""
			}
			return out
		}
		s.pos++
	}
	return ""
}
