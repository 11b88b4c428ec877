package fixes

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// valueAt is a known value whose span covers the first occurrence of text
// in the file.
func valueAt(t *testing.T, f *source.File, text, raw string) deploy.Value {
	t.Helper()
	i := strings.Index(string(f.Data), text)
	if i < 0 {
		t.Fatalf("%q not in %s", text, f.Name)
	}
	return deploy.Value{Raw: raw, Known: true, Span: indexOf(f).Span(f.Name, i, i+len(text))}
}

func splice(t *testing.T, f *source.File, newText string, span deploy.Span) string {
	t.Helper()
	ix := indexOf(f)
	a, b := ix.Offset(span.Line, span.Col), ix.Offset(span.EndLine, span.EndCol)
	return string(f.Data[:a]) + newText + string(f.Data[b:])
}

func TestSetValueChecksTheLiteral(t *testing.T) {
	set := source.NewSet()
	f := set.Add(source.NewFile("run.sh", []byte("CTX=\"32k\"\nserve --context-length \"$CTX\"\n"), source.SyntaxShell))
	v := valueAt(t, f, "$CTX", "32k")
	v.Origin = deploy.Origin{deploy.At(deploy.StepAssignment, valueAt(t, f, "CTX=\"32k\"", "").Span)}
	reps, why := setValue(set, v, "16384")
	if why != "" || len(reps) != 1 {
		t.Fatalf("want one edit at the assignment, got %v %q", reps, why)
	}
	if got := splice(t, f, reps[0].NewText, reps[0].Span); got != "CTX=\"16384\"\nserve --context-length \"$CTX\"\n" {
		t.Errorf("spliced:\n%s", got)
	}
	// A span that no longer holds the literal is not edited.
	stale := valueAt(t, f, "serve", "65536")
	if reps, why := setValue(set, stale, "1"); len(reps) != 0 || !strings.Contains(why, "not the literal") {
		t.Errorf("stale span: got %v %q", reps, why)
	}
	// A template expression is not a literal.
	tv := valueAt(t, f, "$CTX", "32k")
	tv.Origin = deploy.Origin{deploy.At(deploy.StepTemplate, valueAt(t, f, "serve", "").Span)}
	if reps, why := setValue(set, tv, "1"); len(reps) != 0 || !strings.Contains(why, "template") {
		t.Errorf("template: got %v %q", reps, why)
	}
}

func TestAddFlagInTheFilesSyntax(t *testing.T) {
	for _, tc := range []struct {
		name, text, last, want string
		syntax                 source.Syntax
	}{
		{"block list", "args:\n  - --port\n  - 30000\nnext: 1\n", "30000",
			"args:\n  - --port\n  - 30000\n  - --tp-size\n  - \"2\"\nnext: 1\n", source.SyntaxYAML},
		{"quoted block list", "args:\n    - --port\n    - '30000'\n", "30000",
			"args:\n    - --port\n    - '30000'\n    - --tp-size\n    - '2'\n", source.SyntaxYAML},
		{"flow list", "args: [\"--port\", \"30000\"]\n", "30000",
			"args: [\"--port\", \"30000\", \"--tp-size\", \"2\"]\n", source.SyntaxYAML},
		{"command string", "command: serve --port 30000\n", "30000",
			"command: serve --port 30000 --tp-size 2\n", source.SyntaxYAML},
		{"shell continuation", "serve \\\n  --port \"$PORT\" \\\n  >log\n", "$PORT",
			"serve \\\n  --port \"$PORT\" --tp-size 2 \\\n  >log\n", source.SyntaxShell},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := source.NewSet()
			f := set.Add(source.NewFile("f", []byte(tc.text), tc.syntax))
			last := valueAt(t, f, tc.last, tc.last)
			s := &deploy.Server{Span: deploy.Span{File: "f", Line: 1, Col: 1}, Args: map[string]deploy.Value{"--port": last}}
			reps, why := addFlag(set, s, "--tp-size", "2")
			if why != "" || len(reps) != 1 {
				t.Fatalf("got %v %q", reps, why)
			}
			if got := splice(t, f, reps[0].NewText, reps[0].Span); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestAddFlagRefusesATemplatedLaunch(t *testing.T) {
	set := source.NewSet()
	f := set.Add(source.NewFile("t.yaml", []byte("args:\n  - {{ .Values.port }}\n"), source.SyntaxYAML))
	v := valueAt(t, f, "{{ .Values.port }}", "30000")
	v.Origin = deploy.Origin{deploy.At(deploy.StepTemplate, v.Span)}
	s := &deploy.Server{Span: deploy.Span{File: "t.yaml", Line: 1, Col: 1}, Args: map[string]deploy.Value{"--port": v}}
	if reps, why := addFlag(set, s, "--tp-size", "2"); len(reps) != 0 || !strings.Contains(why, "template") {
		t.Errorf("got %v %q", reps, why)
	}
}
