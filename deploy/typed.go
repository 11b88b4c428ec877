package deploy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind says what a Typed value holds.
type Kind uint8

const (
	// KindNone is the zero Typed: no typed value. A placeholder, a value
	// the engine's parser rejects, a number beyond int64 and a type kvlint
	// does not interpret all have none; Value.Raw still holds the text.
	KindNone Kind = iota
	KindNull      // Python None: an optional flag given "None", a JSON null
	KindBool
	KindInt
	KindFloat
	KindString // also a choice (enum) value
	KindList   // nargs lists, action append, JSON arrays
	KindObject // JSON objects, with their keys in the order written
)

var kindNames = [...]string{"none", "null", "bool", "int", "float", "string", "list", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Typed is a flag value as the engine's parser converts it: what argparse
// stores after the flag's type function (an int for "--tp-size 8" and
// "--context-length 32k", a bool for a store_true flag, a list for
// "--cuda-graph-bs 1 2 4", an object for a JSON flag). It is immutable; the
// zero Typed is KindNone.
type Typed struct {
	kind Kind
	num  uint64 // int64, float64 bits, or 1 for true
	str  string
	comp *composite
}

// composite holds a list's items, or an object's keys and values.
type composite struct {
	keys  []string
	items []Typed
}

// Member is one key of a JSON object and its value.
type Member struct {
	Key   string
	Value Typed
}

// TypedNull returns Python's None.
func TypedNull() Typed { return Typed{kind: KindNull} }

// TypedBool returns a bool.
func TypedBool(b bool) Typed {
	t := Typed{kind: KindBool}
	if b {
		t.num = 1
	}
	return t
}

// TypedInt returns an int.
func TypedInt(n int64) Typed { return Typed{kind: KindInt, num: uint64(n)} }

// TypedFloat returns a float.
func TypedFloat(f float64) Typed { return Typed{kind: KindFloat, num: math.Float64bits(f)} }

// TypedString returns a string.
func TypedString(s string) Typed { return Typed{kind: KindString, str: s} }

// TypedList returns a list of items. An item of KindNone makes the list
// KindNone: a list is typed only when every item is.
func TypedList(items ...Typed) Typed {
	for _, it := range items {
		if it.kind == KindNone {
			return Typed{}
		}
	}
	return Typed{kind: KindList, comp: &composite{items: append([]Typed(nil), items...)}}
}

// TypedObject returns an object with the members in order; a later member
// with an earlier key replaces its value and keeps its place, as a Python
// dict does. A value of KindNone makes the object KindNone.
func TypedObject(members ...Member) Typed {
	c := &composite{}
	at := map[string]int{}
	for _, m := range members {
		if m.Value.kind == KindNone {
			return Typed{}
		}
		if i, ok := at[m.Key]; ok {
			c.items[i] = m.Value
			continue
		}
		at[m.Key] = len(c.keys)
		c.keys = append(c.keys, m.Key)
		c.items = append(c.items, m.Value)
	}
	return Typed{kind: KindObject, comp: c}
}

// Kind returns what the value holds.
func (t Typed) Kind() Kind { return t.kind }

// IsNone reports whether there is no typed value.
func (t Typed) IsNone() bool { return t.kind == KindNone }

// Int returns an int value.
func (t Typed) Int() (int64, bool) {
	if t.kind != KindInt {
		return 0, false
	}
	return int64(t.num), true
}

// Float returns a number as a float64: a float, or an int converted (an
// engine that reads a flag as int can be asked for a fraction).
func (t Typed) Float() (float64, bool) {
	switch t.kind {
	case KindFloat:
		return math.Float64frombits(t.num), true
	case KindInt:
		return float64(int64(t.num)), true
	}
	return 0, false
}

// Bool returns a bool value.
func (t Typed) Bool() (bool, bool) {
	if t.kind != KindBool {
		return false, false
	}
	return t.num == 1, true
}

// Str returns a string value.
func (t Typed) Str() (string, bool) {
	if t.kind != KindString {
		return "", false
	}
	return t.str, true
}

// List returns a list's items. The slice is the value's own: do not modify it.
func (t Typed) List() ([]Typed, bool) {
	if t.kind != KindList {
		return nil, false
	}
	return t.comp.items, true
}

// Object returns an object's members in the order written.
func (t Typed) Object() ([]Member, bool) {
	if t.kind != KindObject {
		return nil, false
	}
	out := make([]Member, len(t.comp.keys))
	for i, k := range t.comp.keys {
		out[i] = Member{Key: k, Value: t.comp.items[i]}
	}
	return out, true
}

// Field returns the value of an object's key.
func (t Typed) Field(key string) (Typed, bool) {
	if t.kind != KindObject {
		return Typed{}, false
	}
	for i, k := range t.comp.keys {
		if k == key {
			return t.comp.items[i], true
		}
	}
	return Typed{}, false
}

// String renders the value in JSON's shape (objects with their keys in
// order, strings quoted as Go quotes them, a float that is not finite as
// Python's json prints it); "" for KindNone. It is for messages and tests,
// not for reports.
func (t Typed) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Typed) write(b *strings.Builder) {
	switch t.kind {
	case KindNull:
		b.WriteString("null")
	case KindBool:
		b.WriteString(strconv.FormatBool(t.num == 1))
	case KindInt:
		b.WriteString(strconv.FormatInt(int64(t.num), 10))
	case KindFloat:
		f := math.Float64frombits(t.num)
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eEn") {
				s += ".0" // a float stays a float: 8.0, not 8
			}
			b.WriteString(s)
		}
	case KindString:
		b.WriteString(strconv.Quote(t.str))
	case KindList:
		b.WriteByte('[')
		for i, it := range t.comp.items {
			if i > 0 {
				b.WriteString(", ")
			}
			it.write(b)
		}
		b.WriteByte(']')
	case KindObject:
		b.WriteByte('{')
		for i, k := range t.comp.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k))
			b.WriteString(": ")
			t.comp.items[i].write(b)
		}
		b.WriteByte('}')
	}
}

