package suppress

import (
	"regexp"
	"strings"
)

// yamlLine is what the YAML scanner learned about one line.
type yamlLine struct {
	indent   int  // leading spaces
	blank    bool // nothing but whitespace
	dash     bool // its first token is a "- " sequence indicator
	emptyKey bool // it ends in "key:" with the value in the lines below
	content  bool // it is text of a block scalar (| or >), not YAML
}

// templateComment is a Go template comment, as Helm charts write them:
// {{/* … */}}, {{- /* … */ -}}.
var templateComment = regexp.MustCompile(`\{\{-?\s*/\*(.*?)\*/\s*-?\}\}`)

// yamlScanner reads a YAML stream line by line, with the state that spans
// lines: an open quoted scalar, an open flow collection, an open block scalar.
type yamlScanner struct {
	lay   *layout
	info  []yamlLine // 1-based
	quote byte       // the quote of a scalar still open at the end of the last line
	flow  int        // depth of open flow collections ([ {)
	block int        // ≥ 0 while a block scalar is open: its text is indented more than this
}

// scanYAML finds the comments of a YAML file: a "#" that starts a word
// outside quoted scalars, and Go template comments ({{/* … */}}). Inside a
// block scalar, which is not YAML but often a shell script (args: - |), a
// "#" starting a shell word is a comment too. A line's extent is the YAML
// node that starts on it: a key or sequence item and everything indented
// under it (a "key:" also takes the "- " items written at its own
// indentation); within a block scalar, the line and the lines that continue
// it (indented more, or after a trailing backslash).
func scanYAML(lines []string) *layout {
	y := &yamlScanner{lay: newLayout(len(lines)), info: make([]yamlLine, len(lines)+1), block: -1}
	for i, text := range lines {
		n := i + 1
		li := &y.info[n]
		li.indent = leadingSpaces(text)
		li.blank = isBlank(text)
		if y.block >= 0 {
			if li.blank || li.indent > y.block {
				li.content = true
				if h := hashComment(text); h >= 0 {
					y.lay.add(comment{line: n, col: h + 1, endCol: len(text) + 1, text: text[h+1:], own: isBlank(text[:h])})
				}
				continue
			}
			y.block = -1
		}
		y.line(n, text)
	}
	y.lay.extent = func(line int) int { return y.extent(lines, line) }
	return y.lay
}

// line scans one line of YAML (not block scalar text).
func (y *yamlScanner) line(n int, text string) {
	li := &y.info[n]
	i := 0
	atStart := true // a scalar may start here
	if y.quote != 0 {
		i = closeQuote(text, 0, &y.quote)
		atStart = false
	}
	first := true  // no token seen yet on this line
	nodeCol := -1  // column of the key (or scalar) that started last
	dashCol := -1  // column of the last "- "
	colon := false // the last indicator was a key's ":"
	for i < len(text) {
		c := text[i]
		isTokenEnd := func(j int) bool { return j >= len(text) || text[j] == ' ' || text[j] == '\t' }
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t'):
			y.lay.add(comment{line: n, col: i + 1, endCol: len(text) + 1, text: text[i+1:], own: first})
			return
		case strings.HasPrefix(text[i:], "{{"):
			end := len(text)
			if j := strings.Index(text[i+2:], "}}"); j >= 0 {
				end = i + 2 + j + 2
			}
			if m := templateComment.FindStringSubmatchIndex(text[i:end]); m != nil && m[0] == 0 {
				y.lay.add(comment{line: n, col: i + 1, endCol: end + 1, text: text[i+m[2] : i+m[3]], own: first && isBlank(text[end:])})
			}
			i = end
			atStart = false
		case atStart && (c == '"' || c == '\''):
			if nodeCol < 0 || colon {
				nodeCol = i
			}
			y.quote = c
			i = closeQuote(text, i+1, &y.quote)
			atStart, colon = false, false
		case atStart && (c == '-' || c == '?') && isTokenEnd(i+1):
			if first && c == '-' {
				li.dash = true
			}
			dashCol, nodeCol, colon = i, -1, false
			i++
		case atStart && y.flow == 0 && (c == '|' || c == '>'):
			j := i + 1
			for j < len(text) && strings.IndexByte("+-0123456789", text[j]) >= 0 {
				j++
			}
			switch {
			case colon && nodeCol >= 0:
				y.block = nodeCol
			case dashCol >= 0:
				y.block = dashCol
			}
			i = j
			atStart = false
		case atStart && (c == '&' || c == '!'): // an anchor or a tag before a node
			for i < len(text) && !isTokenEnd(i) {
				i++
			}
		case atStart && (c == '[' || c == '{'):
			y.flow++
			i++
		case y.flow > 0 && c == ',':
			atStart = true
			i++
		case y.flow > 0 && (c == ']' || c == '}'):
			y.flow--
			atStart = false
			i++
		case c == ':' && (isTokenEnd(i+1) || (y.flow > 0 && strings.IndexByte(",]}", text[i+1]) >= 0)):
			colon, atStart = true, true
			i++
			if rest := strings.TrimSpace(text[i:]); y.flow == 0 && (rest == "" || rest[0] == '#') {
				li.emptyKey = true
			}
		default: // a plain scalar (or key) starts or goes on
			if atStart {
				nodeCol, colon = i, false
			}
			atStart = false
			i++
		}
		first = false
	}
}

// closeQuote scans a quoted scalar from i to its closing quote and returns
// the index after it, clearing *quote; at the end of the line the scalar is
// still open and *quote stays set.
func closeQuote(text string, i int, quote *byte) int {
	for i < len(text) {
		c := text[i]
		switch {
		case *quote == '"' && c == '\\':
			i += 2
		case c == *quote && *quote == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i += 2 // '' is a quote inside a single-quoted scalar
		case c == *quote:
			*quote = 0
			return i + 1
		default:
			i++
		}
	}
	return len(text)
}

// extent is the last line of the node that starts on line t.
func (y *yamlScanner) extent(lines []string, t int) int {
	if t < 1 || t >= len(y.info) {
		return t
	}
	li := y.info[t]
	if li.blank || y.lay.commentOnly[t] {
		return t
	}
	last := t
	if li.content {
		for n := t + 1; n < len(y.info); n++ {
			cur := y.info[n]
			if !cur.content || !(endsWithBackslash(lines[n-2]) || cur.blank || cur.indent > li.indent) {
				break
			}
			if !cur.blank && !y.lay.commentOnly[n] {
				last = n
			}
		}
		return last
	}
	for n := t + 1; n < len(y.info); n++ {
		cur := y.info[n]
		if cur.blank || y.lay.commentOnly[n] {
			continue
		}
		if cur.indent > li.indent || (cur.indent == li.indent && li.emptyKey && !li.dash && cur.dash && !cur.content) {
			last = n
			continue
		}
		break
	}
	return last
}
