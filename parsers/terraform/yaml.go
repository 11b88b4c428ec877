package terraform

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// yamlDecodeFunc is Terraform's yamldecode: one YAML document to a value
// (mappings become objects, sequences tuples). Each scalar keeps where it
// was written: through the byte map of the text it was read from (a
// template, a file), else the text's site as a whole.
var yamlDecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "src", Type: cty.String, AllowMarked: true}},
	Type:   function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return yamlDecode(args[0])
	},
})

// maxYAMLNodes bounds what one yamldecode may build (aliases included).
const maxYAMLNodes = 200000

func yamlDecode(v cty.Value) (cty.Value, error) {
	bare, marks := v.Unmark()
	text := bare.AsString()
	p, _ := primary(sitesOf(v))
	var others cty.ValueMarks
	for mk := range marks {
		if _, ok := mk.(*site); !ok {
			if others == nil {
				others = make(cty.ValueMarks)
			}
			others[mk] = struct{}{}
		}
	}
	src := yamlsrc.NewSource("", []byte(text))
	docs, errs := src.Documents()
	if len(errs) > 0 {
		e := errs[0]
		where := fmt.Sprintf("line %d", e.Span.Line)
		if p != nil {
			off := src.LineStart(e.Span.Line) + max(e.Span.Col-1, 0)
			if sp, _ := p.locate(text, off, min(off+1, len(text))); !sp.IsZero() {
				where = sp.String()
			}
		}
		return cty.NilVal, fmt.Errorf("the YAML is not valid (%s): %s", where, e.Message)
	}
	if len(docs) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	if len(docs) > 1 {
		return cty.NilVal, fmt.Errorf("yamldecode reads one YAML document; this text has %d", len(docs))
	}
	d := &yamlDecoder{src: src, text: text, p: p, others: others, budget: maxYAMLNodes}
	return d.node(docs[0].Root, 0)
}

type yamlDecoder struct {
	src    *yamlsrc.Source
	text   string
	p      *site
	others cty.ValueMarks
	budget int
}

func (d *yamlDecoder) node(n *yaml.Node, depth int) (cty.Value, error) {
	n = yamlsrc.Resolve(n)
	d.budget--
	if d.budget < 0 || depth > maxValueDepth {
		return cty.NilVal, fmt.Errorf("the YAML nests too deep or expands to too many nodes")
	}
	if n == nil {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		attrs := map[string]cty.Value{}
		for _, pr := range yamlsrc.Pairs(n) {
			v, err := d.node(pr.Value, depth+1)
			if err != nil {
				return cty.NilVal, err
			}
			attrs[pr.Key.Value] = v
		}
		return cty.ObjectVal(attrs), nil
	case yaml.SequenceNode:
		elems := make([]cty.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.node(c, depth+1)
			if err != nil {
				return cty.NilVal, err
			}
			elems = append(elems, v)
		}
		return cty.TupleVal(elems), nil
	case yaml.ScalarNode:
		return d.mark(d.scalar(n), n), nil
	}
	return cty.NullVal(cty.DynamicPseudoType), nil
}

func (d *yamlDecoder) scalar(n *yaml.Node) cty.Value {
	switch n.ShortTag() {
	case "!!null":
		return cty.NullVal(cty.DynamicPseudoType)
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return cty.BoolVal(b)
		}
	case "!!int", "!!float":
		if num, ok := yamlNumber(n); ok {
			return cty.NumberVal(num)
		}
	}
	return cty.StringVal(n.Value)
}

// yamlNumber reads a YAML 1.2 integer or float (0x, 0o, .inf are rare in
// manifests; what big.Float cannot hold stays a string).
func yamlNumber(n *yaml.Node) (*big.Float, bool) {
	var i int64
	if n.ShortTag() == "!!int" && n.Decode(&i) == nil {
		return new(big.Float).SetInt64(i), true
	}
	f, ok := new(big.Float).SetString(strings.ReplaceAll(n.Value, "_", ""))
	return f, ok
}

// mark gives a scalar the site of its bytes.
func (d *yamlDecoder) mark(v cty.Value, n *yaml.Node) cty.Value {
	if len(d.others) > 0 {
		v = v.WithMarks(d.others)
	}
	if d.p == nil {
		return v
	}
	t, _ := d.src.Scalar(n)
	if d.p.at == nil || d.p.text != d.text || len(t.S) == 0 {
		return v.Mark(d.p)
	}
	at := make([]bytePos, len(t.S))
	for i := range t.S {
		off := t.From[i]
		if off < 0 || off >= len(d.p.at) {
			return v.Mark(d.p)
		}
		at[i] = d.p.at[off]
	}
	c := *d.p
	c.text, c.at = valueText(v, t.S), at
	return v.Mark(&c)
}

