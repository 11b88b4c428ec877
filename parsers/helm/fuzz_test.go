package helm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/kvlint/kvlint/diag"
)

// checkErrors asserts what every error must be: spanned at a file, with a
// message.
func checkErrors(t *testing.T, errs []*diag.Diagnostic) {
	t.Helper()
	for _, e := range errs {
		// Only a command-line --set has no file: its error names it.
		if e == nil || (e.Span.File == "" && !strings.HasPrefix(e.Message, "--set")) || strings.TrimSpace(e.Message) == "" {
			t.Fatalf("bad error %#v", e)
		}
	}
}

// FuzzValues renders the test chart with a fuzzed values document and
// --set: whatever they hold, no panic, and errors are spanned.
func FuzzValues(f *testing.F) {
	for _, name := range []string{"values.yaml", "values-dev.yaml", "values-prod.yaml"} {
		data, err := os.ReadFile(filepath.Join(pd, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "decode.maxTotalTokens=1024")
	}
	f.Add([]byte("decode: [1, 2]\n"), "decode.extraArgs={a,b}")
	f.Add([]byte("model: &m {path: x}\nprefill: *m\n"), "a.b[3]=x")
	f.Add([]byte("decode:\n  maxTotalTokens: 1e+06\n  <<: {replicas: 2}\n"), "decode=null")
	f.Add([]byte("\xef\xbb\xbfdecode:\n\tx: 1\n"), "x\\.y=1,z=2")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		if len(data) > 4096 || len(set) > 256 {
			return
		}
		r := Release{Chart: pd, Values: []Values{{File: "fuzz.yaml", Data: data, Unknown: func(s string) bool { return strings.HasPrefix(s, "$") }}}}
		if set != "" {
			r.Set = []Set{{Expr: set}}
		}
		servers, errs := Render(r, nil)
		checkErrors(t, errs)
		for _, s := range servers {
			for _, v := range s.Args {
				if v.Known && strings.Contains(v.Raw, "kvlintunknown") {
					t.Fatalf("a placeholder leaked as a known value: %+v", v)
				}
			}
		}
	})
}

// slowFunctions can make one template run for minutes or allocate without
// bound; Helm has the same exposure, so the fuzzer leaves them out.
var slowFunctions = []string{"until", "repeat", "range", "include", "template", "tpl", "seq",
	"gen", "bcrypt", "htpasswd", "derive", "encrypt", "decrypt", "randBytes", "randAlpha", "randNum", "randAscii"}

// FuzzChart renders a chart with a fuzzed template and values.yaml, written
// to disk as Helm's loader reads charts.
func FuzzChart(f *testing.F) {
	tpl, err := os.ReadFile(filepath.Join(pd, "templates", "decode.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(tpl), []byte("decode: {maxTotalTokens: 1024, tpSize: 2, memFractionStatic: 0.8, maxRunningRequests: 4, replicas: 1}\nimage: {repository: r, tag: t}\n"))
	f.Add("command: [python3, -m, sglang.launch_server, --tp, {{ .Values.tp | quote }}]\n", []byte("tp: 2\n"))
	f.Add("{{ required \"x\" .Values.x }}", []byte(""))
	f.Add("{{- if gt (int .Values.tp) 1 }}{{ fail \"no\" }}{{ end }}", []byte("tp: 4"))
	f.Add("{{ .Values.a.b.c }}", []byte("a: 1"))
	f.Add("kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - command: [sh, -c, \"python -m sglang.launch_server --max-total-tokens {{ mul .Values.k 1024 }}\"]\n", []byte("k: 4"))
	f.Fuzz(func(t *testing.T, tpl string, values []byte) {
		if len(tpl) > 1024 || len(values) > 1024 {
			return
		}
		for _, s := range slowFunctions {
			if strings.Contains(tpl, s) || strings.Contains(string(values), "{{") {
				return
			}
		}
		dir := t.TempDir()
		files := map[string][]byte{
			"Chart.yaml":             []byte("apiVersion: v2\nname: fuzz\nversion: 0.1.0\n"),
			"values.yaml":            values,
			"templates/server.yaml":  []byte(tpl),
			"templates/_helpers.tpl": []byte(`{{- define "h" -}}- --port{{"\n"}}- "30000"{{- end -}}`),
		}
		for name, data := range files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, errs := Render(Release{Chart: dir}, nil)
		checkErrors(t, errs)
	})
}

// FuzzTrace checks the trace on arbitrary template text: the bracketed
// template parses again, and stripping any text gives regions inside it.
func FuzzTrace(f *testing.F) {
	f.Add("a {{ .x }} b {{- if .y }}c{{ else }}{{ template \"t\" . }}{{ end }}{{ define \"t\" }}d{{ .z | quote }}{{ end }}")
	f.Add("{{ range $i, $e := .l }}{{ $i }}{{ break }}{{ end }}{{ with .w }}{{ . }}{{ else with .v }}{{ . }}{{ end }}")
	f.Add("\uE000\uE010\uE001x\uE002\uE002\uE000")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2048 {
			return
		}
		for _, m := range []mode{modeFull, modeTop} {
			tr := newTracer()
			out, ok := tr.rewrite("t.yaml", src, m)
			if !ok {
				continue
			}
			p := parse.New("t.yaml")
			p.Mode = parse.SkipFuncCheck
			if _, err := safeParseTree(p, out, map[string]*parse.Tree{}); err != nil {
				t.Fatalf("the bracketed template does not parse: %v\n%s", err, out)
			}
			for _, n := range tr.nodes {
				if n.start < 0 || n.end < n.start || n.end > len(src) {
					t.Fatalf("node %+v outside the source (%d bytes)", n, len(src))
				}
			}
		}
		st := strip(src)
		for _, r := range st.regions {
			if r.start < 0 || r.end < r.start || r.end > len(st.text) {
				t.Fatalf("region %+v outside the stripped text (%d bytes)", r, len(st.text))
			}
		}
		al := align(src, st.text)
		for off := 0; off <= len(src); off += 7 {
			if b := al.toB(off); b > len(st.text)+len(src) {
				t.Fatalf("offset %d maps to %d", off, b)
			}
		}
	})
}

// FuzzKnownValues reads fuzzed values files as a known chart's.
func FuzzKnownValues(f *testing.F) {
	for _, name := range []string{"sglang-lws-prod.yaml", "production-stack.yaml", "modelservice-pd.yaml", "not-a-chart-values.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "values", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8192 {
			return
		}
		if !KnownValues(data) {
			return
		}
		servers, errs := ParseValues("v.yaml", data)
		checkErrors(t, errs)
		for _, s := range servers {
			if s.Name == "" || s.Source != SourceValues {
				t.Fatalf("server without a name or source: %+v", s)
			}
		}
	})
}
