package k8s

import (
	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// envVar is one entry of a container's environment.
type envVar struct {
	name string
	v    deploy.Value
}

// env is a container's environment in the order the kubelet builds it.
type env struct {
	vars map[string]deploy.Value
}

func (e *env) lookup(name string) (deploy.Value, bool) {
	v, ok := e.vars[name]
	return v, ok
}

// shellEnv is the environment a shell in the container starts with.
func (e *env) shellEnv() shell.Env {
	out := shell.Env{}
	for k, v := range e.vars {
		out[k] = v
	}
	return out
}

// containerEnv reads a container's env list. A value may use $(NAME) for a
// variable defined earlier in the list (or injected by the controller); the
// kubelet expands it the same way as command and args (Kubernetes API,
// EnvVar.value: "Variable references $(VAR_NAME) are expanded using the
// previously defined environment variables in the container and any service
// environment variables"; kubernetes.io/docs/tasks/inject-data-application/
// define-interdependent-environment-variables/). valueFrom a ConfigMap key
// (configMapKeyRef) and envFrom a ConfigMap (configMapRef) read the
// ConfigMap when the checked files hold it (configMapEnv); any other
// valueFrom (a Secret, field or resource) is a value kvlint cannot see, and
// envFrom of a ConfigMap not in the files adds variables whose names are not
// known: they stay unknown because nothing defines them here.
func (p *parser) containerEnv(injected []envVar, c *yaml.Node, ns string) *env {
	e := &env{vars: map[string]deploy.Value{}}
	for _, v := range injected {
		e.vars[v.name] = v.v
	}
	p.envFrom(e, injected, yamlsrc.Get(c, "envFrom"), ns)
	list := yamlsrc.Resolve(yamlsrc.Get(c, "env"))
	if yamlsrc.IsNull(list) {
		return e
	}
	if list.Kind != yaml.SequenceNode {
		p.errorf(list, "env must be a list of {name, value} entries, not %s", yamlsrc.Describe(list))
		return e
	}
	for _, item := range list.Content {
		item = yamlsrc.Resolve(item)
		if item == nil || item.Kind != yaml.MappingNode {
			if item != nil {
				p.errorf(item, "an env entry must be a mapping with name and value, not %s", yamlsrc.Describe(item))
			}
			continue
		}
		name, ok := yamlsrc.Str(yamlsrc.Get(item, "name"))
		if !ok || name == "" {
			continue
		}
		if _, injectedHere := injectedName(injected, name); injectedHere {
			continue // the controller's value wins
		}
		if from := yamlsrc.Get(item, "valueFrom"); from != nil {
			if v, ok := p.configMapKey(yamlsrc.Get(from, "configMapKeyRef"), ns); ok {
				e.vars[name] = v
				continue
			}
			e.vars[name] = deploy.Unknown("$("+name+")", p.src.NodeSpan(from))
			continue
		}
		valNode := yamlsrc.Get(item, "value")
		if valNode == nil || valNode.Kind != yaml.ScalarNode {
			// No value: the variable is set to the empty string.
			e.vars[name] = deploy.Known("", p.src.NodeSpan(item))
			continue
		}
		text, _ := p.src.Scalar(valNode)
		if yamlsrc.IsNull(valNode) {
			text = yamlsrc.Text{}
		}
		out, known, origin := expand(text, e.lookup)
		v := deploy.Value{Raw: out.S, Known: known, Span: p.src.ContentSpan(valNode), Origin: origin}
		if !known {
			v.Raw = text.S
		}
		e.vars[name] = v
	}
	return e
}

func injectedName(injected []envVar, name string) (envVar, bool) {
	for _, v := range injected {
		if v.name == name {
			return v, true
		}
	}
	return envVar{}, false
}

// expand applies the kubelet's $(VAR) expansion to t (Kubernetes
// third_party/forked/golang/expansion/expand.go, Expand): $$ is a literal $,
// $(NAME) is NAME's value when defined and stays as written when not, and a
// $ followed by anything else is kept. known is false when a reference could
// not be resolved to a known value; origin lists the definitions used, each
// an env step, with the chains they came by. Inserted values map to the
// reference that produced them.
func expand(t yamlsrc.Text, lookup func(string) (deploy.Value, bool)) (out yamlsrc.Text, known bool, origin deploy.Origin) {
	known = true
	var b yamlsrc.Builder
	s := t.S
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		switch s[i+1] {
		case '$':
			b.Copy(t, last, i+1) // the first $ stands for itself
			last = i + 2
			i++
		case '(':
			end := -1
			for j := i + 2; j < len(s); j++ {
				if s[j] == ')' {
					end = j
					break
				}
			}
			if end < 0 {
				continue // incomplete reference: kept
			}
			name := s[i+2 : end]
			v, ok := lookup(name)
			if !ok || !v.Known {
				known = false // kept as written: $(NAME)
				i = end
				continue
			}
			b.Copy(t, last, i)
			from, to := t.Range(i, end+1)
			var def deploy.Origin
			if !v.Span.IsZero() {
				def = append(def, deploy.At(deploy.StepEnv, v.Span))
			}
			def = append(def, v.Origin...)
			b.Substitute(v.Raw, from, to, def)
			origin = append(origin, def...)
			last = end + 1
			i = end
		}
	}
	b.Copy(t, last, len(s))
	return b.Text(), known, origin
}

