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
	e := p.containerEnv(pd.injected, c, pd.namespace)
	image := deploy.Value{}
	if n := yamlsrc.Get(c, "image"); n != nil && n.Kind == yaml.ScalarNode {
		image = p.scalar(n)
	}
	command, args := p.argv(c, "command", e), p.argv(c, "args", e)
	words, entrypoint := p.launchWords(pd, c, e, image, command, args)
	if len(words) == 0 {
		return
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
		} else if b, ok := engine.HFTransformers(vals); ok {
			p.unsized = append(p.unsized, b)
		}
	}
	count := p.gpuCount(c)
	slice := p.gpuSlice(c)
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
		pd.gpu.apply(s)
		if !s.GPUSlice.IsSet() {
			s.GPUSlice = slice
		}
		s.Image = image
		s.Entrypoint = entrypoint
		s.Labels = pd.labels
		applyRole(s, pd.role)
		s.Namespace = pd.namespace
		p.servers = append(p.servers, s)
	}
}

// launchWords is the argv a container runs, as the kubelet composes it
// from the container and its image (Kubernetes, "Define a Command and
// Arguments for a Container": command replaces the image's ENTRYPOINT and
// drops its CMD; args alone replace the CMD and run with the image's
// ENTRYPOINT), and what the image supplied to it.
//
// Without a command, the image's ENTRYPOINT is in force: the image table
// (Options.Images) gives it for the images it knows. For an image it does
// not know, args that begin with an engine program (python3 -m ...,
// vllm serve) are still read as the command, which is what an image with
// no ENTRYPOINT, or with one that ends in exec "$@" (tini, NVIDIA's
// nvidia_entrypoint.sh), runs; args that are options only (--model x)
// go to a program the file does not show, so they are no server: nothing
// is guessed.
func (p *parser) launchWords(pd *pod, c *yaml.Node, e *env, image deploy.Value, command, args []word) ([]word, *deploy.ImageEntrypoint) {
	if command != nil {
		return append(command, args...), nil
	}
	if args == nil && pd.implied != nil {
		// The object's controller writes the command (KServe's
		// LLMInferenceService), not the image.
		if words := pd.implied(c, e); len(words) > 0 {
			return words, nil
		}
	}
	var cmd []deploy.Value
	if args != nil {
		cmd = make([]deploy.Value, len(args))
		for i, w := range args {
			cmd[i] = w.v
		}
	}
	argv, ep, ok := engine.ImageLaunch(p.images, image, nil, cmd)
	if !ok {
		return args, nil // an unknown image: see above
	}
	// The image's words come first; the args keep their text (a script
	// in them is read with positions in the file).
	words := make([]word, 0, len(argv))
	for _, v := range argv[:len(argv)-len(args)] {
		words = append(words, word{v: v})
	}
	return append(words, args...), ep
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
