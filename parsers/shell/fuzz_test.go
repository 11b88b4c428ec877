package shell

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func FuzzShell(f *testing.F) {
	seeds := []string{
		"python3 -m sglang.launch_server \\\n  --model-path m --port 30000\n",
		"MODEL=m\nexport PORT=1\nnohup python3 -m sglang.launch_server --model-path \"$MODEL\" --port=$PORT ${CTX:-32768} \"$@\" &\n",
		"bash -c \"python3 -m sglang.launch_server --x \\\"a b\\\" --p \\$P $((1+2))\"\n",
		"sh -c 'sh -c \"bash -lc \\\"run\\\"\"'\n",
		"if a; then T=1; elif b; then T=2; else T=3; fi; for i in 1 2; do run $i; done; case $x in a) ;; esac\n",
		"f() { local A=1; declare -x B=2; readonly C; }; f; (sub); a | b && c || d\n",
		"run $'a\\tb\\x41\\u00e9\\101\\cA' ~/x ~user/y *.txt {a,b} [x] \"${#A}\" ${A:=b} ${A:+c} ${A:?d}\n",
		"echo \"unterminated\n",
		"cat <<EOF\nbody $X\nEOF\nrun\n",
		"A+=1 B=(1 2) C[0]=x run; let i++; ((j=2)); unset -f k; set -a; set -o allexport\n",
		"IFS=,; O=a,b; run $O; echo $((2**62*4)) $((1/0)) $((010+0x1f))\n",
		"C=\"sglang serve --tp 2\"\neval \"$C --port=${P}0\" x\\\"y\neval 'f() { run \"$@\"; }'; f a \"b c\"\n",
		"A=(--tp \"$M\" [2]=x); A+=(y); A[1]=z; run \"${A[@]}\" ${A[*]} ${#A[@]} ${A[1]} $A\n",
		"g() { local T=$1; run --tp \"$T\" \"$@\"; g; }; g 2 3; function h { eval \"$1\"; }; h 'run x'\n",
	}
	for i, s := range seeds {
		f.Add(s, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, script string, embedded bool) {
		text := []byte(script)
		lines := bytes.Count(text, []byte("\n")) + 1
		src := Source{File: "f.sh", Text: text}
		if embedded {
			// As a YAML block scalar would place it, with known arguments
			// and environment.
			src.Map = func(l, c int) (int, int) { return l + 2, c + 4 }
			lines += 2
			p := deploy.Span{File: "f.sh", Line: 1, Col: 1, EndLine: 1, EndCol: 2}
			src.Params = []deploy.Value{deploy.Known("sh", p), deploy.Known("--tp 2", p), deploy.Known("*", p)}
			src.Env = Env{"MODEL": deploy.Known("m", p), "IFS": deploy.Known(",", p), "X": deploy.Unknown("$(X)", p)}
		}
		cmds, errs := Commands(src)
		servers, serrs := Servers(src, nil)
		errs = append(errs, serrs...)
		for _, s := range servers {
			if s.Span.File != "f.sh" || s.Span.Line < 1 {
				t.Fatalf("server span %+v for %q", s.Span, script)
			}
		}
		check := func(s deploy.Span, what string) {
			if s.File != "f.sh" || s.Line < 1 || s.Col < 1 || s.EndLine < s.Line ||
				s.EndLine == s.Line && s.EndCol <= s.Col || s.EndLine > lines {
				t.Fatalf("bad %s span %+v for %q", what, s, script)
			}
		}
		for _, c := range cmds {
			check(c.Span, "command")
			if len(c.Words) == 0 {
				t.Fatalf("command without words for %q", script)
			}
			for _, w := range c.Words {
				check(w.Span, "word")
			}
		}
		for _, e := range errs {
			check(e.Span, "error")
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("%v for %q", e, script)
			}
		}
	})
}
