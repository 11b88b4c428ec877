package helm

import (
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"
	"unicode/utf8"

	"helm.sh/helm/v3/pkg/chart"
)

// The trace brackets what each template node writes with markers made of
// private-use characters, which no chart writes and no template function
// reads as anything but text:
//
//	open(id) = U+E000, the id in digits U+E010..U+E019, U+E001
//	close    = U+E002
//
// Stripping them from a traced render gives the plain render back, plus, for
// every byte, the innermost node that wrote it.
const (
	markOpen    = '\uE000'
	markIDEnd   = '\uE001'
	markClose   = '\uE002'
	markDigit0  = '\uE010'
	markLastRun = '\uE019'
)

// mode says which template trees the trace brackets. Bracketing the bodies
// of define blocks names the helper line that wrote a flag, but changes what
// include returns, which a template may compare (eq (include "x" .) "true");
// bracketing only the files' own trees never changes control flow.
type mode int

const (
	modeFull mode = iota // files and define blocks
	modeTop              // the files' own trees only
)

// tnode is one traced template node: a piece of literal text or an output
// action ({{ .Values.x | quote }}, {{ include ... }}, {{ template ... }}).
type tnode struct {
	tmpl       string // the template's name in the engine ("mychart/templates/x.yaml")
	start, end int    // byte range in the template source: the text, or {{ ... }}
	text       string // for text nodes, the text as the template holds it
	action     bool
}

// tracer instruments a chart's templates and keeps the nodes it numbered.
type tracer struct {
	nodes []tnode
	// sources are the templates' original texts, by engine name.
	sources map[string]string
}

func newTracer() *tracer { return &tracer{sources: map[string]string{}} }

// instrument returns a copy of chart c (and its subcharts) whose templates
// write markers around what each node writes. A template that does not parse
// is left as it is (the plain render reports it).
func (tr *tracer) instrument(c *chart.Chart, m mode) *chart.Chart {
	return rewriteTemplates(c, func(name, src string) (string, bool) {
		tr.sources[name] = src
		return tr.rewrite(name, src, m)
	})
}

// rewriteTemplates returns a copy of chart c and its subcharts whose
// templates are rewrite's output for their full name and text; a template
// rewrite declines (ok false) is kept as it is. The chart itself is not
// changed.
func rewriteTemplates(c *chart.Chart, rewrite func(name, src string) (string, bool)) *chart.Chart {
	cp := *c
	cp.Templates = make([]*chart.File, len(c.Templates))
	full := c.ChartFullPath()
	for i, t := range c.Templates {
		if t == nil {
			continue
		}
		data := t.Data
		if out, ok := rewrite(path.Join(full, t.Name), string(t.Data)); ok {
			data = []byte(out)
		}
		cp.Templates[i] = &chart.File{Name: t.Name, Data: data}
	}
	var deps []*chart.Chart
	for _, d := range c.Dependencies() {
		deps = append(deps, rewriteTemplates(d, rewrite))
	}
	cp.SetDependencies(deps...)
	return &cp
}

// parseTemplate parses one template file as Helm's engine would, without
// checking function names: top is the file's own tree, trees every tree
// the file holds by name (its defines, and itself when it has content).
func parseTemplate(name, src string) (top *parse.Tree, trees map[string]*parse.Tree, ok bool) {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	trees = map[string]*parse.Tree{}
	if _, err := safeParseTree(t, src, trees); err != nil {
		return nil, nil, false
	}
	if tt, ok := trees[name]; ok {
		return tt, trees, true
	}
	return t, trees, true
}

// rewrite parses one template and prints it back with markers. The printed
// form is text/template's own (Node.String), which parses to the same
// trees; trim markers are gone, but the text nodes were trimmed when parsed.
func (tr *tracer) rewrite(name, src string, m mode) (string, bool) {
	top, trees, ok := parseTemplate(name, src)
	if !ok {
		return "", false
	}
	if top.Root != nil {
		tr.list(top.Root, name, src)
	}
	var b strings.Builder
	if top.Root != nil {
		b.WriteString(top.Root.String())
	}
	for _, n := range slices.Sorted(maps.Keys(trees)) {
		if n == name {
			continue
		}
		d := trees[n]
		if d.Root == nil {
			continue
		}
		if m == modeFull {
			tr.list(d.Root, name, src)
		}
		b.WriteString("{{define " + strconv.Quote(n) + "}}" + d.Root.String() + "{{end}}")
	}
	return b.String(), true
}

func safeParseTree(t *parse.Tree, src string, trees map[string]*parse.Tree) (tree *parse.Tree, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errParsePanic
		}
	}()
	return t.Parse(src, "", "", trees)
}

type parsePanic struct{}

func (parsePanic) Error() string { return "template parser failed" }

var errParsePanic = parsePanic{}

