package yamlsrc

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
)

// Text is a string decoded from a YAML file together with, for every byte of
// it, the bytes of the file that wrote it: byte i of S came from
// Data[From[i]:To[i]]. A byte that an escape produced maps to the whole escape
// sequence; a space that folding made of a line break maps to the break.
type Text struct {
	S        string
	From, To []int
	subs     []Substitution
}

// Len is the length of the decoded string.
func (t Text) Len() int { return len(t.S) }

// Range returns the source byte range that wrote S[i:j]. An empty range sits
// where S[i] (or the end of the text) was written.
func (t Text) Range(i, j int) (start, end int) {
	if len(t.S) == 0 {
		return 0, 0
	}
	if i < 0 {
		i = 0
	}
	if j > len(t.S) {
		j = len(t.S)
	}
	if i >= j {
		if i >= len(t.S) {
			e := t.To[len(t.S)-1]
			return e, e
		}
		return t.From[i], t.From[i]
	}
	start, end = t.From[i], t.To[j-1]
	if end < start {
		end = start
	}
	return start, end
}

// Slice returns S[i:j] with its map.
func (t Text) Slice(i, j int) Text {
	return Text{S: t.S[i:j], From: t.From[i:j], To: t.To[i:j], subs: t.subs}
}

// Builder assembles a Text from pieces of other texts and inserted strings.
type Builder struct {
	b        strings.Builder
	from, to []int
	subs     []Substitution
}

// Copy appends t.S[i:j] with its map (and the substitutions t recorded).
func (b *Builder) Copy(t Text, i, j int) {
	b.b.WriteString(t.S[i:j])
	b.from = append(b.from, t.From[i:j]...)
	b.to = append(b.to, t.To[i:j]...)
	if i < j {
		b.subs = appendSubs(b.subs, t.subs)
	}
}

func appendSubs(list, more []Substitution) []Substitution {
	for _, m := range more {
		dup := false
		for _, x := range list {
			if x.From == m.From && x.To == m.To {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, m)
		}
	}
	return list
}

// Insert appends s, every byte of it mapped to the source range [from, to):
// the reference that produced it.
func (b *Builder) Insert(s string, from, to int) {
	b.b.WriteString(s)
	for range len(s) {
		b.from = append(b.from, from)
		b.to = append(b.to, to)
	}
}

// Text returns what was built.
func (b *Builder) Text() Text { return Text{S: b.b.String(), From: b.from, To: b.to, subs: b.subs} }

// Scalar returns the decoded value of a scalar node mapped to the file.
//
// The map is found by walking the node's source text alongside its decoded
// value: every byte of the value that is not white space is found exactly
// where it was written (escape sequences of double-quoted scalars and the
// doubled quote of single-quoted ones included). White space the value got
// from folding or indentation maps to the nearest source white space, so a
// position between two words may be off by the indentation of a folded or
// block scalar, never a word's own position.
// When the walk fails (a scalar style this walk does not know how to read),
// exact is false and every byte maps to the node's start.
func (s *Source) Scalar(n *yaml.Node) (t Text, exact bool) {
	v := n.Value
	t = Text{S: v, From: make([]int, len(v)), To: make([]int, len(v))}
	start := s.Offset(n.Line, n.Column)
	if s.align(n, start, t) {
		return t, true
	}
	for i := range v {
		t.From[i], t.To[i] = start, start
	}
	return t, false
}

// ContentSpan is the span of a scalar's content, inside its quotes.
func (s *Source) ContentSpan(n *yaml.Node) deploy.Span {
	t, _ := s.Scalar(n)
	if len(t.S) == 0 {
		p := s.Offset(n.Line, n.Column)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			p = skipProperties(s.Data, p)
			if p < len(s.Data) && (s.Data[p] == '"' || s.Data[p] == '\'') {
				p++
			}
		}
		return s.Span(p, p)
	}
	a, b := t.Range(0, len(t.S))
	return s.Span(a, b)
}

// NodeSpan is the span of a node's first token (for collections, the start
// of the collection; for scalars, the content).
func (s *Source) NodeSpan(n *yaml.Node) deploy.Span {
	if n.Kind == yaml.ScalarNode {
		return s.ContentSpan(n)
	}
	p := s.Offset(n.Line, n.Column)
	end := p + 1
	if end > len(s.Data) {
		end = len(s.Data)
	}
	return s.Span(p, end)
}

// Value is the scalar as a known deploy.Value spanning its content.
func (s *Source) Value(n *yaml.Node) deploy.Value {
	return deploy.Known(n.Value, s.ContentSpan(n))
}

