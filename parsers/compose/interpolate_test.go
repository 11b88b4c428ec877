package compose

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

func plainText(s string) yamlsrc.Text {
	var b yamlsrc.Builder
	for i := range len(s) {
		b.Insert(s[i:i+1], i, i+1)
	}
	return b.Text()
}

func TestInterpolate(t *testing.T) {
	env := vars{
		"MODEL": deploy.Known("llama", deploy.Span{File: ".env", Line: 1, Col: 7, EndLine: 1, EndCol: 12}),
		"EMPTY": deploy.Known("", deploy.Span{File: ".env", Line: 2, Col: 7, EndLine: 2, EndCol: 7}),
	}
	cases := []struct {
		in, out string
		known   bool
		bad     int
	}{
		{"--model $MODEL", "--model llama", true, -1},
		{"--model ${MODEL}x", "--model llamax", true, -1},
		{"$$MODEL", "$MODEL", true, -1},
		{"$$$MODEL", "$llama", true, -1},
		{"${TP:-2}", "2", true, -1},
		{"${EMPTY:-2}", "2", true, -1},
		{"${EMPTY-2}", "", true, -1},
		{"${TP-${MODEL}}", "llama", true, -1},
		{"${MODEL:+set}", "set", true, -1},
		{"${TP:+set}", "", true, -1},
		{"${TP}", "${TP}", false, -1},
		{"${TP:?need TP}", "${TP}", false, -1},
		{"$(date) $1 $", "$(date) $1 $", true, -1},
		{"a ${1x} b", "a ${1x} b", false, 2},
		{"${MODEL", "${MODEL", false, 0},
	}
	for _, c := range cases {
		r := interpolate(plainText(c.in), env)
		if r.text.S != c.out || r.known != c.known || r.bad != c.bad {
			t.Errorf("%q → %q known=%v bad=%d, want %q known=%v bad=%d", c.in, r.text.S, r.known, r.bad, c.out, c.known, c.bad)
		}
	}
}

func TestInvalidInterpolationIsReported(t *testing.T) {
	_, errs := Parse("c.yaml", []byte("services:\n  s:\n    command: [python3, -m, sglang.launch_server, --port, \"${}\"]\n"), noFiles)
	if len(errs) != 1 || errs[0].Span.Line != 3 || errs[0].Span.Col != 59 {
		t.Errorf("errors %v, want one at 3:59", errs)
	}
}
