package compose

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// containerEnv is a service's environment: what a shell inside the container
// sees. Compose interpolates the values first. A variable given without a
// value takes the host shell's value, which kvlint cannot see.
type containerEnv map[string]deploy.Value

func (e containerEnv) without(names []string) shell.Env {
	out := shell.Env{}
	for k, v := range e {
		out[k] = v
	}
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func (p *parser) containerEnv(n *yaml.Node) containerEnv {
	e := containerEnv{}
	n = yamlsrc.Resolve(n)
	if yamlsrc.IsNull(n) {
		return e
	}
	switch n.Kind {
	case yaml.MappingNode:
		for _, pr := range yamlsrc.Pairs(n) {
			if yamlsrc.IsNull(pr.Value) {
				e[pr.Key.Value] = deploy.Unknown("${"+pr.Key.Value+"}", p.src.NodeSpan(pr.Key))
				continue
			}
			e[pr.Key.Value] = p.scalar(pr.Value)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			item = yamlsrc.Resolve(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				continue
			}
			v := p.scalar(item)
			key, val, ok := strings.Cut(v.Raw, "=")
			if !ok {
				e[key] = deploy.Unknown("${"+key+"}", v.Span)
				continue
			}
			// The value starts after "KEY=" in the item.
			v.Raw = val
			if v.Span.Line == v.Span.EndLine {
				v.Span.Col += len(key) + 1
			}
			e[key] = v
		}
	default:
		p.errorf(n, "environment must be a mapping or a list of KEY=VALUE, not %s", yamlsrc.Describe(n))
	}
	return e
}
