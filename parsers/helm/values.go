package helm

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// maxValuesSize bounds one values document; real ones are kilobytes.
const maxValuesSize = 4 << 20

// Limits on walking a values tree, so an alias bomb stays cheap.
const (
	maxValuesDepth = 64
	maxValuesNodes = 100000
)

// vpath is a location in a values tree: map keys and list indices, written
// as ".key" and "#3" so the two can never be confused.
type vpath []string

func (p vpath) key() string { return strings.Join(p, "\x00") }

func (p vpath) field(k string) vpath { return append(append(vpath(nil), p...), "."+k) }

func (p vpath) index(i int) vpath { return append(append(vpath(nil), p...), "#"+strconv.Itoa(i)) }

// String renders the path as a user writes it for --set: a.b[0].c.
func (p vpath) String() string {
	var b strings.Builder
	for _, s := range p {
		if strings.HasPrefix(s, "#") {
			b.WriteString("[" + s[1:] + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s[1:])
	}
	return b.String()
}

// last is the map key the path ends in (the nearest one for a list item).
func (p vpath) last() string {
	for i := len(p) - 1; i >= 0; i-- {
		if strings.HasPrefix(p[i], ".") {
			return p[i][1:]
		}
	}
	return ""
}

// spans indexes where each path of one values document is written.
type spans map[string]deploy.Span

// indexYAML records the span of every node of a values document: a
// scalar's content, a collection's first token.
func indexYAML(src *yamlsrc.Source, root *yaml.Node, locate func(deploy.Span) deploy.Span) spans {
	out := spans{}
	budget := maxValuesNodes
	var walk func(n *yaml.Node, p vpath, depth int)
	walk = func(n *yaml.Node, p vpath, depth int) {
		n = yamlsrc.Resolve(n)
		if n == nil || depth > maxValuesDepth || budget <= 0 {
			return
		}
		budget--
		sp := src.NodeSpan(n)
		if locate != nil {
			sp = locate(sp)
		}
		out[p.key()] = sp
		switch n.Kind {
		case yaml.MappingNode:
			for _, pr := range yamlsrc.Pairs(n) {
				walk(pr.Value, p.field(pr.Key.Value), depth+1)
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				walk(it, p.index(i), depth+1)
			}
		}
	}
	walk(root, nil, 0)
	return out
}

// readValues decodes one values document as Helm does (sigs.k8s.io/yaml, so
// numbers are float64 and 1000000 renders as 1e+06, exactly as in Helm) and
// indexes its spans. Syntax errors are reported at their line.
func readValues(v Values, files *source.Set) (map[string]any, spans, *diag.Diagnostic) {
	data := v.Data
	if data == nil {
		cfs := files.FS()
		if v.User || cfs == nil {
			cfs = confined.Unconfined
		}
		info, err := cfs.Stat(v.File)
		if err != nil {
			return nil, nil, diag.Errorf(deploy.Span{File: v.File}, "values file: %s", describeErr(err))
		}
		if info.IsDir() {
			return nil, nil, diag.Errorf(deploy.Span{File: v.File}, "values file: is a directory")
		}
		if info.Size() > maxValuesSize {
			return nil, nil, diag.Errorf(deploy.Span{File: v.File}, "values file is larger than 4 MiB; not read")
		}
		f, err := files.ReadFrom(cfs, v.File, source.SyntaxYAML)
		if err != nil {
			return nil, nil, diag.Errorf(deploy.Span{File: v.File}, "values file: %s", describeErr(err))
		}
		data = f.Data
	}
	if len(data) > maxValuesSize {
		return nil, nil, diag.Errorf(deploy.Span{File: v.File}, "values document is larger than 4 MiB; not read")
	}
	src := yamlsrc.NewSource(v.File, data)
	docs, errs := src.Documents()
	if len(errs) > 0 {
		e := errs[0]
		if v.Locate != nil {
			e.Span = v.Locate(e.Span)
		}
		return nil, nil, e
	}
	var idx spans
	var root *yaml.Node
	if len(docs) > 0 {
		root = docs[0].Root
		idx = indexYAML(src, root, v.Locate)
	}
	if r := yamlsrc.Resolve(root); r != nil && r.Kind != yaml.MappingNode && !yamlsrc.IsNull(r) {
		sp := src.NodeSpan(r)
		if v.Locate != nil {
			sp = v.Locate(sp)
		}
		return nil, nil, diag.Errorf(sp, "a values document must be a mapping, not %s", yamlsrc.Describe(r))
	}
	vals, err := safeReadValues(data)
	if err != nil {
		sp := lineOf(src, err.Error(), root)
		if v.Locate != nil {
			sp = v.Locate(sp)
		}
		return nil, nil, diag.Errorf(sp, "values: %s", strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "))
	}
	return vals, idx, nil
}

func safeReadValues(data []byte) (vals map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	return chartutil.ReadValues(data)
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// lineOf spans an error of Helm's YAML reader at the line its message names,
// else at the document's first node.
func lineOf(src *yamlsrc.Source, msg string, root *yaml.Node) deploy.Span {
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= src.Lines() {
			return src.LineSpan(n)
		}
	}
	if root != nil {
		return src.NodeSpan(root)
	}
	return src.LineSpan(src.Lines())
}

// mergeValues merges src into dst the way helm's -f files merge
// (pkg/cli/values/options.go, mergeMaps): maps merge key by key, recursively;
// anything else in src replaces what dst had.
func mergeValues(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst))
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = mergeValues(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// applySet applies one --set as helm does (strvals.ParseInto or
// ParseIntoString) and returns the paths it writes.
func applySet(s Set, base map[string]any) ([]vpath, error) {
	parse := strvals.ParseInto
	if s.String {
		parse = strvals.ParseIntoString
	}
	fresh := map[string]any{}
	if err := safeParse(parse, s.Expr, fresh); err != nil {
		return nil, err
	}
	if err := safeParse(parse, s.Expr, base); err != nil {
		return nil, err
	}
	var out []vpath
	leaves(fresh, nil, func(p vpath, _ any) { out = append(out, p) })
	return out, nil
}

func safeParse(parse func(string, map[string]any) error, expr string, dst map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return parse(expr, dst)
}

// leaves calls fn for every leaf of a values tree (scalars, nulls, empty
// collections), in a deterministic order.
func leaves(v any, p vpath, fn func(vpath, any)) {
	budget := maxValuesNodes
	var walk func(v any, p vpath, depth int)
	walk = func(v any, p vpath, depth int) {
		if budget <= 0 || depth > maxValuesDepth {
			return
		}
		budget--
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				fn(p, v)
				return
			}
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k], p.field(k), depth+1)
			}
		case chartutil.Values:
			walk(map[string]any(t), p, depth)
		case []any:
			if len(t) == 0 {
				fn(p, v)
				return
			}
			for i, it := range t {
				walk(it, p.index(i), depth+1)
			}
		default:
			fn(p, v)
		}
	}
	walk(v, p, 0)
}

