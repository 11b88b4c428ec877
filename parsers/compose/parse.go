// Package compose finds engine launches in Docker Compose files: for each
// service, the entrypoint and command compose hands to the container, after
// compose's own variable interpolation, with the span of every word.
package compose

import (
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// Source is the value of deploy.Server.Source for servers found here.
const Source = deploy.SourceCompose

// Parse returns the servers launched by the services of the compose file
// name. read resolves files beside the compose file; the .env file compose
// interpolates from is read through it when present.
func Parse(name string, data []byte, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	return ParseFile(source.NewFile(name, data, source.SyntaxYAML), read)
}

// ParseFile is Parse for a file of the run's set, whose line index it uses.
func ParseFile(f *source.File, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	return ParseFileWith(f, read, nil)
}

// ParseFileWith is ParseFile with an image table, which gives a service
// that sets no entrypoint its image's (nil has only the built-in rows).
func ParseFileWith(f *source.File, read engine.ReadFile, images *engine.ImageTable) ([]*deploy.Server, []*diag.Diagnostic) {
	src := yamlsrc.FromFile(f)
	docs, errs := src.Documents()
	p := &parser{src: src, read: read, images: images, errs: errs}
	for _, d := range docs {
		root := yamlsrc.Resolve(d.Root)
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		services := yamlsrc.Get(root, "services")
		if yamlsrc.IsNull(services) {
			continue
		}
		if services.Kind != yaml.MappingNode {
			p.errorf(services, "services must be a mapping of service names to services, not %s", yamlsrc.Describe(services))
			continue
		}
		if p.env == nil {
			p.env = dotEnv(read)
		}
		for _, pr := range yamlsrc.Pairs(services) {
			if pr.Value == nil || pr.Value.Kind != yaml.MappingNode {
				if !yamlsrc.IsNull(pr.Value) {
					p.errorf(pr.Value, "service %q must be a mapping, not %s", pr.Key.Value, yamlsrc.Describe(pr.Value))
				}
				continue
			}
			p.service(pr.Key.Value, pr.Value)
		}
	}
	return p.servers, p.errs
}

type parser struct {
	src     *yamlsrc.Source
	read    engine.ReadFile
	images  *engine.ImageTable
	env     vars // from .env, for interpolation
	servers []*deploy.Server
	errs    []*diag.Diagnostic
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, diag.Errorf(p.src.NodeSpan(n), format, args...))
}

// word is one argv word. t is set for a word that is a whole YAML scalar (a
// list item), which a shell can re-read with exact positions.
type word struct {
	v deploy.Value
	t *yamlsrc.Text
	// in is the shell source of a string entrypoint/command the word was
	// split from, and unresolved the variables compose left to the host
	// shell in that string.
	in         *shell.Source
	unresolved []string
	subs       []yamlsrc.Substitution
}

func (p *parser) service(name string, svc *yaml.Node) {
	e := p.containerEnv(yamlsrc.Get(svc, "environment"))
	image := p.scalar(yamlsrc.Get(svc, "image"))
	words, entrypoint := p.launchWords(image, p.argv(svc, "entrypoint"), p.argv(svc, "command"))
	if len(words) == 0 {
		return
	}
	var servers []*deploy.Server
	vals := make([]deploy.Value, len(words))
	for i, w := range words {
		vals[i] = w.v
	}
	if i, ok := shell.ScriptArg(vals); ok {
		// The container's shell sees the service environment; compose has
		// already interpolated the script, so a variable compose left to
		// the host's shell must not be taken from the container.
		script := words[i]
		var src shell.Source
		var subs []yamlsrc.Substitution
		switch {
		case script.t != nil:
			r := interpolate(*script.t, p.env)
			subs = r.text.Substitutions()
			src = shell.Source{File: p.src.File, Text: []byte(r.text.S), Map: shell.Mapper(p.src.Mapper(r.text)),
				Env: e.without(r.unresolved), Params: shell.ScriptParams(vals, i)}
		case script.in != nil && words[i-1].in == script.in:
			// sh -c and its script are words of one string: re-read the
			// whole string with the container's environment; the shell
			// finds the commands of the nested script.
			src = *script.in
			src.Env = e.without(script.unresolved)
			subs = script.subs
		default:
			// The script is the first word of a string command after a
			// list entrypoint (["sh", "-c"] + "python3 -m ..."): compose
			// splits the string, so the script is that one word alone.
			src = shell.Source{File: p.src.File, Text: []byte(script.v.Raw), Map: spanStart(script.v.Span),
				Params: shell.ScriptParams(vals, i)}
		}
		found, errs := shell.Servers(src, p.read)
		p.errs = append(p.errs, errs...)
		for _, s := range found {
			p.src.WidenServer(s, subs)
		}
		servers = found
	} else {
		s, errs, ok := engine.Server(vals, p.read)
		p.errs = append(p.errs, errs...)
		if ok && s != nil {
			servers = []*deploy.Server{s}
		}
	}
	replicas := p.scalar(yamlsrc.Path(svc, "deploy", "replicas"))
	if !replicas.IsSet() {
		replicas = p.scalar(yamlsrc.Get(svc, "scale"))
	}
	count := p.gpuCount(svc, e)
	for i, s := range servers {
		s.Name = name
		if len(servers) > 1 {
			s.Name += "#" + strconv.Itoa(i+1)
		}
		s.Source = Source
		s.Image = image
		s.Entrypoint = entrypoint
		s.Replicas = replicas
		s.GPUCount = count
		p.servers = append(p.servers, s)
	}
}