// skipProperties steps over an anchor (&a) and a tag (!t) written before a
// node's content, which yaml.v3 includes in the node's position.
func skipProperties(d []byte, p int) int {
	for p < len(d) && (d[p] == '&' || d[p] == '!') {
		for p < len(d) && !isSpace(d[p]) {
			p++
		}
		for p < len(d) && isSpace(d[p]) {
			p++
		}
	}
	return p
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// align fills t.From/t.To by walking the source from p. It reports false when
// the source does not spell the value the way this walk expects.
func (s *Source) align(n *yaml.Node, p int, t Text) bool {
	d := s.Data
	v := t.S
	p = skipProperties(d, p)
	style := n.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle)
	switch style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if p >= len(d) || (d[p] != '"' && d[p] != '\'') {
			return false
		}
		p++
	case yaml.LiteralStyle, yaml.FoldedStyle:
		if p >= len(d) || (d[p] != '|' && d[p] != '>') {
			return false
		}
		// The header line (indicators, comment) holds no content.
		nl := bytes.IndexAny(d[p:], "\r\n")
		if nl < 0 {
			return len(v) == 0
		}
		p += nl
	}
	for i := 0; i < len(v); {
		if p >= len(d) {
			return false
		}
		c := d[p]
		switch {
		case style == yaml.DoubleQuotedStyle && c == '\\':
			if p+1 < len(d) && (d[p+1] == '\n' || d[p+1] == '\r') {
				p += 2 // an escaped line break produces nothing
				continue
			}
			dec, w := decodeEscape(d[p:])
			if w == 0 || !strings.HasPrefix(v[i:], dec) {
				return false
			}
			for k := range len(dec) {
				t.From[i+k], t.To[i+k] = p, p+w
			}
			i += len(dec)
			p += w
		case style == yaml.DoubleQuotedStyle && c == '"':
			return false // the closing quote before the value was spelled out
		case style == yaml.SingleQuotedStyle && c == '\'':
			if v[i] != '\'' || p+1 >= len(d) || d[p+1] != '\'' {
				return false
			}
			t.From[i], t.To[i] = p, p+2
			i++
			p += 2
		case c == v[i]:
			t.From[i], t.To[i] = p, p+1
			i++
			p++
		case v[i] == ' ' && (c == '\n' || c == '\r'):
			// A line break folded into a space.
			w := breakWidth(d, p)
			t.From[i], t.To[i] = p, p+w
			i++
			p += w
		case v[i] == '\n' && c == '\r':
			w := breakWidth(d, p)
			t.From[i], t.To[i] = p, p+w
			i++
			p += w
		case isSpace(c):
			p++ // indentation and folded white space produce nothing
		default:
			if w := breakWidth(d, p); w > 1 && (v[i] == '\n' || v[i] == ' ') {
				t.From[i], t.To[i] = p, p+w // NEL, LS, PS as breaks
				i++
				p += w
				continue
			}
			return false
		}
	}
	return true
}

// decodeEscape decodes the double-quoted escape at the start of d, returning
// the bytes it stands for and its length in d (0 if it is not valid).
func decodeEscape(d []byte) (string, int) {
	if len(d) < 2 {
		return "", 0
	}
	simple := map[byte]string{
		'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n",
		'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"",
		'/': "/", '\'': "'", '\\': "\\", 'N': "\u0085", '_': "\u00a0",
		'L': "\u2028", 'P': "\u2029",
	}
	if s, ok := simple[d[1]]; ok {
		return s, 2
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[d[1]]
	if digits == 0 || len(d) < 2+digits {
		return "", 0
	}
	r := 0
	for _, c := range d[2 : 2+digits] {
		var x int
		switch {
		case c >= '0' && c <= '9':
			x = int(c - '0')
		case c >= 'a' && c <= 'f':
			x = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			x = int(c-'A') + 10
		default:
			return "", 0
		}
		r = r*16 + x
	}
	return string(rune(r)), 2 + digits
}

// Mapper returns a function from a 1-based (line, byte column) position in
// t.S to the same position in the file. A position at a character that is
// not white space maps to where that character was written; a position at
// white space or at the end (where a word ends) maps to just after the
// character before it, so word spans come out exact.
func (s *Source) Mapper(t Text) func(line, col int) (int, int) {
	starts := []int{0}
	for i := 0; i < len(t.S); i++ {
		if t.S[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(line, col int) (int, int) {
		if len(t.S) == 0 {
			return s.Position(0)
		}
		if line < 1 {
			line = 1
		}
		if line > len(starts) {
			line = len(starts)
		}
		i := starts[line-1] + col - 1
		if i < 0 {
			i = 0
		}
		if i > len(t.S) {
			i = len(t.S)
		}
		var off int
		switch {
		case i < len(t.S) && !isSpace(t.S[i]):
			off = t.From[i]
		case i > 0:
			off = t.To[i-1]
		default:
			off = t.From[0]
		}
		return s.Position(off)
	}
}
