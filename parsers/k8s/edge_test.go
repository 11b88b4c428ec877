package k8s

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

func parseString(in string) ([]*deploy.Server, []*diag.Diagnostic) {
	return Parse("in.yaml", []byte(in), noFiles)
}

const podHead = `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
`

func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name, in string
		line     int
		col      int
		contains string
	}{
		{"unquoted number in args", podHead + "      command: [python3, -m, sglang.launch_server]\n      args: [--tp-size, 2]\n",
			9, 25, "quote it"},
		{"command is a string", podHead + "      command: python3 -m sglang.launch_server\n",
			8, 16, "command must be a list"},
		{"containers is a mapping", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n        name: c\n",
			8, 9, "containers must be a list"},
		{"env is a mapping", podHead + "      command: [python3, -m, sglang.launch_server]\n      env: {TP: 2}\n",
			9, 12, "env must be a list"},
		{"tab indentation", "apiVersion: v1\nkind: Pod\n\tcommand: [vllm, serve, m]\n", 3, 1, "invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parseString(c.in)
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			e := errs[0]
			if e.Span.Line != c.line || e.Span.Col != c.col || !strings.Contains(e.Message, c.contains) {
				t.Errorf("got %v, want %d:%d containing %q", e, c.line, c.col, c.contains)
			}
		})
	}
}

func TestUnquotedNumberIsStillRead(t *testing.T) {
	servers, _ := parseString(podHead + "      command: [python3, -m, sglang.launch_server]\n      args: [--tp-size, 2]\n")
	if len(servers) != 1 || servers[0].Args["--tp-size"].Raw != "2" {
		t.Fatalf("servers %+v", servers)
	}
}

func TestKubeletExpansionBeforeTheShell(t *testing.T) {
	requireShellLaunches(t)
	in := podHead + `      command: [sh, -c]
      args:
        - python3 -m sglang.launch_server --tp-size $(TP) --mem-fraction-static $MEM --context-length $$(CTX)
      env:
        - {name: TP, value: "4"}
        - {name: MEM, value: "0.$(TP)"}
`
	servers, errs := parseString(in)
	if len(errs) != 0 || len(servers) != 1 {
		t.Fatalf("servers %v errors %v", servers, errs)
	}
	s := servers[0]
	// $(TP) was replaced by the kubelet: the word spans the reference and
	// Its origin names the env value.
	tp := s.Args["--tp-size"]
	want := deploy.Span{File: "in.yaml", Line: 10, Col: 53, EndLine: 10, EndCol: 58}
	if tp.Raw != "4" || !tp.Known || tp.Span != want || len(tp.Origin) != 1 || tp.Origin[0].Span.Line != 12 {
		t.Errorf("--tp-size %+v, want 4 at %v via line 12", tp, want)
	}
	// $MEM is the shell's, from env, whose own $(TP) the kubelet expanded.
	if m := s.Args["--mem-fraction-static"]; m.Raw != "0.4" || !m.Known {
		t.Errorf("--mem-fraction-static %+v", m)
	}
	// $$(CTX) reaches the shell as $(CTX): a command substitution.
	if c := s.Args["--context-length"]; c.Known {
		t.Errorf("--context-length %+v, want unknown", c)
	}
}

func TestEnvReferencesOnlyEarlierVariables(t *testing.T) {
	in := podHead + `      command: [python3, -m, sglang.launch_server, --tp-size, $(A)]
      env:
        - {name: A, value: "$(B)"}
        - {name: B, value: "2"}
`
	servers, _ := parseString(in)
	if a := servers[0].Args["--tp-size"]; a.Known {
		t.Errorf("--tp-size %+v: $(B) is defined after A, so A stays \"$(B)\"", a)
	}
}

func TestKindsAndShapes(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		names []string
	}{
		{"cronjob", `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - {name: c, command: [python3, -m, sglang.launch_server]}
`, []string{"nightly"}},
		{"list", `apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: ds}
    spec:
      template:
        spec:
          containers:
            - {name: c, command: [python3, -m, sglang.launch_server]}
`, []string{"ds"}},
		{"not kubernetes", `services:
  web:
    containers:
      - {name: c, command: [python3, -m, sglang.launch_server]}
`, nil},
		{"init containers are not servers", podHead + `      command: [python3, -m, sglang.launch_server]
  initContainers:
    - {name: i, command: [python3, -m, sglang.launch_server]}
`, []string{"p"}},
		{"anchors shared between templates", `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l}
spec:
  leaderWorkerTemplate:
    leaderTemplate: &t
      spec:
        containers:
          - {name: c, command: [python3, -m, sglang.launch_server]}
    workerTemplate: *t
`, []string{"l/leader", "l/worker"}},
		{"image entrypoint", podHead + "      image: lmsysorg/sglang\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			servers, errs := parseString(c.in)
			if len(errs) != 0 {
				t.Fatalf("errors %v", errs)
			}
			var names []string
			for _, s := range servers {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != strings.Join(c.names, ",") {
				t.Errorf("servers %q, want %q", names, c.names)
			}
		})
	}
}

func TestAliasBombIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  a0: &a0 [{x: 1}, {x: 2}]\n")
	for i := 1; i < 30; i++ {
		b.WriteString("  a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [*a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + ", *a" + strconv.Itoa(i-1) + "]\n")
	}
	_, errs := parseString(b.String())
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "aliases") {
		t.Errorf("errors %v, want one about aliases", errs)
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	in := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "\n"
	_, errs := parseString(in)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "deeper") {
		t.Errorf("errors %v, want one about nesting", errs)
	}
}

// TestSyntaxErrorsOfEnginelessDocuments checks that a document that cannot
// be read is an error only when it names an engine outside comments: a
// templated recipe is not a manifest, a broken pod that runs vLLM is.
func TestSyntaxErrorsOfEnginelessDocuments(t *testing.T) {
	cases := []struct {
		name, in string
		lines    []int
	}{
		{"jinja recipe", "{% set name = \"x\" %}\npackage:\n  name: {{ name }}\n", nil},
		{"go template", "spec:\n  platforms:\n  - {{addURI \"u\" .Tag | indent 4}}\n", nil},
		{"engine in a comment", "# runs vllm serve\n{% set a = 1 %}\n", nil},
		{"engine named", "{% set m = \"x\" %}\ncommand: [vllm, serve, m]\n", []int{1}},
		{"image named", "image: vllm/vllm-openai:v0.9.0\n\tspec: {}\n", []int{2}},
		{"only the document that names it", "a: [\n---\nb: c: d\ncommand: [python3, -m, sglang.launch_server]\n", []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parseString(c.in)
			var lines []int
			for _, e := range errs {
				lines = append(lines, e.Span.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.lines) {
				t.Errorf("errors %v, want at lines %v", errs, c.lines)
			}
		})
	}
}
