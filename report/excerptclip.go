package report

import (
	"unicode/utf8"
)

// maxExcerptBytes is the widest source line an excerpt shows whole; a
// minified manifest or a binary file has lines of megabytes.
const maxExcerptBytes = 160

// clipExcerpt makes a source line fit to print: bytes that are not valid
// UTF-8 and control characters other than tab become '?' (one byte for one,
// so columns stay where they were), and a long line is cut to a window
// around the span's column (1-based; 0 when there is none), marked with
// "..." on the sides it was cut. It returns the text and the span's
// columns moved into it.
func clipExcerpt(text []byte, col, endCol int) ([]byte, int, int) {
	out := make([]byte, 0, min(len(text), maxExcerptBytes+8))
	start, end := 0, len(text)
	if len(text) > maxExcerptBytes {
		at := max(col-1, 0)
		start = max(0, min(at-maxExcerptBytes/3, len(text)-maxExcerptBytes))
		end = start + maxExcerptBytes
		for start > 0 && start < len(text) && !utf8.RuneStart(text[start]) {
			start++
		}
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	shift := 0
	if start > 0 {
		out = append(out, "..."...)
		shift = 3 - start
	}
	for i := start; i < end; {
		r, size := utf8.DecodeRune(text[i:end])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20 && r != '\t', r == 0x7f:
			out = append(out, '?')
			size = max(size, 1)
		default:
			out = append(out, text[i:i+size]...)
		}
		i += size
	}
	if end < len(text) {
		out = append(out, "..."...)
	}
	if col > 0 {
		col += shift
		endCol = min(endCol+shift, end+shift+1)
	}
	if col < 1 || col > len(out)+1 {
		col, endCol = 0, 0
	}
	return out, col, endCol
}
