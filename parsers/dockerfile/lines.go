package dockerfile

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvlint/kvlint/source"
)

// text is a run of Dockerfile text with the file offset of each byte, so a
// logical line joined from continuation lines still points into the file.
type text struct {
	b  []byte
	at []int
}

func (t text) slice(i, j int) text { return text{b: t.b[i:j], at: t.at[i:j]} }

func (t *text) append(o text) {
	t.b = append(t.b, o.b...)
	t.at = append(t.at, o.at...)
}

// trimLeft drops leading white space (unicode.IsSpace, as BuildKit does).
func (t text) trimLeft() text {
	i := 0
	for i < len(t.b) {
		r, n := utf8.DecodeRune(t.b[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return t.slice(i, len(t.b))
}

// trimSpace drops leading and trailing white space.
func (t text) trimSpace() text {
	t = t.trimLeft()
	j := len(t.b)
	for j > 0 {
		r, n := utf8.DecodeLastRune(t.b[:j])
		if !unicode.IsSpace(r) {
			break
		}
		j -= n
	}
	return t.slice(0, j)
}

// physical is one line of the file without its line ending.
type physical struct {
	text
	number int // 1-based line number
}

// splitLines cuts data, whose line index is idx, into lines. Like
// BuildKit's scanner it strips every trailing \r and \n of a line, and a
// UTF-8 byte order mark on the first; the empty text after a final
// newline is no line.
func splitLines(data []byte, idx *source.Index) []physical {
	var lines []physical
	for n := 1; n <= idx.Lines() && idx.Start(n) < len(data); n++ {
		s, e := idx.Start(n), idx.End(n)
		if n == 1 && bytes.HasPrefix(data[s:e], []byte("\xef\xbb\xbf")) {
			s += 3
		}
		for e > s && (data[e-1] == '\r' || data[e-1] == '\n') {
			e--
		}
		t := text{b: data[s:e], at: make([]int, e-s)}
		for i := range t.at {
			t.at[i] = s + i
		}
		lines = append(lines, physical{text: t, number: n})
	}
	return lines
}

func isComment(t text) bool {
	l := t.trimLeft()
	return len(l.b) > 0 && l.b[0] == '#'
}

func isBlank(t text) bool { return len(t.trimLeft().b) == 0 }

// directive is a parser directive at the top of the file (# escape=`).
type directive struct {
	name, value string
	line        physical
}

var directiveRe = regexp.MustCompile(`^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$`)

// directives reads the parser directives: consecutive comment lines of the
// form "# name=value" at the very top, for the names BuildKit knows (syntax,
// escape, check). The first other line ends them (BuildKit
// frontend/dockerfile/parser/directives.go, DirectiveParser.ParseLine).
func directives(lines []physical) []directive {
	var out []directive
	for _, l := range lines {
		m := directiveRe.FindSubmatch(l.trimLeft().b)
		if m == nil {
			break
		}
		name := strings.ToLower(string(m[1]))
		if name != "syntax" && name != "escape" && name != "check" {
			break
		}
		out = append(out, directive{name: name, value: string(m[2]), line: l})
	}
	return out
}

// continued reports whether a line ends with the escape character (followed
// only by blanks) that is not itself escaped, and returns the line without it.
// BuildKit: setEscapeToken's regexp `([^\\])\\[ \t]*$|^\\[ \t]*$`.
func continued(t text, escape byte) (text, bool) {
	j := len(t.b)
	for j > 0 && (t.b[j-1] == ' ' || t.b[j-1] == '\t') {
		j--
	}
	if j == 0 || t.b[j-1] != escape {
		return t, false
	}
	if j >= 2 && t.b[j-2] == escape {
		return t, false
	}
	return t.slice(0, j-1), true
}

// logical is one instruction as BuildKit sees it: its continuation lines
// joined (comment and blank lines inside it dropped), with the lines it spans.
type logical struct {
	text
	first, last int // line numbers
}

// logicalLines joins continuation lines the way BuildKit's parser.Parse
// does: the first line is trimmed on the left, continuation lines keep their
// leading blanks, comment lines and blank lines inside an instruction are
// skipped, and the escape character plus trailing blanks are removed.
// heredoc is asked, for each finished instruction, how many of the following
// lines are heredoc bodies to skip.
func logicalLines(lines []physical, escape byte, heredoc func(logical, []physical) (int, error)) ([]logical, []lineError) {
	var out []logical
	var errs []lineError
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isComment(l.text) {
			continue
		}
		t, more := continued(l.text.trimLeft(), escape)
		if !more && len(t.b) == 0 {
			continue
		}
		cur := logical{text: text{b: append([]byte(nil), t.b...), at: append([]int(nil), t.at...)}, first: l.number, last: l.number}
		for more && i+1 < len(lines) {
			i++
			next := lines[i]
			cur.last = next.number
			if isComment(next.text) || isBlank(next.text) {
				continue
			}
			var part text
			part, more = continued(next.text, escape)
			cur.append(part)
		}
		out = append(out, cur)
		if heredoc != nil {
			skip, err := heredoc(cur, lines[i+1:])
			if err != nil {
				errs = append(errs, lineError{line: cur, err: err})
			}
			i += skip
		}
	}
	return out, errs
}

// lineError is an error about a whole logical line.
type lineError struct {
	line logical
	err  error
}
