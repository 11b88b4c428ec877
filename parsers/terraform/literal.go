package terraform

import (
	"strconv"
	"unicode/utf8"
)

// alignLiteral maps the decoded value of an HCL string literal onto the
// source bytes [start, end) that wrote it: at[i] is the offset of the byte
// that produced val[i]. It understands the escapes of quoted strings (\n,
// \", \\, \uNNNN, ...), the doubled $${ and %%{ of templates, and skips
// source bytes the value does not have (the indentation a <<- heredoc
// strips, the white space a ~ strip marker removes). It returns nil when the
// value cannot be found in the source, and the caller maps the whole range.
func alignLiteral(src []byte, start, end int, val string) []int {
	if start < 0 || end > len(src) || start > end {
		return nil
	}
	at := make([]int, len(val))
	i, j := 0, start
	for i < len(val) {
		if j >= end {
			return nil
		}
		c := src[j]
		if c == '\\' && j+1 < end {
			if dec, n := decodeEscape(src[j:end]); n > 0 && len(dec) > 0 && len(val)-i >= len(dec) && val[i:i+len(dec)] == dec {
				for k := range len(dec) {
					at[i+k] = j
				}
				i += len(dec)
				j += n
				continue
			}
		}
		if (c == '$' || c == '%') && j+2 < end && src[j+1] == c && src[j+2] == '{' && val[i] == c {
			at[i] = j
			i++
			j += 2 // $${ is a literal ${: the second $ is the one kept
			continue
		}
		if c == val[i] {
			at[i] = j
			i++
			j++
			continue
		}
		j++
	}
	return at
}

// decodeEscape decodes one backslash escape of an HCL quoted string
// (hclsyntax scan_string_lit: \n \r \t \" \\ \uNNNN \UNNNNNNNN) and returns
// the decoded text and the number of source bytes it took.
func decodeEscape(b []byte) (string, int) {
	if len(b) < 2 || b[0] != '\\' {
		return "", 0
	}
	switch b[1] {
	case 'n':
		return "\n", 2
	case 'r':
		return "\r", 2
	case 't':
		return "\t", 2
	case '"':
		return "\"", 2
	case '\\':
		return "\\", 2
	case 'u', 'U':
		n := 4
		if b[1] == 'U' {
			n = 8
		}
		if len(b) < 2+n {
			return "", 0
		}
		r, err := strconv.ParseUint(string(b[2:2+n]), 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return "", 0
		}
		return string(rune(r)), 2 + n
	}
	return "", 0
}
