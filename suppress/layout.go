package suppress

import (
	"strings"

	"github.com/kvlint/kvlint/source"
)

// comment is one comment of a file.
type comment struct {
	line, col int // where the comment starts (its marker), 1-based
	endLine   int // the last line of the comment (block comments span lines)
	endCol    int // one past its last byte, on endLine
	text      string
	// own is true when nothing but the comment is on its line(s): it then
	// applies to the line below it rather than to its own.
	own bool
}

// layout is what a format's scanner learned about a file: its comments,
// which lines hold nothing but comments, and how far the construct that
// starts on a line reaches.
type layout struct {
	comments    []comment
	lines       int
	commentOnly map[int]bool
	// extent returns the last line of what starts at line (≥ line): a YAML
	// key with the block under it, a shell command with its continuation
	// lines, a Dockerfile instruction, an HCL line with the brackets it opens.
	extent func(line int) int
}

func newLayout(lines int) *layout {
	return &layout{lines: lines, commentOnly: map[int]bool{}, extent: func(line int) int { return line }}
}

func (l *layout) add(c comment) {
	if c.endLine == 0 {
		c.endLine = c.line
	}
	l.comments = append(l.comments, c)
	if c.own {
		for n := c.line; n <= c.endLine; n++ {
			l.commentOnly[n] = true
		}
	}
}

// target is the line a comment applies to: its own line, or for a comment
// alone on its line, the next line that is not itself only comments (so
// several suppressions can be stacked above one line). 0 when there is none.
func (l *layout) target(c comment) int {
	if !c.own {
		return c.line
	}
	for n := c.endLine + 1; n <= l.lines; n++ {
		if !l.commentOnly[n] {
			return n
		}
	}
	return 0
}

// textLines is the text of each line of a file: lines end at "\n"
// (source.LF) and lose the "\r" of a CRLF, and the empty text after a
// final newline is no line.
func textLines(x *source.Index) []string {
	n := x.Lines()
	if x.Start(n) == len(x.Data()) {
		n--
	}
	lines := make([]string, n)
	for i := range lines {
		text, _ := x.Line(i + 1)
		lines[i] = strings.TrimSuffix(string(text), "\r")
	}
	return lines
}

func leadingSpaces(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func endsWithBackslash(s string) bool { return strings.HasSuffix(strings.TrimRight(s, " \t"), `\`) }

// hashComment finds a shell-style comment in one line: a "#" that starts a
// word, outside single and double quotes. It returns the byte index of the
// "#", or -1.
func hashComment(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++ // an escaped character, inside double quotes or not
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return i
		}
	}
	return -1
}

// scanHashLines finds "#" comments line by line, the way a shell reads them
// (hashComment), for files no better tokenizer applies to. A line's extent
// takes its backslash continuation lines along.
func scanHashLines(lines []string) *layout {
	lay := newLayout(len(lines))
	for i, text := range lines {
		if h := hashComment(text); h >= 0 {
			lay.add(comment{line: i + 1, col: h + 1, endCol: len(text) + 1, text: text[h+1:], own: isBlank(text[:h])})
		}
	}
	lay.extent = func(line int) int {
		for line < len(lines) && endsWithBackslash(lines[line-1]) {
			line++
		}
		return line
	}
	return lay
}
