package report

import (
	"bytes"
	"testing"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain: 8,192 tokens\t(ok)": "plain: 8,192 tokens\t(ok)",
		"a\nb\r\n":                  `a\u000ab\u000d\u000a`,
		"\x1b[2J\x07":               `\u001b[2J\u0007`,
		"c1 \u009b31m":              `c1 \u009b31m`,
		"rtl \u202egnp.sh":          `rtl \u202egnp.sh`,
		"bad \xff byte":             `bad \xff byte`,
		"é and 日本":                  "é and 日本",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSafeWriter(t *testing.T) {
	for _, tt := range []struct {
		commands bool
		in, want string
	}{
		{false, "ok\n::error::x\n  ::fine\n", "ok\n ::error::x\n  ::fine\n"},
		{true, "::error file=a::m\n", "::error file=a::m\n"},
		{false, "esc \x1b]52;c;x\x07 end", `esc \u001b]52;c;x\u0007 end`},
	} {
		var out bytes.Buffer
		w := NewSafeWriter(&out, tt.commands)
		// Written a byte at a time: a line split across writes is still
		// judged whole.
		for i := 0; i < len(tt.in); i++ {
			if _, err := w.Write([]byte{tt.in[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("SafeWriter(%v, %q) wrote %q, want %q", tt.commands, tt.in, out.String(), tt.want)
		}
	}
}
