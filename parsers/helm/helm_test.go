package helm

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

const pd = "testdata/charts/sglang-pd"

// at renders a span as file:line:col-endcol for compact expectations.
func at(s deploy.Span) string {
	if s.Line == 0 {
		return s.File
	}
	out := s.String()
	if s.EndLine == s.Line {
		out += "-" + itoa(s.EndCol)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// steps renders an origin as "kind file:line:col-endcol" per step in a
// file and "kind text" per step that is none.
func steps(o deploy.Origin) []string {
	var out []string
	for _, st := range o {
		if st.InFile() {
			out = append(out, string(st.Kind)+" "+at(st.Span))
		} else {
			out = append(out, string(st.Kind)+" "+st.Text)
		}
	}
	return out
}

func serverNamed(t *testing.T, servers []*deploy.Server, suffix string) *deploy.Server {
	t.Helper()
	for _, s := range servers {
		if strings.HasSuffix(s.Name, suffix) {
			return s
		}
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	t.Fatalf("no server named *%s among %v", suffix, names)
	return nil
}

func mustRender(t *testing.T, r Release) []*deploy.Server {
	t.Helper()
	servers, errs := Render(r, nil)
	for _, e := range errs {
		t.Errorf("unexpected error: %v", e)
	}
	return servers
}

// Every value of the rendered chart is traced to the line a user edits, with
// the template line that used it in its origin, then the include sites it
// passed through; literal template text is spanned at the template.
func TestProvenanceThroughTemplatesAndHelpers(t *testing.T) {
	servers := mustRender(t, Release{Chart: pd, Values: []Values{{File: pd + "/values-prod.yaml"}}})
	decode := serverNamed(t, servers, "-decode")
	tests := []struct {
		flag, raw, span string
		via             []string
	}{
		// values-prod.yaml overrides the chart's empty default; the
		// template prints it inside {{- with }}.
		{"--max-total-tokens", "16384", pd + "/values-prod.yaml:4:19-24", []string{"template " + pd + "/templates/decode.yaml:33:15-30"}},
		// Not overridden: the chart's own values.yaml.
		{"--mem-fraction-static", "0.85", pd + "/values.yaml:21:22-26", []string{"template " + pd + "/templates/decode.yaml:30:15-61"}},
		// Printed in a helper: the helper's action, then the include site.
		{"--context-length", "32768", pd + "/values.yaml:4:18-23", []string{
			"template " + pd + "/templates/_helpers.tpl:16:3-44", "include " + pd + "/templates/decode.yaml:24:13-66"}},
		// A list item of values-prod.yaml, printed by a range.
		{"--schedule-conservativeness", "0.8", pd + "/values-prod.yaml:7:8-11", []string{"template " + pd + "/templates/decode.yaml:38:15-30"}},
		// Literal text of the template, and of the helper.
		{"--disaggregation-mode", "decode", pd + "/templates/decode.yaml:26:15-21", nil},
		{"--port", "30000", pd + "/templates/_helpers.tpl:20:4-9", []string{"include " + pd + "/templates/decode.yaml:24:13-66"}},
	}
	for _, tc := range tests {
		v, ok := decode.Args[tc.flag]
		if !ok {
			t.Errorf("%s: not found in %v", tc.flag, decode.ArgNames())
			continue
		}
		if v.Raw != tc.raw || !v.Known || v.Origin.Inferred() {
			t.Errorf("%s = %q known=%v inferred=%v, want %q known", tc.flag, v.Raw, v.Known, v.Origin.Inferred(), tc.raw)
		}
		if got := at(v.Span); got != tc.span {
			t.Errorf("%s span %s, want %s", tc.flag, got, tc.span)
		}
		if via := steps(v.Origin); strings.Join(via, ", ") != strings.Join(tc.via, ", ") {
			t.Errorf("%s via %v, want %v", tc.flag, via, tc.via)
		}
	}
	if decode.Role != deploy.RoleDecode || decode.Source != Source {
		t.Errorf("decode role %q source %q", decode.Role, decode.Source)
	}
	if got := at(decode.Replicas.Span); decode.Replicas.Raw != "6" || got != pd+"/values-prod.yaml:3:13-14" {
		t.Errorf("replicas %q at %s", decode.Replicas.Raw, got)
	}
	if got := at(decode.Span); !strings.HasPrefix(got, pd+"/templates/decode.yaml:22:") {
		t.Errorf("server span %s, want the command in decode.yaml line 22", got)
	}
}

// Later values documents win, --set wins over them, and each value is
// spanned where it was last set.
func TestValuesPrecedence(t *testing.T) {
	set := deploy.Span{File: ".kvlint.yaml", Line: 3, Col: 9, EndLine: 3, EndCol: 35}
	servers := mustRender(t, Release{Chart: pd,
		Values: []Values{{File: pd + "/values-dev.yaml"}, {File: pd + "/values-prod.yaml"}},
		Set:    []Set{{Expr: "decode.maxRunningRequests=48", Span: set}},
	})
	decode := serverNamed(t, servers, "-decode")
	if v := decode.Args["--max-running-requests"]; v.Raw != "48" || v.Span != set {
		t.Errorf("--set: %q at %v", v.Raw, v.Span)
	}
	// Written in a file, a --set is where the value was set, like a
	// values line; the template action follows.
	if v := decode.Args["--max-running-requests"]; len(v.Origin) != 1 || v.Origin[0].Kind != deploy.StepTemplate {
		t.Errorf("--set in a file: origin %v, want the template action", steps(v.Origin))
	}
	if v := decode.Replicas; v.Raw != "6" || !strings.HasSuffix(v.Span.File, "values-prod.yaml") {
		t.Errorf("replicas from the last file: %q at %v", v.Raw, v.Span)
	}
	dev := mustRender(t, Release{Chart: pd, Values: []Values{{File: pd + "/values-dev.yaml"}}})
	d := serverNamed(t, dev, "-decode")
	if _, ok := d.Args["--max-total-tokens"]; ok {
		t.Errorf("dev renders no --max-total-tokens (empty default), got %v", d.Args["--max-total-tokens"])
	}
	if v := d.Args["--max-running-requests"]; v.Raw != "16" || at(v.Span) != pd+"/values-dev.yaml:3:23-25" {
		t.Errorf("dev --max-running-requests %q at %s", v.Raw, at(v.Span))
	}
}

// A --set given on a command line is no place in a file: the value stays at
// the template action that printed it, and the --set ends its origin as a
// step with the argument's text and no span.
func TestCommandLineSetIsNamedNotSpanned(t *testing.T) {
	servers := mustRender(t, Release{Chart: pd,
		Values: []Values{{File: pd + "/values-prod.yaml"}},
		Set:    []Set{{Expr: "decode.maxTotalTokens=8192"}},
	})
	v := serverNamed(t, servers, "-decode").Args["--max-total-tokens"]
	if v.Raw != "8192" || at(v.Span) != pd+"/templates/decode.yaml:33:15-30" {
		t.Errorf("--max-total-tokens %q at %s, want 8192 at the template action", v.Raw, at(v.Span))
	}
	want := []string{"set --set decode.maxTotalTokens=8192"}
	if got := steps(v.Origin); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("origin %v, want %v", got, want)
	}
	if st := v.Origin[len(v.Origin)-1]; st.InFile() || !st.Span.IsZero() {
		t.Errorf("the --set step has a span: %+v", st)
	}
}

// A subchart's values come from the parent's values.yaml where it sets
// them (globals included, the parent's winning), else the subchart's own.
func TestSubchartValues(t *testing.T) {
	const c = "testdata/charts/with-subchart"
	servers := mustRender(t, Release{Chart: c})
	if len(servers) != 1 {
		t.Fatalf("got %d servers, want the subchart's one", len(servers))
	}
	s := servers[0]
	want := map[string]string{
		"--context-length":      c + "/values.yaml:3:18-24",
		"--mem-fraction-static": c + "/values.yaml:7:22-26",
		"--tp-size":             c + "/charts/engine/values.yaml:2:9-10",
		"--max-total-tokens":    c + "/charts/engine/values.yaml:4:17-22",
	}
	for flag, span := range want {
		v := s.Args[flag]
		if got := at(v.Span); got != span {
			t.Errorf("%s = %q at %s, want %s", flag, v.Raw, got, span)
		}
		if len(v.Origin) == 0 || !strings.HasPrefix(v.Origin[0].Span.File, c+"/charts/engine/templates/statefulset.yaml") {
			t.Errorf("%s via %v, want the subchart's template", flag, v.Origin)
		}
	}
	if v := s.Args["--context-length"]; v.Raw != "131072" {
		t.Errorf("the parent's global wins: --context-length %q", v.Raw)
	}
	off := mustRender(t, Release{Chart: c, Set: []Set{{Expr: "engine.enabled=false"}}})
	if len(off) != 0 {
		t.Errorf("condition engine.enabled=false still renders %d servers", len(off))
	}
}

// A template that computes on a value prints no marker; the value is then
// matched by text and key name, and marked inferred. A computed value with
// no leaf of that text stays at the template.
func TestComputedValuesAreInferredOrLeftAtTheTemplate(t *testing.T) {
	const c = "testdata/charts/computed"
	s := mustRender(t, Release{Chart: c})[0]
	if v := s.Args["--context-length"]; !v.Origin.Inferred() || at(v.Span) != c+"/values.yaml:1:16-21" {
		t.Errorf("--context-length %q inferred=%v at %s", v.Raw, v.Origin.Inferred(), at(v.Span))
	} else if st := v.Origin[0]; st.Kind != deploy.StepTemplate || !st.Inferred {
		t.Errorf("--context-length: the template action that computed on the value is %+v, want it inferred", st)
	}
	if v := s.Args["--max-total-tokens"]; v.Raw != "16384" || v.Origin.Inferred() || !strings.HasPrefix(at(v.Span), c+"/templates/server.yaml:15:11") {
		t.Errorf("--max-total-tokens %q inferred=%v at %s", v.Raw, v.Origin.Inferred(), at(v.Span))
	}
}

// Charts that cannot render are errors at the template position Helm names,
// never servers.
func TestRenderErrors(t *testing.T) {
	tests := []struct{ chart, span, msg string }{
		{"template-error", "templates/deployment.yaml:12:15-44", `template does not parse: function "quoted" not defined`},
		{"missing-required", "templates/decode.yaml:15:15-125", "decode.maxTotalTokens must be set for every environment"},
		{"fail-call", "templates/server.yaml:1:1-34", "tpSize 16 is more GPUs than one node has"},
	}
	for _, tc := range tests {
		dir := "testdata/charts/" + tc.chart
		servers, errs := Render(Release{Chart: dir}, nil)
		if len(servers) != 0 || len(errs) != 1 {
			t.Errorf("%s: %d servers, errors %v", tc.chart, len(servers), errs)
			continue
		}
		if got := at(errs[0].Span); got != dir+"/"+tc.span || errs[0].Message != tc.msg {
			t.Errorf("%s: %s: %s\nwant %s: %s", tc.chart, got, errs[0].Message, dir+"/"+tc.span, tc.msg)
		}
	}
	_, errs := Render(Release{Chart: "testdata/charts/nope"}, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "no such file") {
		t.Errorf("missing chart: %v", errs)
	}
	_, errs = Render(Release{Chart: pd, Values: []Values{{File: "x.yaml", Data: []byte("decode:\n  replicas: [1\n")}}}, nil)
	if len(errs) != 1 || errs[0].Span.File != "x.yaml" || errs[0].Span.Line == 0 {
		t.Errorf("bad values YAML: %v", errs)
	}
	// A command-line --set is no file: its error names it and has no span.
	_, errs = Render(Release{Chart: pd, Set: []Set{{Expr: "decode[=1"}}}, nil)
	if len(errs) != 1 || errs[0].Span != (deploy.Span{}) || !strings.HasPrefix(errs[0].Message, "--set decode[=1: ") {
		t.Errorf("bad command-line --set: %#v", errs)
	}
	// One written in a file (.kvlint.yaml, a Terraform set block) is
	// reported where it is written.
	at := deploy.Span{File: ".kvlint.yaml", Line: 4, Col: 9, EndLine: 4, EndCol: 18}
	_, errs = Render(Release{Chart: pd, Set: []Set{{Expr: "decode[=1", Span: at}}}, nil)
	if len(errs) != 1 || errs[0].Span != at {
		t.Errorf("bad --set in a file: %#v", errs)
	}
}

// A value that is not known statically (a Terraform variable without a
// value) stays unknown through the template, even where the template
// converts it: nothing that depends on it is judged.
func TestUnknownValuesStayUnknown(t *testing.T) {
	unknown := func(s string) bool { return strings.HasPrefix(s, "${") }
	servers := mustRender(t, Release{Chart: pd, Values: []Values{{File: "main.tf", Data: []byte(
		"decode:\n  maxTotalTokens: ${var.pool}\nprefill:\n  replicas: ${var.replicas}\n"), Unknown: unknown}}})
	decode := serverNamed(t, servers, "-decode")
	if v := decode.Args["--max-total-tokens"]; v.Known || v.Raw != "${var.pool}" || at(v.Span) != "main.tf:2:19-30" {
		t.Errorf("--max-total-tokens %q known=%v at %s", v.Raw, v.Known, at(v.Span))
	}
	if v := decode.Args["--mem-fraction-static"]; !v.Known {
		t.Errorf("an unrelated value became unknown: %+v", v)
	}
	prefill := serverNamed(t, servers, "-prefill")
	if prefill.Replicas.Known {
		t.Errorf("replicas from an unknown value: %+v", prefill.Replicas)
	}
	c := mustRender(t, Release{Chart: "testdata/charts/computed", Set: []Set{{Expr: "contextLength=x", Unknown: true}}})
	if v := c[0].Args["--context-length"]; v.Known {
		t.Errorf("int of an unknown value is known: %+v", v)
	}
}

// writeChart writes a chart to a temporary directory.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Rendering never reaches a cluster or the network: lookup finds nothing
// and getHostByName resolves nothing, as in helm template.
func TestOfflineFunctions(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: offline\nversion: 0.1.0\n",
		"templates/pod.yaml": `{{- $cm := lookup "v1" "ConfigMap" "default" "pool" }}
apiVersion: v1
kind: Pod
metadata:
  name: offline
spec:
  containers:
    - name: sglang
      command: [python3, -m, sglang.launch_server, --max-total-tokens, {{ dig "data" "tokens" "4096" $cm | quote }}, --host, {{ getHostByName "example.com" | default "0.0.0.0" | quote }}]
`,
	})
	s := mustRender(t, Release{Chart: dir})
	if len(s) != 1 || s[0].Args["--max-total-tokens"].Raw != "4096" || s[0].Args["--host"].Raw != "0.0.0.0" {
		t.Fatalf("got %+v", s)
	}
}

