package sarif

import (
	"bytes"
	"os"
	"unicode/utf16"
	"unicode/utf8"
)

// maxSourceBytes bounds what is read to fingerprint a file; deployment files
// are kilobytes, and discovery refuses files above 16 MiB anyway.
const maxSourceBytes = 16 << 20

// sources reads each file a result points into once, for its line hashes
// and for column conversion.
type sources map[string]*source

type source struct {
	lines  [][]byte // without line terminators; nil when unreadable
	hashes []string // LineHashes of the file
}

func (s sources) get(file string) *source {
	if src, ok := s[file]; ok {
		return src
	}
	src := &source{}
	if info, err := os.Stat(file); err == nil && info.Mode().IsRegular() && info.Size() <= maxSourceBytes {
		if data, err := os.ReadFile(file); err == nil {
			src.hashes = LineHashes(data)
			src.lines = splitLines(data)
		}
	}
	s[file] = src
	return src
}

// splitLines splits at "\n", "\r\n" and "\r", the line ends LineHashes and
// GitHub count.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			return append(lines, data)
		}
		lines = append(lines, data[:i])
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

// lineHash returns the fingerprint of a 1-based line, or "" when the file
// could not be read or has no such line.
func (src *source) lineHash(line int) string {
	if line < 1 || line > len(src.hashes) {
		return ""
	}
	return src.hashes[line-1]
}

// utf16Column converts a 1-based byte column on a 1-based line into the
// 1-based UTF-16 column SARIF counts by default (run.columnKind
// utf16CodeUnits). kvlint's spans count bytes; the two agree on ASCII text.
// A line that cannot be read keeps the byte column.
func (src *source) utf16Column(line, col int) int {
	if line < 1 || line > len(src.lines) || col < 1 {
		return col
	}
	text := src.lines[line-1]
	if col-1 > len(text) {
		// Past the end (a span ending at the line break): count the rest as
		// single units.
		return utf16Len(text) + (col - len(text))
	}
	return utf16Len(text[:col-1]) + 1
}

// lineEnd is the UTF-16 column just past the last character of a line, or 0
// when unknown.
func (src *source) lineEnd(line int) int {
	if line < 1 || line > len(src.lines) {
		return 0
	}
	return utf16Len(src.lines[line-1]) + 1
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n += utf16.RuneLen(r)
	}
	return n
}