// get returns the value at p in a values tree.
func get(v any, p vpath) (any, bool) {
	for _, s := range p {
		if values, ok := v.(chartutil.Values); ok {
			v = map[string]any(values) // the same map, by its other name
		}
		switch t := v.(type) {
		case map[string]any:
			if !strings.HasPrefix(s, ".") {
				return nil, false
			}
			x, ok := t[s[1:]]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
			if !strings.HasPrefix(s, "#") || err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// with returns a copy of the values tree with the value at p replaced; the
// maps and lists on the way to p are copied, the rest is shared.
func with(v any, p vpath, x any) any {
	if len(p) == 0 {
		return x
	}
	s := p[0]
	switch t := v.(type) {
	case chartutil.Values:
		return with(map[string]any(t), p, x)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = e
		}
		k := strings.TrimPrefix(s, ".")
		out[k] = with(t[k], p[1:], x)
		return out
	case []any:
		i, _ := strconv.Atoi(strings.TrimPrefix(s, "#"))
		out := append([]any(nil), t...)
		if i >= 0 && i < len(out) {
			out[i] = with(out[i], p[1:], x)
		}
		return out
	}
	return v
}

// scalarText is how a template prints a leaf with {{ . }}: fmt's %v, as
// text/template does (so 1e+06 for a float64 million, as in Helm).
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64, float32, int, int64, int32, uint64:
		return fmt.Sprint(t), true
	}
	return "", false
}

func describeErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