// What the Kubernetes parser finds wrong in rendered text is reported at
// the template action that wrote it.
func TestManifestErrorsPointAtTheTemplate(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: unquoted\nversion: 0.1.0\n",
		"values.yaml": "tp: 2\n",
		"templates/pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: unquoted
spec:
  containers:
    - name: sglang
      command: [python3, -m, sglang.launch_server, --tp-size, {{ .Values.tp }}]
`,
	})
	_, errs := Render(Release{Chart: dir}, nil)
	if len(errs) != 1 || at(errs[0].Span) != filepath.Join(dir, "templates/pod.yaml")+":8:63-79" ||
		!strings.Contains(errs[0].Message, "quote it") {
		t.Fatalf("errors %v", errs)
	}
}

func BenchmarkRenderWithProvenance(b *testing.B) {
	r := Release{Chart: pd, Values: []Values{{File: pd + "/values-prod.yaml"}}}
	for b.Loop() {
		if _, errs := Render(r, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// Objects that name no namespace are installed in the release's. (A
// Service name printed by a helper is spanned at the helper's action.)
func TestReleaseNamespace(t *testing.T) {
	m := RenderManifest(Release{Chart: pd, Namespace: "inference"}, nil)
	if len(m.Errors) > 0 || len(m.Servers) != 3 || len(m.Services) != 1 {
		t.Fatalf("%d servers, %d services, errors %v", len(m.Servers), len(m.Services), m.Errors)
	}
	for _, s := range m.Servers {
		if s.Namespace != "inference" {
			t.Errorf("%s: namespace %q", s.Name, s.Namespace)
		}
	}
	if svc := m.Services[0]; svc.Namespace != "inference" || svc.Name != "release-name-sglang-pd" || at(svc.Span) != pd+"/templates/_helpers.tpl:3:1-77" {
		t.Errorf("service %+v at %s", svc, at(svc.Span))
	}
	if m := RenderManifest(Release{Chart: pd}, nil); m.Servers[0].Namespace != "" {
		t.Errorf("no namespace given: %q", m.Servers[0].Namespace)
	}
}

// A dependency Chart.yaml names but charts/ lacks (helm dependency build
// not run) is an error at the dependencies field; the chart's own
// templates are still rendered and their servers checked.
func TestMissingDependencyRendersTheChart(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: serve\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://charts.example.com\n",
		"values.yaml": "tp: 2\n",
		"templates/server.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang
spec:
  template:
    spec:
      containers:
        - name: server
          image: lmsysorg/sglang:v0.4.6
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "{{ .Values.tp }}"]
`,
	})
	servers, errs := Render(Release{Chart: dir}, nil)
	if len(servers) != 1 || servers[0].Args["--tp-size"].Raw != "2" {
		t.Fatalf("servers %v", servers)
	}
	if len(errs) != 1 || errs[0].Span.Line != 4 || !strings.Contains(errs[0].Message, "missing in charts/ directory: redis") ||
		!strings.Contains(errs[0].Message, "rendered without them") {
		t.Errorf("errors %v", errs)
	}
}
