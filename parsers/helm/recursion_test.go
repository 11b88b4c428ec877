package helm

import (
	"path/filepath"
	"testing"
)

// A template that includes itself, or calls itself with {{ template }},
// stops with one error at the first call, however deep the engine went.
func TestRecursiveTemplatesStopWithOneError(t *testing.T) {
	tests := []struct{ name, define, use, span, msg string }{
		{"include", `{{- define "loop" }}{{ include "loop" . }}{{ end }}`, `{{ include "loop" . }}`, ":3:7-29",
			`<include "loop" .>: include "loop" calls itself more than 1000 times, Helm's limit: the template recurses without end`},
		{"template", `{{- define "loop" }}{{ template "loop" . }}{{ end }}`, `{{ template "loop" . }}`, ":1:21-44",
			`<{{template "loop" .}}>: exceeded maximum template depth (100000)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeChart(t, map[string]string{
				"Chart.yaml":         "apiVersion: v2\nname: loop\nversion: 0.1.0\n",
				"templates/cm.yaml":  tc.define + "\nkind: ConfigMap\ndata: " + tc.use + "\n",
				"templates/pod.yaml": "kind: Pod\n",
			})
			_, errs := Render(Release{Chart: dir}, nil)
			if len(errs) != 1 || at(errs[0].Span) != filepath.Join(dir, "templates/cm.yaml")+tc.span || errs[0].Message != tc.msg {
				t.Fatalf("errors %v", errs)
			}
		})
	}
}

func TestCondenseRecursionLeavesOtherMessages(t *testing.T) {
	for _, m := range []string{"", "error calling include: template: x.yaml:1:2: nil pointer", nestedReference + "x"} {
		if got := condenseRecursion(m); got != m {
			t.Errorf("condenseRecursion(%q) = %q", m, got)
		}
	}
}
