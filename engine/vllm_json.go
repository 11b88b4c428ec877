package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// jnode is a JSON value that keeps its object keys in order, for merging
// vLLM's dotted keys the way its recursive_dict_update does and printing
// the result the way json.dumps does.
type jnode struct {
	kind byte // 'o' object, 'a' array, 's' any other value (text holds its JSON)
	keys []string
	obj  map[string]*jnode
	arr  []*jnode
	text string
}

func newObject() *jnode { return &jnode{kind: 'o', obj: map[string]*jnode{}} }

func scalarNode(text string) *jnode { return &jnode{kind: 's', text: text} }

func stringNode(s string) *jnode { return scalarNode(jsonString(s)) }

// set assigns obj[k] keeping the key's first position, as a Python dict does.
func (n *jnode) set(k string, v *jnode) {
	if _, ok := n.obj[k]; !ok {
		n.keys = append(n.keys, k)
	}
	n.obj[k] = v
}

// maxJSONDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxJSONDepth = 64

// decodeJSON reads a JSON text into a jnode; ok=false when it is not JSON.
func decodeJSON(text string) (*jnode, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	n, ok := decodeValue(dec, 0)
	if !ok {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data
	}
	return n, true
}

func decodeValue(dec *json.Decoder, depth int) (*jnode, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, false
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, false
				}
				k, ok := kt.(string)
				if !ok {
					return nil, false
				}
				v, ok := decodeValue(dec, depth+1)
				if !ok {
					return nil, false
				}
				n.set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, false
			}
			return n, true
		case '[':
			n := &jnode{kind: 'a'}
			for dec.More() {
				v, ok := decodeValue(dec, depth+1)
				if !ok {
					return nil, false
				}
				n.arr = append(n.arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, false
			}
			return n, true
		}
		return nil, false
	case string:
		return stringNode(t), true
	case json.Number:
		return scalarNode(t.String()), true
	case bool:
		return scalarNode(strconv.FormatBool(t)), true
	case nil:
		return scalarNode("null"), true
	}
	return nil, false
}

// dumps renders the node as Python's json.dumps does (", " and ": ").
func (n *jnode) dumps() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *jnode) write(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(k))
			b.WriteString(": ")
			n.obj[k].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, v := range n.arr {
			if i > 0 {
				b.WriteString(", ")
			}
			v.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.text)
	}
}

// plain is the value as a flag value reads: a string's text, anything else
// its JSON.
func (n *jnode) plain() string {
	if n.kind == 's' && strings.HasPrefix(n.text, `"`) {
		var s string
		if json.Unmarshal([]byte(n.text), &s) == nil {
			return s
		}
	}
	return n.dumps()
}

// merge is vLLM's recursive_dict_update for one key: dicts merge key by
// key, lists are extended, anything else is overwritten. It returns the key
// paths that were overwritten.
func (n *jnode) merge(k string, v *jnode) []string {
	cur, ok := n.obj[k]
	switch {
	case ok && v.kind == 'o' && cur.kind == 'o':
		var dups []string
		for _, kk := range v.keys {
			for _, d := range cur.merge(kk, v.obj[kk]) {
				dups = append(dups, k+"."+d)
			}
		}
		return dups
	case ok && v.kind == 'a' && cur.kind == 'a':
		cur.arr = append(cur.arr, v.arr...)
		return nil
	}
	n.set(k, v)
	if ok {
		return []string{k}
	}
	return nil
}

// topLevelSpans finds, in a JSON object text, the byte range of each
// top-level key (with its quotes) and of its value. ok=false when the text
// is not a JSON object.
func topLevelSpans(text string) (keys []jsonMember, ok bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, isStr := kt.(string)
		if !isStr {
			return nil, false
		}
		keyEnd := int(dec.InputOffset())
		quoted := jsonString(k)
		keyStart := keyEnd - len(quoted)
		if keyStart < 0 || text[keyStart:keyEnd] != quoted {
			keyStart = -1 // written with escapes: no exact span
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		start := end - len(bytes.TrimSpace(raw))
		v, okv := decodeJSON(string(raw))
		if !okv {
			return nil, false
		}
		keys = append(keys, jsonMember{key: k, keyStart: keyStart, keyEnd: keyEnd, valStart: start, valEnd: end, value: v})
	}
	return keys, true
}

// jsonMember is one top-level member of a JSON object, with byte offsets
// into its text (keyStart -1 when the key cannot be located exactly).
type jsonMember struct {
	key              string
	keyStart, keyEnd int
	valStart, valEnd int
	value            *jnode
}

// humanNumber matches the bare tokens vLLM expands inside JSON config
// values (arg_utils.py _expand_json_human_readable_numbers).
func expandHumanNumbers(text string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inString {
			b.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(text) {
					i++
					b.WriteByte(text[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			b.WriteByte(c)
			continue
		}
		// \b\d+(?:\.\d+)?[kKmMgGtT]\b outside strings.
		if c >= '0' && c <= '9' && (i == 0 || !isWordByte(text[i-1])) {
			j := i
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j+1 < len(text) && text[j] == '.' && text[j+1] >= '0' && text[j+1] <= '9' {
				j++
				for j < len(text) && text[j] >= '0' && text[j] <= '9' {
					j++
				}
			}
			if j < len(text) && strings.IndexByte("kKmMgGtT", text[j]) >= 0 && (j+1 == len(text) || !isWordByte(text[j+1])) {
				if n, err := VLLMHumanReadableInt(text[i : j+1]); err == nil {
					b.WriteString(strconv.FormatInt(n, 10))
					i = j
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// jsonTyped is json.loads of a text as a typed value: objects keep their
// keys in order, an integer is an int and any other number a float, as in
// Python. A text Go's decoder cannot read (Python's NaN and Infinity) and an
// integer beyond int64 give KindNone.
func jsonTyped(text string) deploy.Typed {
	n, ok := decodeJSON(text)
	if !ok {
		return deploy.Typed{}
	}
	return n.typed()
}

func (n *jnode) typed() deploy.Typed {
	switch n.kind {
	case 'o':
		members := make([]deploy.Member, len(n.keys))
		for i, k := range n.keys {
			members[i] = deploy.Member{Key: k, Value: n.obj[k].typed()}
		}
		return deploy.TypedObject(members...)
	case 'a':
		items := make([]deploy.Typed, len(n.arr))
		for i, v := range n.arr {
			items[i] = v.typed()
		}
		return deploy.TypedList(items...)
	}
	t := n.text
	switch {
	case t == "null":
		return deploy.TypedNull()
	case t == "true" || t == "false":
		return deploy.TypedBool(t == "true")
	case strings.HasPrefix(t, `"`):
		var s string
		if json.Unmarshal([]byte(t), &s) != nil {
			return deploy.Typed{}
		}
		return deploy.TypedString(s)
	case strings.ContainsAny(t, ".eE"):
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return deploy.Typed{} // beyond float64 (Python reads inf): left untyped
		}
		return deploy.TypedFloat(f)
	}
	i, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return deploy.Typed{}
	}
	return deploy.TypedInt(i)
}
