package jsonpos

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n")
	for off, want := range map[int64][2]int{0: {1, 1}, 2: {1, 3}, 3: {2, 1}, 5: {2, 3}, 6: {3, 1}, 99: {3, 1}, -1: {1, 1}} {
		l, c := LineCol(data, off)
		if [2]int{l, c} != want {
			t.Errorf("LineCol(%d) = %d:%d, want %v", off, l, c, want)
		}
	}
}

type doc struct {
	Tool     string `json:"tool"`
	Version  int    `json:"version"`
	Findings []struct {
		Fingerprint string `json:"fingerprint"`
	} `json:"findings"`
}

// Each kind of decoder error lands on the byte to change.
func TestDecodeError(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"{\n  \"tool\": \"kvlint\",\n", "b.json:3:1: unexpected end of file"},
		{`{"findings": "no"}`, "b.json:1:14: findings must be an array, not a JSON string"},
		{`{"tool": "kvlint", "version": "1"}`, "b.json:1:31: version must be a number, not a JSON string"},
		{`{"tool": "kvlint", "version": true}`, "b.json:1:31: version must be a number, not a JSON bool"},
		{`{"findings": [{"fingerprint": 3}]}`, "b.json:1:31: findings.fingerprint must be a string, not a JSON number"},
		{"{\"tool\": \"kvlint\",\n \"extra\": 1}", `b.json:2:2: unknown field "extra"`},
		{`{"tool": "extra", "extra": 1}`, `b.json:1:19: unknown field "extra"`},
		{"{\"tool\": \"kvlint\",\n \"version\": 1, ]", "b.json:2:16: invalid character ']'"},
	} {
		dec := json.NewDecoder(strings.NewReader(tc.text))
		dec.DisallowUnknownFields()
		var d doc
		err := dec.Decode(&d)
		if err == nil {
			t.Errorf("%q decoded", tc.text)
			continue
		}
		if got := DecodeError("b.json", []byte(tc.text), err).Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %s, want %s…", tc.text, got, tc.want)
		}
	}
}

func TestIndex(t *testing.T) {
	data := []byte("{\n  \"a\": {\"b\": [1, {\"c\": 2}]},\n  \"d\": \"x\",\n  \"f\": [0, {\"g\": 1}]\n}")
	x := NewIndex("c.json", data)
	for path, want := range map[string]string{"a": "c.json:2:8", "a.b": "c.json:2:14", "a.b[1]": "c.json:1:1", "d": "c.json:3:8", "e": "c.json:1:1", "f[1]": "c.json:4:12", "f[1].g": "c.json:1:1"} {
		if got := x.Span(path).String(); got != want {
			t.Errorf("Span(%q) = %s, want %s", path, got, want)
		}
	}
}
