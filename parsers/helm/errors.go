package helm

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// Helm's engine names the template position of an error in one of these
// forms (pkg/engine/engine.go, cleanupParseError and cleanupExecError, over
// text/template's ErrorContext, whose column is 0-based):
//
//	parse error at (mychart/templates/x.yaml:12): function "nope" not defined
//	execution error at (mychart/templates/x.yaml:5:14): a value is required
//	template: mychart/templates/x.yaml:5:14: executing "..." at <.Values.a.b>: nil pointer ...
var (
	atRE       = regexp.MustCompile(`^(parse|execution) error at \(([^()]*?):(\d+)(?::(\d+))?\): `)
	templateRE = regexp.MustCompile(`template: ([^\s:]+):(\d+)(?::(\d+))?: `)
	yamlOnRE   = regexp.MustCompile(`^YAML parse error on ([^\s:]+): `)
)

// renderError places an error of Helm's engine at the template position it
// names.
func (rr *rendering) renderError(err error) *diag.Diagnostic {
	msg := condenseRecursion(err.Error())
	if rr.guard != nil {
		if name, line, col, ok := rr.guardError(rr.guard, msg); ok {
			m := guardErrRE.FindStringSubmatch(msg)
			return rr.templateError(name, line, col, m[2], false)
		}
	}
	if m := atRE.FindStringSubmatch(msg); m != nil {
		text := strings.TrimSpace(msg[len(m[0]):])
		if text == "" {
			// `{{ fail "" }}` (or fail of an empty value): Helm's
			// message is empty, and an error must still say something.
			text = "the template stopped the render with an empty message (fail or required)"
		}
		return rr.templateError(m[2], m[3], m[4], text, m[1] == "parse")
	}
	if m := templateRE.FindStringSubmatchIndex(msg); m != nil {
		name, line := msg[m[2]:m[3]], msg[m[4]:m[5]]
		col := ""
		if m[6] >= 0 {
			col = msg[m[6]:m[7]]
		}
		rest := strings.TrimSpace(msg[m[1]:])
		// "executing "x" at <.Values.a.b>: nil pointer ..." keeps its
		// useful part, the expression and the problem.
		if i := strings.Index(rest, " at <"); strings.HasPrefix(rest, "executing ") && i >= 0 {
			rest = strings.TrimSpace(rest[i+len(" at "):])
		}
		return rr.templateError(name, line, col, rest, false)
	}
	return diag.Errorf(deploy.Span{File: rr.rel.Chart}, "rendering the chart failed: %s", msg)
}

// templateError spans an error at line:col of a template (col 0-based as
// text/template gives it; a parse error has no column, so the error covers
// the first action on the line, else the line's text).
func (rr *rendering) templateError(name, lineText, colText, msg string, parseErr bool) *diag.Diagnostic {
	file := rr.l.templateFile(name)
	src, ok := templates(rr.l.chart)[name]
	line, _ := strconv.Atoi(lineText)
	if !ok || line < 1 {
		return diag.Errorf(deploy.Span{File: file}, "%s", msg)
	}
	idx := newLines(src)
	if line > idx.count() {
		line = idx.count()
	}
	start, end := idx.lineStart(line), idx.lineEnd(line)
	off := -1
	if colText != "" {
		if c, err := strconv.Atoi(colText); err == nil && start+c <= end {
			off = start + c
		}
	}
	if off < 0 {
		if i := strings.Index(src[start:end], "{{"); i >= 0 {
			off = start + i + 2
		} else {
			off = start + len(src[start:end]) - len(strings.TrimLeft(src[start:end], " \t"))
		}
	}
	s, e := actionRange(src, off)
	if s > off || e <= off || e > len(src) || strings.Count(src[s:e], "\n") > 0 && !parseErr {
		s, e = off, off+1
		if e > end {
			e = end
		}
	}
	sp := idx.span(file, s, e)
	if parseErr {
		msg = "template does not parse: " + msg
	}
	return &diag.Diagnostic{Span: sp, Message: msg}
}

// manifestError reports rendered text that is not YAML Helm can split and
// sort, at the template that wrote it.
func (rr *rendering) manifestError(err error) *diag.Diagnostic {
	msg := err.Error()
	if m := yamlOnRE.FindStringSubmatch(msg); m != nil {
		return diag.Errorf(deploy.Span{File: rr.l.templateFile(m[1])},
			"the rendered manifest is not valid YAML: %s", strings.TrimSpace(msg[len(m[0]):]))
	}
	return diag.Errorf(deploy.Span{File: rr.rel.Chart}, "%s", msg)
}

// chartError is an error about the chart as a whole (its dependencies, its
// values), placed on Chart.yaml's name line when the chart is a directory.
func (rr *rendering) chartError(msg string) *diag.Diagnostic {
	return rr.chartFieldError("name", msg)
}

// chartFieldError places msg on a top-level key of Chart.yaml.
func (rr *rendering) chartFieldError(field, msg string) *diag.Diagnostic {
	p := filepath.Join(rr.rel.Chart, "Chart.yaml")
	f, err := rr.rel.Files.Read(p, source.SyntaxYAML)
	if err != nil {
		return diag.Errorf(deploy.Span{File: rr.rel.Chart}, "%s", msg)
	}
	src := yamlsrc.FromFile(f)
	docs, errs := src.Documents()
	if len(errs) > 0 || len(docs) == 0 || docs[0].Root == nil {
		return diag.Errorf(deploy.Span{File: p}, "%s", msg)
	}
	for _, pr := range yamlsrc.Pairs(docs[0].Root) {
		if pr.Key.Value == field {
			return diag.Errorf(src.NodeSpan(pr.Key), "%s", msg)
		}
	}
	if docs[0].Root.Kind == yaml.MappingNode && len(docs[0].Root.Content) > 0 {
		return diag.Errorf(src.NodeSpan(docs[0].Root.Content[0]), "%s", msg)
	}
	return diag.Errorf(deploy.Span{File: p}, "%s", msg)
}
