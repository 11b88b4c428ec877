package dockerfile

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// errNotStrings is BuildKit's error for a JSON array with a non-string in it.
var errNotStrings = errors.New("when using JSON array syntax, arrays must be comprised of strings only")

// element is one string of an exec-form array, decoded, with the file offset
// of each decoded byte; span covers the quoted string as written.
type element struct {
	text
	start, end int // offsets of the opening and one past the closing quote
}

// execForm decides between exec and shell form the way BuildKit's
// parseMaybeJSON does (frontend/dockerfile/parser/line_parsers.go): text that
// encoding/json accepts as an array is exec form; a JSON array with a
// non-string element is an error; anything else, including text that starts
// with "[" but is not valid JSON, is shell form. Docker's Dockerfile
// reference says so under "Exec form"
// (https://docs.docker.com/reference/dockerfile/#exec-form): a line that is
// not valid JSON, as with single quotes or unescaped backslashes, is treated
// as shell form. It returns the elements with their positions.
func execForm(args text) ([]element, bool, error) {
	l := args.trimLeft()
	if len(l.b) == 0 || l.b[0] != '[' {
		return nil, false, nil
	}
	var values []any
	if err := json.Unmarshal(l.b, &values); err != nil {
		return nil, false, nil
	}
	strs := make([]string, len(values))
	for i, v := range values {
		s, ok := v.(string)
		if !ok {
			return nil, false, errNotStrings
		}
		strs[i] = s
	}
	elems, ok := scanArray(l)
	if !ok || len(elems) != len(strs) {
		elems = nil
	}
	out := make([]element, len(strs))
	for i, s := range strs {
		if elems != nil && string(elems[i].b) == s {
			out[i] = elems[i]
			continue
		}
		// encoding/json decoded this string differently from the scanner
		// (invalid UTF-8 becomes U+FFFD): place every byte on the opening
		// quote of the element, or of the array.
		e := element{start: l.at[0], end: l.at[0] + 1}
		if elems != nil {
			e.start, e.end = elems[i].start, elems[i].end
		}
		e.b = []byte(s)
		e.at = make([]int, len(s))
		for j := range e.at {
			e.at[j] = e.start
		}
		out[i] = e
	}
	return out, true, nil
}

// scanArray reads a JSON array of strings that encoding/json already
// accepted, keeping where each decoded byte was written. Escapes map to their
// backslash.
func scanArray(t text) ([]element, bool) {
	b := t.b
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
	}
	ws()
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i++
	var out []element
	for {
		ws()
		if i < len(b) && b[i] == ']' {
			return out, true
		}
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		e := element{start: t.at[i]}
		i++
		for i < len(b) && b[i] != '"' {
			if b[i] != '\\' {
				e.b = append(e.b, b[i])
				e.at = append(e.at, t.at[i])
				i++
				continue
			}
			esc := i
			if i+1 >= len(b) {
				return nil, false
			}
			i++
			var dec []byte
			switch b[i] {
			case '"', '\\', '/':
				dec = []byte{b[i]}
			case 'b':
				dec = []byte{'\b'}
			case 'f':
				dec = []byte{'\f'}
			case 'n':
				dec = []byte{'\n'}
			case 'r':
				dec = []byte{'\r'}
			case 't':
				dec = []byte{'\t'}
			case 'u':
				r, n, ok := unicodeEscape(b, i-1)
				if !ok {
					return nil, false
				}
				i += n - 2
				dec = utf8.AppendRune(nil, r)
			default:
				return nil, false
			}
			i++
			for _, c := range dec {
				e.b = append(e.b, c)
				e.at = append(e.at, t.at[esc])
			}
		}
		if i >= len(b) {
			return nil, false
		}
		e.end = t.at[i] + 1
		i++
		out = append(out, e)
		ws()
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == ']' {
			return out, true
		}
		return nil, false
	}
}

// unicodeEscape decodes \uXXXX at b[i:], joining a surrogate pair, and
// returns the rune and the number of bytes read.
func unicodeEscape(b []byte, i int) (rune, int, bool) {
	hex4 := func(j int) (rune, bool) {
		if j+6 > len(b) || b[j] != '\\' || b[j+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range b[j+2 : j+6] {
			switch {
			case '0' <= c && c <= '9':
				r = r*16 + rune(c-'0')
			case 'a' <= c && c <= 'f':
				r = r*16 + rune(c-'a') + 10
			case 'A' <= c && c <= 'F':
				r = r*16 + rune(c-'A') + 10
			default:
				return 0, false
			}
		}
		return r, true
	}
	r, ok := hex4(i)
	if !ok {
		return 0, 0, false
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(i + 6); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12, true
			}
		}
		return utf8.RuneError, 6, true
	}
	return r, 6, true
}
