package k8s

import (
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// word is one argv word: its value for flag parsing and its text with the
// map to the file, which a shell script needs.
type word struct {
	v deploy.Value
	t yamlsrc.Text
}

// container finds the engine launches of one container.
//
// Only containers are read, not initContainers: init containers run to
// completion before the pod's containers start, so a serving engine there
// would keep the pod from ever starting. (Native sidecars, init containers
// with restartPolicy: Always, do keep running, but they hold proxies and
// agents, not the engine.)
func (p *parser) container(pd *pod, name string, c *yaml.Node) {
	e := p.containerEnv(pd.injected, yamlsrc.Get(c, "env"))
	words := append(p.argv(c, "command", e), p.argv(c, "args", e)...)
	if len(words) == 0 && pd.implied != nil {
		words = pd.implied(c, e)
	}
	if len(words) == 0 {
		return // the image's entrypoint, which the file does not show
	}
	var servers []*deploy.Server
	vals := make([]deploy.Value, len(words))
	for i, w := range words {
		vals[i] = w.v
	}
	scripts := p.scriptResolver(c, pd, e)
	if i, ok := shell.ScriptArg(vals); ok {
		script := words[i].t
		found, errs := shell.Servers(shell.Source{
			File:    p.src.File,
			Text:    []byte(script.S),
			Map:     shell.Mapper(p.src.Mapper(script)),
			Env:     e.shellEnv(),
			Params:  shell.ScriptParams(vals, i),
			Scripts: scripts,
		}, p.read)
		p.errs = append(p.errs, errs...)
		for _, s := range found {
			p.src.WidenServer(s, script.Substitutions())
		}
		servers = found
	} else if src, ok := p.scriptFile(vals, scripts); ok {
		// bash /scripts/start.sh with /scripts a ConfigMap volume: the
		// script is the ConfigMap's key, run with the container's env.
		found, errs := shell.Servers(src, p.read)
		p.errs = append(p.errs, errs...)
		servers = found
	} else {
		for i := range vals {
			// Kubernetes passes "{{ .Values.x }}" or "${var.x}" through
			// literally, but a manifest holding them is a template some
			// other tool (Helm, Terraform, envsubst) fills in before it is
			// applied: the value the engine will see is not in this file.
			if vals[i].Known && isTemplatePlaceholder(vals[i].Raw) {
				vals[i].Known = false
			}
		}
		s, errs, ok := engine.Server(vals, p.read)
		p.errs = append(p.errs, errs...)
		if ok && s != nil {
			servers = []*deploy.Server{s}
		}
	}
	image := deploy.Value{}
	if n := yamlsrc.Get(c, "image"); n != nil && n.Kind == yaml.ScalarNode {
		image = p.scalar(n)
	}
	count := p.gpuCount(c)
	if !count.IsSet() {
		count = pd.gpus
	}
	for i, s := range servers {
		s.Name = name
		if len(servers) > 1 {
			s.Name += "#" + strconv.Itoa(i+1)
		}
		s.Source = Source
		s.Replicas = pd.replicas
		s.GPUCount = count
		if !s.GPU.IsSet() {
			s.GPU = pd.gpu
		}
		s.Image = image
		s.Labels = pd.labels
		applyRole(s, pd.role)
		s.Namespace = pd.namespace
		p.servers = append(p.servers, s)
	}
}

// argv reads a container's command or args: a list of strings, each a word
// with the span of the scalar's content, $(VAR) expanded from the container's
// environment (Kubernetes API, Container.command: "Variable references
// $(VAR_NAME) are expanded using the container's environment. If a variable
// cannot be resolved, the reference in the input string will be unchanged.
// Double $$ are reduced to a single $"). A word that keeps an unresolved
// reference is Known=false with the text as written.
func (p *parser) argv(c *yaml.Node, key string, e *env) []word {
	list := yamlsrc.Get(c, key)
	if yamlsrc.IsNull(list) {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		p.errorf(list, "%s must be a list of strings, not %s", key, yamlsrc.Describe(list))
		return nil
	}
	var out []word
	for _, item := range list.Content {
		n := yamlsrc.Resolve(item)
		if n == nil || n.Kind != yaml.ScalarNode {
			if n != nil {
				p.errorf(n, "%s items must be strings, not %s", key, yamlsrc.Describe(n))
			}
			continue
		}
		if n.Style == 0 && n.Tag != "!!str" && n.Tag != "" {
			// kubectl sends YAML as JSON and the API server decodes
			// []string strictly: an unquoted 16 or true is rejected.
			p.errorf(n, "the Kubernetes API rejects the %s %s in %s, which must hold strings: quote it (\"%s\")",
				shortTag(n.Tag), n.Value, key, n.Value)
		}
		text, _ := p.src.Scalar(n)
		if n.Tag == "!!null" {
			text = yamlsrc.Text{}
		}
		exp, known, origin := expand(text, e.lookup)
		v := deploy.Value{Raw: exp.S, Known: known, Span: p.src.ContentSpan(n), Origin: origin}
		if !known {
			v.Raw = text.S
		}
		out = append(out, word{v: v, t: exp})
	}
	return out
}

func shortTag(tag string) string {
	switch tag {
	case "!!int":
		return "number"
	case "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	case "!!null":
		return "null"
	}
	return "value"
}

// scriptFile is the script a container's argv runs by path (shell.ScriptFile)
// when scripts can read it, with the argv words from the path on as its $0,
// $1, ...
func (p *parser) scriptFile(vals []deploy.Value, scripts func(deploy.Value) (shell.Source, bool)) (shell.Source, bool) {
	if scripts == nil {
		return shell.Source{}, false
	}
	i, ok := shell.ScriptFile(vals)
	if !ok {
		return shell.Source{}, false
	}
	src, ok := scripts(vals[i])
	if !ok {
		return shell.Source{}, false
	}
	src.Params = vals[i:]
	return src, true
}
