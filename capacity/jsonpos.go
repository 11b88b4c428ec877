package capacity

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/kvlint/kvlint/source/jsonpos"
)

// jsonDoc is a decoded JSON object with the byte offset of every value, so
// an error about a value can point at it.
type jsonDoc struct {
	root map[string]any
	*jsonpos.Index
}

// decodeJSONObject decodes data, which must be one JSON object. Syntax
// errors carry the line and column of the offending byte.
func decodeJSONObject(file string, data []byte) (*jsonDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		e := jsonpos.DecodeError(file, data, err)
		e.Message = "invalid JSON: " + e.Message
		return nil, e
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, jsonpos.Errorf(file, data, jsonpos.SkipSpace(data, end), "unexpected data after the top-level JSON value")
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, jsonpos.Errorf(file, data, jsonpos.SkipSpace(data, 0), "a config.json must hold a JSON object")
	}
	return &jsonDoc{root: root, Index: jsonpos.NewIndex(file, data)}, nil
}