// MarshalBinary encodes the value losslessly (kind, bits, text, items in
// order), for the worker processes that hand servers back to the run
// (internal/worker); encoding/gob uses it, as Typed's fields are its own.
func (t Typed) MarshalBinary() ([]byte, error) {
	return t.appendBinary(nil), nil
}

func (t Typed) appendBinary(b []byte) []byte {
	b = append(b, byte(t.kind))
	b = binary.AppendUvarint(b, t.num)
	b = binary.AppendUvarint(b, uint64(len(t.str)))
	b = append(b, t.str...)
	if t.comp == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(t.comp.items))+1)
	b = binary.AppendUvarint(b, uint64(len(t.comp.keys)))
	for _, k := range t.comp.keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	for _, it := range t.comp.items {
		b = it.appendBinary(b)
	}
	return b
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (t *Typed) UnmarshalBinary(data []byte) error {
	d := typedDecoder{data: data}
	v := d.typed(0)
	if d.err == nil && len(d.data) > 0 {
		d.err = errors.New("deploy: trailing bytes after a typed value")
	}
	if d.err != nil {
		return d.err
	}
	*t = v
	return nil
}

// maxTypedDepth bounds the nesting UnmarshalBinary accepts; values come
// from argv words and JSON flag values, which nest a few levels.
const maxTypedDepth = 10000

type typedDecoder struct {
	data []byte
	err  error
}

func (d *typedDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	n, k := binary.Uvarint(d.data)
	if k <= 0 {
		d.err = errors.New("deploy: truncated typed value")
		return 0
	}
	d.data = d.data[k:]
	return n
}

func (d *typedDecoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.data)) {
		d.err = errors.New("deploy: truncated typed value")
		return ""
	}
	s := string(d.data[:n])
	d.data = d.data[n:]
	return s
}

func (d *typedDecoder) typed(depth int) Typed {
	if d.err != nil {
		return Typed{}
	}
	if depth > maxTypedDepth {
		d.err = errors.New("deploy: typed value nested too deeply")
		return Typed{}
	}
	if len(d.data) == 0 {
		d.err = errors.New("deploy: truncated typed value")
		return Typed{}
	}
	t := Typed{kind: Kind(d.data[0])}
	d.data = d.data[1:]
	if t.kind > KindObject {
		d.err = fmt.Errorf("deploy: typed value of unknown kind %d", t.kind)
		return Typed{}
	}
	t.num = d.uvarint()
	t.str = d.str()
	items := d.uvarint()
	if items == 0 || d.err != nil {
		return t
	}
	items--
	keys := d.uvarint()
	if items > uint64(len(d.data)) || keys > items {
		d.err = errors.New("deploy: truncated typed value")
		return Typed{}
	}
	t.comp = &composite{}
	if items > 0 { // TypedList() and TypedObject() of nothing hold nil slices
		t.comp.items = make([]Typed, 0, items)
	}
	if keys > 0 {
		t.comp.keys = make([]string, 0, keys)
	}
	for range keys {
		t.comp.keys = append(t.comp.keys, d.str())
	}
	for range items {
		t.comp.items = append(t.comp.items, d.typed(depth+1))
	}
	return t
}
