package source

import "bytes"

// LineContext reads the line up to offset at as the file's syntax would:
// whether at is inside a comment ("#", or "//" in HCL, at the line's start
// or after a blank and outside quotes) and whether it is inside a quoted
// string. A mention in a comment is documentation, not a launch.
func LineContext(data []byte, at int, syntax Syntax) (comment, quoted bool) {
	ls := bytes.LastIndexByte(data[:at], '\n') + 1
	var quote byte
	for i := ls; i < at; i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '\\':
			i++
		case c == '{' && i+1 < at && data[i+1] == '#' && (i == ls || data[i-1] != '$') && syntax != SyntaxShell:
			// A Jinja comment, {# … #}, in a template of any text; not
			// ${#VAR}, a shell length, in a script or a manifest's command.
			return true, false
		case c == '#' || (syntax == SyntaxHCL && c == '/' && i+1 < at && data[i+1] == '/'):
			if i == ls || data[i-1] == ' ' || data[i-1] == '\t' {
				return true, false
			}
		}
	}
	return false, quote != 0
}
