package report

import (
	"bufio"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// writeJSON writes v as encoding/json's Encoder with a two-space indent
// would, byte for byte, but streams it: the top-level object's slice fields
// are written one element at a time, so the report of a large repository
// (tens of MB of JSON) is never held in memory whole. Other fields are
// encoded as they are.
func writeJSON(w io.Writer, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	t := rv.Type()
	bw.WriteString("{")
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || f.Anonymous {
			continue
		}
		fv := rv.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !first {
			bw.WriteString(",")
		}
		first = false
		key, _ := json.Marshal(name)
		bw.WriteString("\n  ")
		bw.Write(key)
		bw.WriteString(": ")
		if err := writeJSONValue(bw, fv); err != nil {
			return err
		}
	}
	if !first {
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeJSONValue writes one field of the top-level object at indent level 1.
func writeJSONValue(bw *bufio.Writer, fv reflect.Value) error {
	if fv.Kind() != reflect.Slice || fv.IsNil() || fv.Len() == 0 {
		b, err := json.MarshalIndent(fv.Interface(), "  ", "  ")
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	}
	bw.WriteString("[")
	for j := range fv.Len() {
		if j > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		b, err := json.MarshalIndent(fv.Index(j).Interface(), "    ", "  ")
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	bw.WriteString("\n  ]")
	return nil
}

// jsonArray is one member of a top-level object written by writeJSONArrays:
// an array of n elements, each produced by at(i) only when it is written.
type jsonArray struct {
	name string
	n    int
	at   func(i int) any
}

// writeJSONArrays writes an object whose members are all arrays, as
// writeJSON would write a struct of non-nil slices, byte for byte, without
// the slices ever existing: each element is built, encoded and dropped.
func writeJSONArrays(w io.Writer, members []jsonArray) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{")
	for k, m := range members {
		if k > 0 {
			bw.WriteString(",")
		}
		key, _ := json.Marshal(m.name)
		bw.WriteString("\n  ")
		bw.Write(key)
		bw.WriteString(": ")
		if m.n == 0 {
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[")
		for j := range m.n {
			if j > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			b, err := json.MarshalIndent(m.at(j), "    ", "  ")
			if err != nil {
				return err
			}
			bw.Write(b)
		}
		bw.WriteString("\n  ]")
	}
	if len(members) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
