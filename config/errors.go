package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// nodeError is a mistake at one node of the file, from a custom unmarshaler
// (yaml.v3 returns such an error from Decode as it is).
type nodeError struct {
	node *yaml.Node
	msg  string
}

func (e *nodeError) Error() string { return fmt.Sprintf("line %d: %s", e.node.Line, e.msg) }

func nodeErrorf(n *yaml.Node, format string, args ...any) error {
	return &nodeError{node: n, msg: fmt.Sprintf(format, args...)}
}

// fieldError is a value that decoded but is not allowed, at a path of keys
// from the top of the file.
type fieldError struct {
	path []string
	msg  string
}

func (e *fieldError) Error() string { return e.msg }

func fieldErrorf(path []string, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
}

// yamlLine is how yaml.v3 names a place: "line 3: ..." in a type error (one
// per line after "unmarshal errors:"), "yaml: line 3: ..." otherwise.
var yamlLine = regexp.MustCompile(`(?m)^\s*(?:yaml: )?line (\d+): (.*)$`)

// unknownField is yaml.v3's message for a key KnownFields rejects.
var unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)

// wrongType is yaml.v3's message for a value of the wrong type: it names
// the value's tag and quotes a scalar (shortened when long, so only a
// prefix is matched).
var wrongType = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `([^`]*)`)? into")

// positioned turns a decoding or validation error into a diagnostic at the
// place in the file it is about; root is the decoded document (nil when the
// file is empty).
func positioned(src *yamlsrc.Source, root *yaml.Node, err error) *diag.Diagnostic {
	var ne *nodeError
	if errors.As(err, &ne) {
		return diag.Errorf(src.NodeSpan(ne.node), "%s", ne.msg)
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return diag.Errorf(fieldSpan(src, root, fe.path), "%s", fe.msg)
	}
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return diag.Errorf(deploy.Span{File: src.File}, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	is := func(n *yaml.Node, isKey bool) bool { return true } // the first node on the line
	if u := unknownField.FindStringSubmatch(msg); u != nil {
		msg = fmt.Sprintf("unknown key %q%s", u[1], knownKeys(u[2]))
		is = func(n *yaml.Node, isKey bool) bool { return isKey && n.Value == u[1] }
	} else if w := wrongType.FindStringSubmatch(msg); w != nil {
		tag, prefix := "!!"+w[1], strings.TrimSuffix(w[2], "...")
		is = func(n *yaml.Node, isKey bool) bool {
			return !isKey && n.ShortTag() == tag && (n.Kind != yaml.ScalarNode || strings.HasPrefix(n.Value, prefix))
		}
	}
	if n := nodeAt(root, line, is); n != nil {
		return diag.Errorf(src.NodeSpan(n), "%s", msg)
	}
	return diag.Errorf(src.LineSpan(line), "%s", msg)
}

// fieldSpan is the span of the value at path, else of the deepest key on
// the way that is written, else of the start of the file.
func fieldSpan(src *yamlsrc.Source, root *yaml.Node, path []string) deploy.Span {
	at := root
	for _, k := range path {
		if at == nil || at.Kind != yaml.MappingNode {
			break
		}
		next := yamlsrc.Get(at, k)
		if next == nil {
			break
		}
		at = next
	}
	if at == nil {
		return src.LineSpan(1)
	}
	return src.NodeSpan(at)
}

// nodeAt finds the node a yaml.v3 message names by line: the first node
// that starts on that line and is the one the message is about.
func nodeAt(root *yaml.Node, line int, is func(n *yaml.Node, isKey bool) bool) *yaml.Node {
	if root == nil {
		return nil
	}
	var found *yaml.Node
	var walk func(n *yaml.Node, isKey bool)
	walk = func(n *yaml.Node, isKey bool) {
		if found != nil || n == nil {
			return
		}
		if n.Line == line && is(n, isKey) {
			found = n
			return
		}
		for i, c := range n.Content {
			walk(c, n.Kind == yaml.MappingNode && i%2 == 0)
		}
	}
	walk(root, false)
	return found
}

// sections are the types of the mappings of .kvlint.yaml that KnownFields
// checks, by the name yaml.v3 prints for them.
var sections = map[string]reflect.Type{
	"config.Config":             reflect.TypeFor[Config](),
	"config.Isolation":          reflect.TypeFor[Isolation](),
	"config.DeploymentSettings": reflect.TypeFor[DeploymentSettings](),
}

// knownKeys lists the keys a mapping of type name accepts, for the message
// about an unknown one: " (tenancy, gpu, ...)", or "" for a type it does
// not know.
func knownKeys(name string) string {
	t, ok := sections[name]
	if !ok {
		return ""
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return " (known keys: " + strings.Join(keys, ", ") + ")"
}
