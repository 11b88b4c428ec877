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
