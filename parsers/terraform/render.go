package terraform

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// ynode is a Kubernetes object being built from HCL: mappings and lists
// from blocks and values, scalars from the leaves of values with their
// sites.
type ynode struct {
	kind  nodeKind
	keys  []string
	vals  []*ynode
	leaf  cty.Value // a scalar: the marked leaf
	where *site     // where a collection was written, for diagnostics about it
}

type nodeKind int

const (
	scalarNode nodeKind = iota
	mapNode
	listNode
)

func (n *ynode) set(key string, v *ynode) {
	for i, k := range n.keys {
		if k == key {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

func (n *ynode) get(key string) *ynode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// listKeys hold lists of strings in a container: an unknown value there is
// one unknown word, so the argv still has a placeholder where it stood.
var listKeys = map[string]bool{"command": true, "args": true}

// valueNode converts an evaluated value. It returns nil for a value that
// is unknown as a whole where a collection is expected (the key is left
// out: nothing in it can be read).
func valueNode(v cty.Value, key string, where *site, depth int) *ynode {
	bare, _ := v.Unmark()
	if depth > maxValueDepth {
		return nil
	}
	ty := bare.Type()
	if !bare.IsKnown() {
		switch {
		case listKeys[key]:
			return &ynode{kind: listNode, vals: []*ynode{{kind: scalarNode, leaf: v}}, where: where}
		case isCollectionKey(key) || ty.IsCollectionType() || ty.IsObjectType() || ty.IsTupleType():
			return nil
		}
		return &ynode{kind: scalarNode, leaf: v}
	}
	if bare.IsNull() || ty.IsPrimitiveType() {
		return &ynode{kind: scalarNode, leaf: v}
	}
	switch {
	case ty.IsObjectType() || ty.IsMapType():
		n := &ynode{kind: mapNode, where: where}
		m := v.AsValueMap()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if c := valueNode(m[k], k, where, depth+1); c != nil {
				n.set(k, c)
			}
		}
		return n
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		n := &ynode{kind: listNode, where: where}
		for _, el := range v.AsValueSlice() {
			if c := valueNode(el, "", where, depth+1); c != nil {
				n.vals = append(n.vals, c)
			}
		}
		return n
	}
	return nil
}

// isCollectionKey names keys of a pod spec that hold lists or mappings: an
// unknown value there is left out rather than made a string the Kubernetes
// parser would reject.
func isCollectionKey(key string) bool {
	switch key {
	case "containers", "initContainers", "env", "envFrom", "volumes", "volumeMounts", "ports",
		"resources", "limits", "requests", "nodeSelector", "labels", "annotations", "metadata",
		"spec", "template", "affinity", "tolerations", "items":
		return true
	}
	return false
}

// rendered is a YAML (JSON) text built from a ynode tree, with, for every
// byte, the node that wrote it and which byte of the node's value it shows.
type rendered struct {
	b        strings.Builder
	owner    []int32
	vbyte    []int32
	nodes    []*ynode
	texts    []string // the rendered text of each scalar node
	unknowns *placeholders
}

// placeholderPrefix makes an unknown value a ${NAME} the Kubernetes and
// shell parsers treat as unknown; the remap turns it back into the
// expression's text.
const placeholderPrefix = "KVLINT_TF_UNKNOWN_"

// placeholders are the unknown values written into texts as ${NAME}, by
// name, with the source text each stands for.
type placeholders struct{ text map[string]string }

func (p *placeholders) add(text string) string {
	if p.text == nil {
		p.text = map[string]string{}
	}
	name := placeholderPrefix + strconv.Itoa(len(p.text)+1)
	p.text[name] = text
	return "${" + name + "}"
}

func render(root *ynode, ph *placeholders) *rendered {
	r := &rendered{unknowns: ph}
	r.node(root, 0)
	r.write("\n", -1, -1)
	return r
}

func (r *rendered) write(s string, owner, vbyte int) {
	r.b.WriteString(s)
	for range len(s) {
		r.owner = append(r.owner, int32(owner))
		r.vbyte = append(r.vbyte, int32(vbyte))
	}
}

func (r *rendered) id(n *ynode) int {
	r.nodes = append(r.nodes, n)
	r.texts = append(r.texts, "")
	return len(r.nodes) - 1
}

func (r *rendered) node(n *ynode, indent int) {
	id := r.id(n)
	pad := strings.Repeat(" ", indent)
	switch n.kind {
	case mapNode:
		if len(n.keys) == 0 {
			r.write("{}", id, -1)
			return
		}
		r.write("{", id, -1)
		for i, k := range n.keys {
			if i > 0 {
				r.write(",", id, -1)
			}
			r.write("\n"+pad+"  "+strconv.Quote(k)+": ", id, -1)
			r.node(n.vals[i], indent+2)
		}
		r.write("\n"+pad+"}", id, -1)
	case listNode:
		if len(n.vals) == 0 {
			r.write("[]", id, -1)
			return
		}
		r.write("[", id, -1)
		for i, v := range n.vals {
			if i > 0 {
				r.write(",", id, -1)
			}
			r.write("\n"+pad+"  ", id, -1)
			r.node(v, indent+2)
		}
		r.write("\n"+pad+"]", id, -1)
	default:
		r.scalar(n, id)
	}
}

// scalar writes a leaf as a double-quoted string (the Kubernetes API wants
// strings in command, args and env; everywhere else a quoted number reads
// the same to kvlint).
func (r *rendered) scalar(n *ynode, id int) {
	bare, _ := n.leaf.Unmark()
	var s string
	switch {
	case !bare.IsKnown():
		text := "?"
		if p, _ := primary(sitesOf(n.leaf)); p != nil && p.unknown != "" {
			text = p.unknown
		}
		s = r.unknowns.add(text)
	case bare.IsNull():
		r.write("null", id, -1)
		return
	case bare.Type() == cty.String:
		s = bare.AsString()
	case bare.Type() == cty.Number:
		s = bare.AsBigFloat().Text('f', -1)
	case bare.Type() == cty.Bool:
		s = strconv.FormatBool(bare.True())
	default:
		r.write("null", id, -1)
		return
	}
	r.texts[id] = s
	r.write(`"`, id, 0)
	for i := 0; i < len(s); {
		c, w := utf8.DecodeRuneInString(s[i:])
		var q string
		if c == utf8.RuneError && w == 1 {
			q = fmt.Sprintf(`\x%02x`, s[i])
		} else {
			q = strconv.Quote(s[i : i+w])
			q = q[1 : len(q)-1]
		}
		r.write(q, id, i)
		i += w
	}
	r.write(`"`, id, max(len(s)-1, 0))
}

// remapper turns spans in the rendered text back into spans of the files
// the values were written in.
type remapper struct {
	r    *rendered
	src  *yamlsrc.Source
	name string
	// fallback is the resource block, for a position no node owns.
	fallback deploy.Span
}

func (rm *remapper) offset(line, col int) int {
	return min(rm.src.LineStart(line)+max(col-1, 0), len(rm.r.owner))
}

// span maps a span of the rendered text; spans of other files pass through.
func (rm *remapper) span(sp deploy.Span) (deploy.Span, deploy.Origin) {
	if sp.File != rm.name {
		return sp, nil
	}
	if sp.IsZero() {
		return rm.fallback, nil
	}
	a := rm.offset(sp.Line, sp.Col)
	end := rm.offset(sp.EndLine, sp.EndCol)
	if sp.EndLine == 0 {
		end = a + 1
	}
	// Skip to the first owned byte (white space and separators are no
	// one's).
	for a < len(rm.r.owner) && rm.r.owner[a] < 0 {
		a++
	}
	if a >= len(rm.r.owner) {
		return rm.fallback, nil
	}
	id := int(rm.r.owner[a])
	n := rm.r.nodes[id]
	if n.kind != scalarNode {
		if n.where != nil {
			return n.where.span(), n.where.via.origin()
		}
		return rm.fallback, nil
	}
	i := int(rm.r.vbyte[a])
	j := i + 1
	for k := a; k < end && k < len(rm.r.owner); k++ {
		if int(rm.r.owner[k]) == id && rm.r.vbyte[k] >= 0 {
			j = max(j, int(rm.r.vbyte[k])+1)
		}
	}
	text := rm.r.texts[id]
	if end <= a { // an empty span: where byte i starts
		j = i
	}
	out, via := locate(sitesOf(n.leaf), text, i, max(j, i+1))
	if out.IsZero() {
		return rm.fallback, via
	}
	if end <= a {
		out.EndLine, out.EndCol = out.Line, out.Col
	}
	return out, via
}

// value maps a value's span and chain, and writes unknown values as the
// expression that produced them.
func (rm *remapper) value(v *deploy.Value) {
	if !v.IsSet() {
		return
	}
	span, via := rm.span(v.Span)
	for _, old := range v.Origin {
		s, more := rm.span(old.Span)
		via = via.Add(deploy.Step{Kind: old.Kind, Span: s, Text: old.Text, Inferred: old.Inferred})
		for _, m := range more {
			via = via.Add(m)
		}
	}
	v.Span, v.Origin = span, via
	v.Raw = rm.text(v.Raw)
	if strings.Contains(v.Raw, "${") {
		v.Known = false
	}
}

// text replaces placeholders with the source text of the unknown values.
func (rm *remapper) text(s string) string {
	if !strings.Contains(s, placeholderPrefix) {
		return s
	}
	for name, src := range rm.r.unknowns.text {
		if s == "${"+name+"}" {
			return src
		}
	}
	for name, src := range rm.r.unknowns.text {
		s = strings.ReplaceAll(s, "${"+name+"}", "${"+src+"}")
	}
	return s
}

// server maps every position of a server found in the rendered text.
func (rm *remapper) server(s *deploy.Server) {
	s.Span, _ = rm.span(s.Span)
	for _, v := range s.Values() {
		rm.value(v)
	}
	for i := range s.FlagIssues {
		fi := &s.FlagIssues[i]
		fi.Span, _ = rm.span(fi.Span)
		for j := range fi.Words {
			rm.value(&fi.Words[j])
		}
		fi.Written = rm.text(fi.Written)
		fi.Message = rm.text(fi.Message)
	}
	s.Name = rm.text(s.Name)
	for k, v := range s.Labels {
		s.Labels[k] = rm.text(v)
	}
}
