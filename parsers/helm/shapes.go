package helm

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// SourceValues is the value of deploy.Server.Source for servers found in a
// values file checked without its chart.
const SourceValues = deploy.SourceHelmValues

// A values file is often all a repository holds of a chart it installs from
// a registry. When it has the shape of a chart kvlint knows, its keys are
// mapped to the command line that chart's templates write, so the servers
// are still checked. Each shape below cites the template it follows; kvlint
// holds no copy of those charts. A key the file does not set takes the
// chart's default, which the file does not show: its flag is an unknown
// value (or, for a flag a condition adds, an opaque word), never a guess.

// shape is one known chart.
type shape struct {
	name    string
	matches func(root *yaml.Node) bool
	servers func(v *valuesDoc) []*deploy.Server
}

var shapes = []shape{sglangLWSShape, productionStackShape, modelServiceShape}

// valuesDoc is a values file being mapped.
type valuesDoc struct {
	src  *yamlsrc.Source
	root *yaml.Node
	errs []*diag.Diagnostic
}

// KnownValues reports whether data, a values file, has the shape of a chart
// kvlint knows (ParseValues maps it).
func KnownValues(data []byte) bool {
	if len(data) > maxValuesSize {
		return false
	}
	src := yamlsrc.NewSource("values.yaml", data)
	docs, errs := src.Documents()
	if len(errs) > 0 || len(docs) == 0 {
		return false
	}
	for _, sh := range shapes {
		if sh.matches(docs[0].Root) {
			return true
		}
	}
	return false
}

// ParseValues returns the servers a values file of a known chart's shape
// configures, spanned at the values lines.
func ParseValues(name string, data []byte) ([]*deploy.Server, []*diag.Diagnostic) {
	if len(data) > maxValuesSize {
		return nil, []*diag.Diagnostic{diag.Errorf(deploy.Span{File: name}, "values file is larger than 4 MiB; not read")}
	}
	src := yamlsrc.NewSource(name, data)
	docs, errs := src.Documents()
	if len(errs) > 0 || len(docs) == 0 {
		return nil, errs
	}
	v := &valuesDoc{src: src, root: docs[0].Root}
	var out []*deploy.Server
	for _, sh := range shapes {
		if sh.matches(v.root) {
			for _, s := range sh.servers(v) {
				s.Source = SourceValues
				out = append(out, s)
			}
		}
	}
	return out, v.errs
}

// node returns the node at keys under n.
func node(n *yaml.Node, keys ...string) *yaml.Node { return yamlsrc.Path(n, keys...) }

// isMap reports a mapping node.
func isMap(n *yaml.Node) bool {
	n = yamlsrc.Resolve(n)
	return n != nil && n.Kind == yaml.MappingNode
}

// value is the scalar at keys under n as a value spanned at its text; a
// key the file does not set is the chart's default, unknown here, written
// as the template expression that would print it.
func (v *valuesDoc) value(n *yaml.Node, expr string, keys ...string) deploy.Value {
	x := yamlsrc.Resolve(node(n, keys...))
	if x == nil || x.Kind != yaml.ScalarNode || x.Tag == "!!null" {
		return deploy.Unknown("{{ "+expr+" }}", deploy.Span{})
	}
	return v.src.Value(x)
}

// set reports whether keys under n are written (null counts as unset).
func set(n *yaml.Node, keys ...string) bool { return !yamlsrc.IsNull(node(n, keys...)) }

// truth is a template's {{ if .x }} on a scalar: false for false, 0, "",
// null and absence; known only when the key is written.
func truth(n *yaml.Node, keys ...string) (bool, bool) {
	x := yamlsrc.Resolve(node(n, keys...))
	if x == nil {
		return false, false
	}
	if x.Kind != yaml.ScalarNode {
		return len(x.Content) > 0, true
	}
	switch {
	case x.Tag == "!!null":
		return false, true
	case x.Tag == "!!bool":
		return x.Value == "true" || x.Value == "True" || x.Value == "TRUE", true
	case x.Tag == "!!int" || x.Tag == "!!float":
		return strings.Trim(x.Value, "0.+-") != "", true
	}
	return x.Value != "", true
}

// argv collects the words of a command line a chart would write.
type argv struct {
	v     *valuesDoc
	words []deploy.Value
	// opaque are words a condition on an unset key may or may not add.
	opaque []deploy.Value
}

func (a *argv) lit(span deploy.Span, words ...string) {
	for _, w := range words {
		a.words = append(a.words, deploy.Known(w, span))
	}
}

// flag adds --flag VALUE, the flag spanned at the key that sets it.
func (a *argv) flag(flag string, n *yaml.Node, expr string, keys ...string) {
	a.words = append(a.words, deploy.Known(flag, a.v.keySpan(n, keys...)), a.v.value(n, expr, keys...))
}

// cond adds --flag when the key is truthy ({{ if .key }}--flag{{ end }});
// an unset key leaves an opaque word, since the chart's default decides.
func (a *argv) cond(flag string, n *yaml.Node, expr string, keys ...string) {
	on, known := truth(n, keys...)
	switch {
	case !known:
		a.opaque = append(a.opaque, deploy.Unknown("{{ if "+expr+" }}"+flag+"{{ end }}", deploy.Span{}))
	case on:
		a.words = append(a.words, deploy.Known(flag, a.v.keySpan(n, keys...)))
	}
}

// keySpan spans the key that sets keys under n (the last key), or nothing.
func (v *valuesDoc) keySpan(n *yaml.Node, keys ...string) deploy.Span {
	if len(keys) == 0 {
		return deploy.Span{}
	}
	parent := yamlsrc.Resolve(node(n, keys[:len(keys)-1]...))
	for _, pr := range yamlsrc.Pairs(parent) {
		if pr.Key.Value == keys[len(keys)-1] {
			return v.src.NodeSpan(pr.Key)
		}
	}
	return deploy.Span{}
}

// server parses the collected words as a launch.
func (a *argv) server(name string, at deploy.Span) *deploy.Server {
	s, errs, ok := engine.Server(a.words, nil)
	a.v.errs = append(a.v.errs, errs...)
	if !ok || s == nil {
		return nil
	}
	s.Name = name
	if !at.IsZero() {
		s.Span = at
	}
	s.Opaque = append(s.Opaque, a.opaque...)
	return s
}

// sectionSpan spans the key of a top-level section, where a server a
// values file configures is said to be.
func (v *valuesDoc) sectionSpan(keys ...string) deploy.Span {
	return v.keySpan(v.root, keys...)
}
