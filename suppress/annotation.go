package suppress

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

const (
	annotationIgnore = "kvlint.io/ignore"
	annotationReason = "kvlint.io/ignore-reason"
)

// scanAnnotations finds kvlint.io/ignore annotations on the Kubernetes
// objects of a YAML stream: on the object's metadata or on any pod template
// in it (spec.template, a CronJob's jobTemplate, a LeaderWorkerSet's leader
// and worker templates). The annotation covers the object's lines: its
// document, or its item of a List. Documents that don't parse are skipped
// (the Kubernetes parser reports them).
func scanAnnotations(file string, f *source.File, lay *layout) []*suppression {
	src := yamlsrc.FromFile(f)
	src.File = file
	docs, _ := src.Documents()
	var out []*suppression
	for i, d := range docs {
		if d.Root == nil {
			continue
		}
		last := src.Lines()
		if i+1 < len(docs) {
			last = docs[i+1].Line - 1
		}
		for _, obj := range objects(d.Root, d.Line, last) {
			out = append(out, findAnnotations(src, file, obj, lay)...)
		}
	}
	return out
}

// object is one Kubernetes object of a document and its lines.
type object struct {
	node        *yaml.Node
	first, last int
}

// objects splits a document into its objects: the document itself, or the
// items of a List (kind: List, ConfigMapList, …).
func objects(root *yaml.Node, first, last int) []object {
	root = yamlsrc.Resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	kind, _ := yamlsrc.Str(yamlsrc.Get(root, "kind"))
	items := yamlsrc.Resolve(yamlsrc.Get(root, "items"))
	if !strings.HasSuffix(kind, "List") || items == nil || items.Kind != yaml.SequenceNode {
		return []object{{root, first, last}}
	}
	var objs []object
	for i, it := range items.Content {
		end := last
		if i+1 < len(items.Content) {
			end = items.Content[i+1].Line - 1
		}
		objs = append(objs, object{it, it.Line, end})
	}
	return objs
}

// findAnnotations walks an object for metadata.annotations mappings that
// hold kvlint.io/ignore. The walk is bounded by the object's nesting, so a
// pod template at any depth is found without knowing every workload kind.
func findAnnotations(src *yamlsrc.Source, file string, obj object, lay *layout) []*suppression {
	var out []*suppression
	// An alias is walked once: an alias bomb (aliases of aliases, each
	// repeated) would otherwise be walked billions of times.
	aliased := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n != nil && n.Kind == yaml.AliasNode {
			if aliased[n.Alias] {
				return
			}
			aliased[n.Alias] = true
		}
		n = yamlsrc.Resolve(n)
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		case yaml.MappingNode:
			for _, p := range yamlsrc.Pairs(n) {
				if p.Key.Value == "metadata" {
					if ann := yamlsrc.Resolve(yamlsrc.Get(yamlsrc.Resolve(p.Value), "annotations")); ann != nil && ann.Kind == yaml.MappingNode {
						if s := annotation(src, file, ann, obj, lay); s != nil {
							out = append(out, s)
						}
					}
					continue
				}
				walk(p.Value, depth+1)
			}
		}
	}
	walk(obj.node, 0)
	return out
}

// annotation reads kvlint.io/ignore from one annotations mapping.
func annotation(src *yamlsrc.Source, file string, ann *yaml.Node, obj object, lay *layout) *suppression {
	var key, val *yaml.Node
	reason := ""
	for _, p := range yamlsrc.Pairs(ann) {
		switch p.Key.Value {
		case annotationIgnore:
			key, val = p.Key, yamlsrc.Resolve(p.Value)
		case annotationReason:
			reason, _ = yamlsrc.Str(p.Value)
		}
	}
	if key == nil {
		return nil
	}
	s := &suppression{
		kind:  kindAnnotation,
		file:  file,
		span:  src.NodeSpan(key),
		from:  obj.first,
		to:    obj.last,
		where: fmt.Sprintf("in this object (lines %d-%d)", obj.first, obj.last),
	}
	text, _ := yamlsrc.Str(val)
	s.text = fmt.Sprintf("annotation %s: %q", annotationIgnore, text)
	for _, id := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !ruleID.MatchString(id) {
			s.problem = fmt.Sprintf("%s: %q is not a rule ID: write %s: \"KV101,KV301\"", annotationIgnore, id, annotationIgnore)
			return s
		}
		s.rules = append(s.rules, id)
	}
	if len(s.rules) == 0 {
		s.problem = fmt.Sprintf("%s names no rule: write %s: \"KV101,KV301\"", annotationIgnore, annotationIgnore)
		return s
	}
	s.reason = strings.TrimSpace(reason)
	if s.reason == "" {
		// The comment on the annotation's line: kvlint.io/ignore: "KV101" # why
		for _, c := range lay.comments {
			if c.line == key.Line && !c.own {
				s.reason = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c.text), "--"))
			}
		}
	}
	return s
}