// list brackets every output-producing node of a list, recursively.
func (tr *tracer) list(l *parse.ListNode, name, src string) {
	if l == nil {
		return
	}
	var out []parse.Node
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.TextNode:
			start := int(x.Pos)
			id := tr.add(tnode{tmpl: name, start: start, end: start + len(x.Text), text: string(x.Text)})
			x.Text = []byte(openMark(id) + string(x.Text) + string(markClose))
			out = append(out, x)
		case *parse.ActionNode:
			if x.Pipe == nil || len(x.Pipe.Decl) > 0 || x.Pipe.IsAssign {
				out = append(out, x) // assigns a variable, writes nothing
				continue
			}
			s, e := actionRange(src, int(x.Pos))
			id := tr.add(tnode{tmpl: name, start: s, end: e, action: true})
			out = append(out, textNode(l, openMark(id)), x, textNode(l, string(markClose)))
		case *parse.TemplateNode:
			s, e := actionRange(src, int(x.Pos))
			id := tr.add(tnode{tmpl: name, start: s, end: e, action: true})
			out = append(out, textNode(l, openMark(id)), x, textNode(l, string(markClose)))
		case *parse.IfNode:
			tr.list(x.List, name, src)
			tr.list(x.ElseList, name, src)
			out = append(out, x)
		case *parse.RangeNode:
			tr.list(x.List, name, src)
			tr.list(x.ElseList, name, src)
			out = append(out, x)
		case *parse.WithNode:
			tr.list(x.List, name, src)
			tr.list(x.ElseList, name, src)
			out = append(out, x)
		case *parse.ListNode:
			tr.list(x, name, src)
			out = append(out, x)
		default:
			out = append(out, n)
		}
	}
	l.Nodes = out
}

func (tr *tracer) add(n tnode) int {
	tr.nodes = append(tr.nodes, n)
	return len(tr.nodes) - 1
}

func textNode(l *parse.ListNode, s string) *parse.TextNode {
	return &parse.TextNode{NodeType: parse.NodeText, Pos: l.Pos, Text: []byte(s)}
}

func openMark(id int) string {
	var b strings.Builder
	b.WriteRune(markOpen)
	for _, d := range strconv.Itoa(id) {
		b.WriteRune(markDigit0 + (d - '0'))
	}
	b.WriteRune(markIDEnd)
	return b.String()
}

// actionRange finds the {{ ... }} around the position text/template gives an
// action (its first token): back over blanks and a trim marker to "{{",
// forward to the "}}" that is not inside a string or character literal.
func actionRange(src string, pos int) (int, int) {
	if pos < 0 || pos > len(src) {
		return 0, 0
	}
	start := pos
	i := pos - 1
	for i >= 0 && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i--
	}
	if i >= 0 && src[i] == '-' {
		i--
	}
	if i >= 1 && src[i] == '{' && src[i-1] == '{' {
		start = i - 1
	} else if j := strings.LastIndex(src[:pos], "{{"); j >= 0 {
		start = j
	}
	end := len(src)
	var quote byte
	for j := pos; j < len(src); j++ {
		ch := src[j]
		switch {
		case quote != 0:
			if ch == '\\' && quote != '`' {
				j++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '`' || ch == '\'':
			quote = ch
		case ch == '}' && j+1 < len(src) && src[j+1] == '}':
			return start, j + 2
		}
	}
	return start, end
}

// region is what one node wrote, once, in a stripped render.
type region struct {
	node       int // index into tracer.nodes
	k          int // how many times this node wrote before, in this file
	start, end int // byte range in the stripped text
	parent     int // enclosing region, -1 at the top
}

// traced is one rendered file with its markers stripped.
type traced struct {
	text    string
	regions []region // in order of their start
}

// strip removes the markers from a traced render. Markers cut apart by a
// function (trunc on bytes) or escaped (quote) are left as text; such lines
// no longer equal the plain render and are simply not traced.
func strip(s string) traced {
	var b strings.Builder
	b.Grow(len(s))
	var regions []region
	var stack []int
	count := map[int]int{}
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == markOpen:
			j := i + w
			id := 0
			digits := 0
			ok := false
			for j < len(s) {
				d, dw := utf8.DecodeRuneInString(s[j:])
				if d >= markDigit0 && d <= markLastRun && digits < 9 {
					id = id*10 + int(d-markDigit0)
					digits++
					j += dw
					continue
				}
				if d == markIDEnd && digits > 0 {
					ok = true
					j += dw
				}
				break
			}
			if !ok {
				b.WriteString(s[i : i+w])
				i += w
				continue
			}
			parent := -1
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			regions = append(regions, region{node: id, k: count[id], start: b.Len(), end: -1, parent: parent})
			count[id]++
			stack = append(stack, len(regions)-1)
			i = j
		case r == markClose:
			if len(stack) > 0 {
				regions[stack[len(stack)-1]].end = b.Len()
				stack = stack[:len(stack)-1]
			}
			i += w
		default:
			b.WriteString(s[i : i+w])
			i += w
		}
	}
	for _, x := range stack {
		regions[x].end = b.Len()
	}
	return traced{text: b.String(), regions: regions}
}

// innermost returns the innermost region holding offset off (start <= off <
// end), or -1.
func (t *traced) innermost(off int) int {
	// Regions are sorted by start; a region nested in another starts no
	// earlier, so the last one that holds off is the innermost.
	i := sort.Search(len(t.regions), func(i int) bool { return t.regions[i].start > off })
	for j := i - 1; j >= 0; j-- {
		r := t.regions[j]
		if r.start <= off && off < r.end {
			return j
		}
	}
	return -1
}

// hasMarks reports whether s holds any private-use character the trace
// uses, in which case a chart's own output could be mistaken for markers.
func hasMarks(s string) bool {
	for _, r := range s {
		if r >= markOpen && r <= markLastRun {
			return true
		}
	}
	return false
}