// envFrom adds the variables of the ConfigMaps a container's envFrom names
// (core/v1 EnvFromSource: every key of the ConfigMap, after prefix; "When a
// key exists in multiple sources, the value associated with the last source
// will take precedence. Values defined by an Env with a duplicate key will
// take precedence", k8s.io/api core/v1 types.go Container.EnvFrom), each
// spanning its value in the ConfigMap, with the envFrom entry as a reference
// step. A ConfigMap the files do not hold adds nothing kvlint can name.
func (p *parser) envFrom(e *env, injected []envVar, list *yaml.Node, ns string) {
	for _, item := range seqItems(list) {
		ref := yamlsrc.Get(item, "configMapRef")
		name, ok := yamlsrc.Str(yamlsrc.Get(ref, "name"))
		if !ok || name == "" || isPlaceholder(name) {
			continue
		}
		cm := p.configMaps().lookup(name, ns)
		if cm == nil || cm.data == nil {
			continue
		}
		prefix, _ := yamlsrc.Str(yamlsrc.Get(item, "prefix"))
		at := p.src.NodeSpan(ref)
		for _, pr := range yamlsrc.Pairs(cm.data) {
			key := prefix + pr.Key.Value
			if _, injectedHere := injectedName(injected, key); injectedHere {
				continue
			}
			if v, ok := configMapValue(cm, pr.Value, at); ok {
				e.vars[key] = v
			}
		}
	}
}

// configMapKey reads valueFrom.configMapKeyRef {name, key} from a ConfigMap
// the checked files hold.
func (p *parser) configMapKey(ref *yaml.Node, ns string) (deploy.Value, bool) {
	if ref == nil {
		return deploy.Value{}, false
	}
	name, ok1 := yamlsrc.Str(yamlsrc.Get(ref, "name"))
	key, ok2 := yamlsrc.Str(yamlsrc.Get(ref, "key"))
	if !ok1 || !ok2 || name == "" || key == "" || isPlaceholder(name) || isPlaceholder(key) {
		return deploy.Value{}, false
	}
	cm := p.configMaps().lookup(name, ns)
	if cm == nil || cm.data == nil {
		return deploy.Value{}, false
	}
	return configMapValue(cm, yamlsrc.Get(cm.data, key), p.src.NodeSpan(ref))
}

// configMapValue is one value of a ConfigMap's data, spanning where the
// ConfigMap writes it, reached through the reference at via.
func configMapValue(cm *configMap, n *yaml.Node, via deploy.Span) (deploy.Value, bool) {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return deploy.Value{}, false
	}
	v := cm.src.Value(n)
	if isPlaceholder(v.Raw) {
		v.Known = false
	}
	v.Origin = v.Origin.Add(deploy.At(deploy.StepReference, via))
	return v, true
}
