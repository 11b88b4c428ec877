package capacity

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/kvlint/kvlint/deploy"
)

// jsonDoc is a decoded JSON object with the byte offset of every value, so
// an error about a value can point at it.
type jsonDoc struct {
	file string
	data []byte
	root map[string]any
	// offsets maps a key path ("text_config.num_hidden_layers") to the byte
	// offset where its value starts.
	offsets map[string]int64
}

// decodeJSONObject decodes data, which must be one JSON object. Syntax
// errors carry the line and column of the offending byte.
func decodeJSONObject(file string, data []byte) (*jsonDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(file, data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorAt(file, data, skipSpace(data, end), "unexpected data after the top-level JSON value")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errorAt(file, data, skipSpace(data, 0), "a config.json must hold a JSON object")
	}
	doc := &jsonDoc{file: file, data: data, root: root, offsets: map[string]int64{}}
	doc.indexOffsets()
	return doc, nil
}

// jsonError turns an encoding/json error into a *deploy.Error at the byte
// the decoder stopped on.
func jsonError(file string, data []byte, err error) *deploy.Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off := syn.Offset
		if off > 0 {
			off-- // Offset counts the byte that broke the syntax.
		}
		return errorAt(file, data, off, "invalid JSON: %s", syn.Error())
	case errors.As(err, &typ):
		return errorAt(file, data, typ.Offset, "invalid JSON: %s", typ.Error())
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errorAt(file, data, int64(len(data)), "invalid JSON: unexpected end of file")
	}
	return &deploy.Error{Span: deploy.Span{File: file}, Message: "invalid JSON: " + err.Error()}
}

// errorAt builds an error whose span is the byte at off (1-based line and
// byte column, as every kvlint span).
func errorAt(file string, data []byte, off int64, format string, args ...any) *deploy.Error {
	line, col := lineCol(data, off)
	e := deploy.Errorf(deploy.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + 1}, format, args...)
	return e
}

// lineCol converts a byte offset into a 1-based line and byte column. An
// offset past the end points just after the last byte.
func lineCol(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func skipSpace(data []byte, off int64) int64 {
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

// indexOffsets records where the values of the top-level keys and of their
// sub-objects' keys start. The data already decoded, so it is valid JSON.
func (d *jsonDoc) indexOffsets() {
	s := &offsetScanner{data: d.data, offsets: d.offsets}
	s.value("", 0)
}

// offsetScanner walks valid JSON recording value offsets by key path.
type offsetScanner struct {
	data    []byte
	pos     int
	offsets map[string]int64
}

func (s *offsetScanner) ws() { s.pos = int(skipSpace(s.data, int64(s.pos))) }

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
		for {
			s.ws()
			if s.pos >= len(s.data) || s.data[s.pos] == ']' {
				s.pos++
				return
			}
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			s.value(path+"[]", depth+3) // array elements are not indexed
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

// span returns the span of the value at path, or the file alone when the
// path has no recorded offset.
func (d *jsonDoc) span(path string) deploy.Span {
	off, ok := d.offsets[path]
	if !ok {
		return deploy.Span{File: d.file}
	}
	line, col := lineCol(d.data, off)
	return deploy.Span{File: d.file, Line: line, Col: col, EndLine: line, EndCol: col + 1}
}
