package baseline

import (
	"errors"
	"testing"

	"github.com/kvlint/kvlint/diag"
)

// FuzzParse: any text is a baseline or an error placed inside the text,
// never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "{", "[]", "null", `{"tool": "kvlint", "version": 1, "findings": []}`,
		`{"tool": "kvlint", "version": 1, "findings": [{"rule": "KV101", "fingerprint": "ab", "occurrence": 1}]}`,
		`{"findings": "no"}`, `{"version": "1"}`, `{"x": 1}`, "{\n \"tool\": \"kvlint\",\n \"version\": 1, ]",
		`{"tool": "kvlint", "version": 1, "findings": [{"fingerprint": 3}]}`, "\"\\\"", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("b.json", data)
		if err == nil {
			if b == nil {
				t.Fatal("no baseline and no error")
			}
			return
		}
		var de *diag.Diagnostic
		if !errors.As(err, &de) {
			t.Fatalf("error %v is not a *diag.Diagnostic", err)
		}
		if de.Span.File != "b.json" || de.Span.Line < 1 || de.Span.Col < 1 {
			t.Fatalf("error not placed in the text: %+v", de.Span)
		}
	})
}
