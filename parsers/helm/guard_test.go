package helm

import (
	"path/filepath"
	"strings"
	"testing"
)

// A template that loops or builds output without end stops at the action
// the guard stood before, in the template as written (not in the
// instrumented copy Helm ran), and says why.
func TestGuardStopsAtTheAction(t *testing.T) {
	tests := []struct{ name, helpers, cm, file, span string }{
		{"loop", "",
			"kind: ConfigMap\ndata:\n  {{- range $i := until 100000 }}\n  {{- range $j := until 100000 }}{{ $x := add $i $j }}{{ end }}\n  {{- end }}\n",
			"templates/cm.yaml", ":4:34-55"},
		{"repeat", "",
			"{{- $s := \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" }}\n{{- range until 40 }}{{ $s = repeat 2 $s }}{{ end }}\nkind: ConfigMap\n",
			"templates/cm.yaml", ":2:22-44"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeChart(t, map[string]string{
				"Chart.yaml":        "apiVersion: v2\nname: bomb\nversion: 0.1.0\n",
				"templates/cm.yaml": tc.cm,
			})
			_, errs := Render(Release{Chart: dir}, nil)
			if len(errs) != 1 || !strings.Contains(errs[0].Message, "kvlint's limits: they build output without a useful end") {
				t.Fatalf("errors %v", errs)
			}
			if got, want := at(errs[0].Span), filepath.Join(dir, tc.file)+tc.span; got != want {
				t.Errorf("error at %s, want %s", got, want)
			}
		})
	}
}

// Guards write nothing and change nothing a template sees: a chart that
// compares what include returns, calls lookup (which finds nothing, as
// with Helm's own placeholder) and trims whitespace renders as it did.
func TestGuardChangesNoOutput(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml":       "apiVersion: v2\nname: quiet\nversion: 0.1.0\n",
		"templates/_h.tpl": "{{- define \"flag\" -}}\n  {{- if .Values.enabled }}true{{ end -}}\n{{- end }}",
		"templates/cm.yaml": "kind: ConfigMap\ndata:\n" +
			"  on: {{ eq (include \"flag\" .) \"true\" | quote }}\n" +
			"  found: {{ lookup \"v1\" \"Secret\" \"ns\" \"s\" | len | quote }}\n" +
			"  {{- range $i, $x := list \"a\" \"b\" }}\n  item{{ $i }}: {{ $x }}\n  {{- end }}\n",
		"values.yaml": "enabled: true\n",
	})
	rr, errs := render(Release{Chart: dir})
	if len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	want := "kind: ConfigMap\ndata:\n  on: \"true\"\n  found: \"0\"\n  item0: a\n  item1: b\n"
	plain, err := rr.renderWith(rr.l.chart, rr.values)
	if err != nil || plain["quiet/templates/cm.yaml"] != want {
		t.Errorf("unguarded render %q, %v", plain["quiet/templates/cm.yaml"], err)
	}
	if got := rr.files["quiet/templates/cm.yaml"]; got != want {
		t.Errorf("rendered:\n%q\nwant:\n%q", got, want)
	}
	if rr.guard.steps == 0 {
		t.Error("the guards did not run")
	}
}