// valueText is the text a scalar's byte map describes: the string itself,
// or the source text of a number or bool (whose map is kept only while the
// value is rendered the same way).
func valueText(v cty.Value, src string) string {
	if v.Type() == cty.String {
		return v.AsString()
	}
	return src
}

// yamlEncodeFunc is Terraform's yamlencode. The text maps each scalar to
// where it was written, so a values file built with yamlencode({...})
// points back at the HCL.
var yamlEncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowMarked: true, AllowNull: true}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(cty.String), nil
		}
		e := &yamlEncoder{bases: map[*site]*site{}}
		e.value(args[0], 0, false)
		e.b.WriteByte('\n')
		e.at = append(e.at, bytePos{off: -1})
		s := e.b.String()
		return cty.StringVal(s).Mark(&site{text: s, at: e.at}), nil
	},
})

type yamlEncoder struct {
	b     strings.Builder
	at    []bytePos
	bases map[*site]*site
}

func (e *yamlEncoder) write(s string, pos bytePos) {
	e.b.WriteString(s)
	for range len(s) {
		e.at = append(e.at, pos)
	}
}

// value writes v at the given indentation. inline is true when v follows a
// "key:" or "- " on the same line.
func (e *yamlEncoder) value(v cty.Value, indent int, inline bool) {
	if indent > 2*maxValueDepth {
		e.write("null", bytePos{off: -1})
		return
	}
	bare, _ := v.Unmark()
	ty := bare.Type()
	none := bytePos{off: -1}
	switch {
	case bare.IsNull():
		e.write("null", e.leafPos(v, 0))
	case ty == cty.String:
		e.quoted(v, bare.AsString())
	case ty == cty.Number:
		e.write(bare.AsBigFloat().Text('f', -1), e.leafPos(v, 0))
	case ty == cty.Bool:
		e.write(strconv.FormatBool(bare.True()), e.leafPos(v, 0))
	case ty.IsObjectType() || ty.IsMapType():
		m := bare.AsValueMap()
		if len(m) == 0 {
			e.write("{}", none)
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 || inline {
				e.write("\n"+strings.Repeat(" ", indent), none)
			}
			e.write(strconv.Quote(k)+":", none)
			e.child(m[k], indent+2)
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		elems := bare.AsValueSlice()
		if len(elems) == 0 {
			e.write("[]", none)
			return
		}
		for i, el := range elems {
			if i > 0 || inline {
				e.write("\n"+strings.Repeat(" ", indent), none)
			}
			e.write("-", none)
			e.child(el, indent+2)
		}
	default:
		e.write("null", none)
	}
}

func (e *yamlEncoder) child(v cty.Value, indent int) {
	bare, _ := v.Unmark()
	ty := bare.Type()
	if !bare.IsNull() && (ty.IsObjectType() || ty.IsMapType() || ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) && bare.LengthInt() > 0 {
		e.value(v, indent, true)
		return
	}
	e.write(" ", bytePos{off: -1})
	e.value(v, indent, false)
}

// leafPos is where byte i of a leaf was written.
func (e *yamlEncoder) leafPos(v cty.Value, i int) bytePos {
	p, _ := primary(sitesOf(v))
	if p == nil {
		return bytePos{off: -1}
	}
	if p.at != nil && i < len(p.at) {
		return bytePos{s: e.carry(p.at[i].s, p), off: p.at[i].off}
	}
	return bytePos{s: e.carry(p, nil), off: -1}
}

// quoted writes a double-quoted YAML string, each output byte mapped to the
// value byte it encodes.
func (e *yamlEncoder) quoted(v cty.Value, s string) {
	p, _ := primary(sitesOf(v))
	exact := p != nil && p.at != nil && p.text == s
	var whole bytePos
	if p != nil && !exact {
		whole = bytePos{s: e.carry(p, nil), off: -1}
	} else {
		whole = bytePos{off: -1}
	}
	e.write(`"`, whole)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		var q string
		if r == utf8.RuneError && w == 1 {
			q = fmt.Sprintf(`\x%02x`, s[i])
		} else {
			q = strconv.Quote(s[i : i+w])
			q = q[1 : len(q)-1]
		}
		pos := whole
		if exact && p.at[i].s != nil {
			pos = bytePos{s: e.carry(p.at[i].s, p), off: p.at[i].off}
		}
		e.write(q, pos)
		i += w
	}
	e.write(`"`, whole)
}

// carry is the package's carry for a value yamlencode reads: the function
// runs before the expression that calls it has moved the value's sites on,
// so a site still bound to a name (var.x) owes that hop (site.pending).
func (e *yamlEncoder) carry(b, outer *site) *site {
	c := carry(b, outer, e.bases)
	if c == nil || c.pending != "" {
		return c
	}
	owner := outer
	if owner == nil {
		owner = b
	}
	if owner.ref != "" {
		c.pending, c.pendingAt = owner.ref, c.via.len()
	}
	return c
}