// launchWords is the argv of a service's container, and what its image
// supplied to it. Compose file reference, services (docs.docker.com/
// reference/compose-file/services/#entrypoint, #command): entrypoint
// "overrides the ENTRYPOINT instruction" and, when non-null, "Compose
// ignores any default command from the image"; command "overrides the
// default command declared by the container image"; null leaves the
// image's default, and an empty list or string overrides it to be empty.
//
// Without an entrypoint the image's ENTRYPOINT is in force, which the
// image table gives for the images it knows. For an image it does not know
// (or a service that builds its image), a command that begins with an
// engine program is still read as what runs, as it is for an image with no
// ENTRYPOINT or one that ends in exec "$@"; a command of options alone
// (--model x) goes to a program the file does not show and is no server.
func (p *parser) launchWords(image deploy.Value, entrypoint, command []word) ([]word, *deploy.ImageEntrypoint) {
	if entrypoint != nil {
		return append(entrypoint, command...), nil
	}
	var cmd []deploy.Value
	if command != nil {
		cmd = make([]deploy.Value, len(command))
		for i, w := range command {
			cmd[i] = w.v
		}
	}
	argv, ep, ok := engine.ImageLaunch(p.images, image, nil, cmd)
	if !ok {
		return command, nil
	}
	words := make([]word, 0, len(argv))
	for _, v := range argv[:len(argv)-len(command)] {
		words = append(words, word{v: v})
	}
	return append(words, command...), ep
}

// scalar is an interpolated scalar value; unset for a missing or null node.
func (p *parser) scalar(n *yaml.Node) deploy.Value {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return deploy.Value{}
	}
	t, _ := p.src.Scalar(n)
	r := interpolate(t, p.env)
	v := deploy.Value{Raw: r.text.S, Known: r.known, Span: p.src.ContentSpan(n), Origin: r.origin}
	if !r.known {
		v.Raw = n.Value
	}
	if r.bad >= 0 {
		p.badInterpolation(t, r.bad)
	}
	return v
}

func (p *parser) badInterpolation(t yamlsrc.Text, at int) {
	a, _ := t.Range(at, at+1)
	p.errs = append(p.errs, diag.Errorf(p.src.Span(a, a+1),
		"invalid interpolation: compose rejects this ${...} (write $$ for a literal $)"))
}

// argv reads an entrypoint or command. A list is one word per item. A
// string is split into words the way compose splits it (compose-go
// types.ShellCommand: github.com/mattn/go-shellwords, which honours quotes
// and backslashes but expands nothing and stops at ; & | < >); here the
// shell parser does the splitting so every word keeps its span, and only the
// first simple command is kept, as go-shellwords keeps only what precedes
// the first operator.
func (p *parser) argv(svc *yaml.Node, key string) []word {
	n := yamlsrc.Get(svc, key)
	if yamlsrc.IsNull(n) {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		t, _ := p.src.Scalar(n)
		r := interpolate(t, p.env)
		if r.bad >= 0 {
			p.badInterpolation(t, r.bad)
		}
		src := shell.Source{File: p.src.File, Text: []byte(r.text.S), Map: shell.Mapper(p.src.Mapper(r.text))}
		cmds, errs := shell.Commands(src)
		p.errs = append(p.errs, errs...)
		if len(cmds) == 0 {
			return []word{} // '' is set: it overrides the image's default
		}
		var out []word
		subs := r.text.Substitutions()
		for _, v := range cmds[0].Words {
			p.src.WidenValue(&v, subs)
			out = append(out, word{v: v, in: &src, unresolved: r.unresolved, subs: subs})
		}
		return out
	case yaml.SequenceNode:
		out := []word{} // [] is set: it overrides the image's default
		for _, item := range n.Content {
			item = yamlsrc.Resolve(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				if item != nil {
					p.errorf(item, "%s items must be strings, not %s", key, yamlsrc.Describe(item))
				}
				continue
			}
			if item.Style == 0 && item.Tag != "!!str" && item.Tag != "" {
				p.errorf(item, "compose requires strings in a %s list: quote %s (\"%s\")", key, item.Value, item.Value)
			}
			t, _ := p.src.Scalar(item)
			if item.Tag == "!!null" {
				t = yamlsrc.Text{}
			}
			r := interpolate(t, p.env)
			if r.bad >= 0 {
				p.badInterpolation(t, r.bad)
			}
			v := deploy.Value{Raw: r.text.S, Known: r.known, Span: p.src.ContentSpan(item), Origin: r.origin}
			if !r.known {
				v.Raw = t.S
			}
			tt := t // the script text before interpolation; re-interpolated when used
			out = append(out, word{v: v, t: &tt})
		}
		return out
	}
	p.errorf(n, "%s must be a string or a list of strings, not %s", key, yamlsrc.Describe(n))
	return nil
}

// spanStart maps every position of a text to the start of span: for text
// that has no byte map.
func spanStart(span deploy.Span) shell.Mapper {
	return func(int, int) (int, int) { return span.Line, span.Col }
}
