package terraform

import (
	"bytes"
	"fmt"
)

// maxNesting is how deeply brackets, interpolations and strings may nest in
// a file kvlint parses as HCL. HCL's parser and evaluator recurse once (and
// more) per level: a 100,000-deep list literal overflows the stack or runs
// the worker out of memory, and the error then names only the module.
// Real configurations nest a few levels; a thousand is far beyond them.
const maxNesting = 1000

// Where a nestingScan is: in code (expressions, blocks), in a quoted
// string, in a heredoc or a template file (text with interpolations).
const (
	inCode = iota
	inString
	inText
)

// frame is one level of nesting: a bracket, an interpolation (${ or %{,
// closed by }), a quoted string or a heredoc ending at its marker.
type frame struct {
	kind   byte // '(', '[', '{', '$' (interpolation), '"' or '<' (heredoc)
	marker []byte
}

// tooDeep finds the first place in data nested more than maxNesting levels
// deep, without parsing it. template is true for a template file (text
// whose interpolations are code), false for HCL native or JSON syntax (in
// JSON, strings are templates too, so one scan serves both). It returns
// the offset of the byte that opens the level too many.
func tooDeep(data []byte, template bool) (int, bool) {
	var stack []frame
	mode := func() int {
		if len(stack) == 0 {
			if template {
				return inText
			}
			return inCode
		}
		switch stack[len(stack)-1].kind {
		case '"':
			return inString
		case '<':
			return inText
		}
		return inCode
	}
	push := func(f frame) bool {
		stack = append(stack, f)
		return len(stack) > maxNesting
	}
	lineStart := true
	for i := 0; i < len(data); i++ {
		c := data[i]
		atStart := lineStart
		lineStart = c == '\n'
		switch mode() {
		case inCode:
			switch {
			case c == '#' || c == '/' && i+1 < len(data) && data[i+1] == '/':
				for i < len(data) && data[i] != '\n' {
					i++
				}
				lineStart = true
			case c == '/' && i+1 < len(data) && data[i+1] == '*':
				end := bytes.Index(data[i+2:], []byte("*/"))
				if end < 0 {
					return 0, false
				}
				i += 2 + end + 1
			case c == '"':
				if push(frame{kind: '"'}) {
					return i, true
				}
			case c == '<' && i+1 < len(data) && data[i+1] == '<':
				// <<MARKER or <<-MARKER, then the text from the next line.
				j := i + 2
				if j < len(data) && data[j] == '-' {
					j++
				}
				k := j
				for k < len(data) && (isIdentByte(data[k])) {
					k++
				}
				nl := bytes.IndexByte(data[k:], '\n')
				if k == j || nl < 0 {
					i++
					continue
				}
				if push(frame{kind: '<', marker: data[j:k]}) {
					return i, true
				}
				i = k + nl
				lineStart = true
			case c == '(' || c == '[' || c == '{':
				if push(frame{kind: c}) {
					return i, true
				}
			case c == ')' || c == ']' || c == '}':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		case inString:
			switch {
			case c == '\\':
				i++
			case c == '"' || c == '\n':
				stack = stack[:len(stack)-1]
			default:
				if n, open := interpolation(data, i); open {
					if push(frame{kind: '$'}) {
						return i, true
					}
					i += n - 1
				} else {
					i += n - 1
				}
			}
		case inText:
			if atStart && len(stack) > 0 && stack[len(stack)-1].kind == '<' {
				end := bytes.IndexByte(data[i:], '\n')
				if end < 0 {
					end = len(data) - i
				}
				if bytes.Equal(bytes.TrimSpace(data[i:i+end]), stack[len(stack)-1].marker) {
					stack = stack[:len(stack)-1]
					i += end - 1
					continue
				}
			}
			if n, open := interpolation(data, i); open {
				if push(frame{kind: '$'}) {
					return i, true
				}
				i += n - 1
			} else {
				i += n - 1
			}
		}
	}
	return 0, false
}

// interpolation says whether data[i:] opens an interpolation or a
// directive (${, %{) and how many bytes to step over: $${ and %%{ are
// escapes that open nothing.
func interpolation(data []byte, i int) (int, bool) {
	rest := data[i:]
	switch {
	case bytes.HasPrefix(rest, []byte("$${")), bytes.HasPrefix(rest, []byte("%%{")):
		return 3, false
	case bytes.HasPrefix(rest, []byte("${")), bytes.HasPrefix(rest, []byte("%{")):
		return 2, true
	}
	return 1, false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// checkNesting reports a file nested too deeply for kvlint to parse, at the
// bracket that opens the level too many, and says whether it is fine.
func (m *module) checkNesting(f *file, template bool) bool {
	off, deep := tooDeep(f.data, template)
	if !deep {
		return true
	}
	m.errorf(f.span(off, off+1), "%s", nestingMessage())
	return false
}

func nestingMessage() string {
	return fmt.Sprintf("nested more than %d levels deep: kvlint does not parse it (real configurations nest a few levels)", maxNesting)
}
