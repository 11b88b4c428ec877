// Package skypilot finds engine launches in SkyPilot task files: the run:
// script each node of the task runs (bash), with envs: as its environment
// and resources.accelerators as the GPU type and count of every node.
//
// The task file is described in SkyPilot's YAML reference
// (skypilot-org/skypilot docs/source/reference/yaml-spec.rst): envs "can be
// accessed in the file_mounts, setup, and run sections"; accelerators are
// "<name>:<count> (or simply <name>, short for a count of 1)", an ordered
// list of those, or a set {<name>:<count>, ...} of candidates; num_nodes
// (default 1) nodes each run run:. setup: installs software before run:
// and is not read: servers are started by run:. The run: environment also
// holds SKYPILOT_NUM_GPUS_PER_NODE, "the same as the count in accelerators"
// (docs/source/running-jobs/environment-variables.rst), and
// SKYPILOT_NUM_NODES; the rank and IP variables differ between nodes and
// stay unknown.
package skypilot

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// taskKeys are top-level keys only a SkyPilot task has beside run:.
var taskKeys = []string{"resources", "envs", "setup", "num_nodes", "file_mounts", "workdir"}

// RuledOutByHead reports, from a file's first bytes, what Detect would say
// no to without reading further: a first key that is apiVersion, kind or
// services makes a Kubernetes object or a compose file, never a task.
// Discovery asks this first, so the many manifests of a repository are not
// read whole twice.
func RuledOutByHead(head []byte) bool {
	for _, line := range bytes.Split(head, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		for _, k := range []string{"apiVersion:", "kind:", "services:"} {
			if bytes.HasPrefix(line, []byte(k)) {
				return true
			}
		}
		return false
	}
	return false
}

// Detect reports whether data is a SkyPilot task file: a document whose
// top level has run: and one of taskKeys, and neither apiVersion/kind (a
// Kubernetes object) nor services (a compose file).
func Detect(data []byte) bool {
	if !bytes.HasPrefix(data, []byte("run:")) && !bytes.Contains(data, []byte("\nrun:")) {
		return false
	}
	docs, _ := yamlsrc.NewSource("", data).Documents()
	for _, d := range docs {
		if isTask(d.Root) {
			return true
		}
	}
	return false
}

func isTask(root *yaml.Node) bool {
	root = yamlsrc.Resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	for _, k := range []string{"apiVersion", "kind", "services"} {
		if yamlsrc.Get(root, k) != nil {
			return false
		}
	}
	if run := yamlsrc.Get(root, "run"); run == nil || run.Kind != yaml.ScalarNode {
		return false
	}
	for _, k := range taskKeys {
		if yamlsrc.Get(root, k) != nil {
			return true
		}
	}
	return false
}

// ParseFile returns the servers the run: scripts of a task file start.
func ParseFile(f *source.File, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	src := yamlsrc.FromFile(f)
	docs, errs := src.Documents()
	p := &parser{src: src, read: read, errs: errs}
	for _, d := range docs {
		if isTask(d.Root) {
			p.task(yamlsrc.Resolve(d.Root))
		}
	}
	return p.servers, p.errs
}

type parser struct {
	src     *yamlsrc.Source
	read    engine.ReadFile
	servers []*deploy.Server
	errs    []*diag.Diagnostic
}

func (p *parser) task(root *yaml.Node) {
	gpu, count := p.accelerators(yamlsrc.Path(root, "resources", "accelerators"))
	nodes := deploy.Value{}
	if n := yamlsrc.Get(root, "num_nodes"); n != nil && n.Kind == yaml.ScalarNode {
		nodes = p.src.Value(n)
	}
	env := shell.Env{}
	if count.IsSet() {
		env["SKYPILOT_NUM_GPUS_PER_NODE"] = count
	}
	if nodes.IsSet() {
		env["SKYPILOT_NUM_NODES"] = nodes
	} else {
		env["SKYPILOT_NUM_NODES"] = deploy.Known("1", deploy.Span{}) // num_nodes defaults to 1
	}
	p.envs(env, yamlsrc.Get(root, "envs"), true)
	p.envs(env, yamlsrc.Get(root, "secrets"), false)
	run := yamlsrc.Get(root, "run")
	text, _ := p.src.Scalar(run)
	found, errs := shell.Servers(shell.Source{
		File: p.src.File,
		Text: []byte(text.S),
		Map:  shell.Mapper(p.src.Mapper(text)),
		Env:  env,
	}, p.read)
	p.errs = append(p.errs, errs...)
	for _, s := range found {
		if !s.GPU.IsSet() {
			s.GPU = gpu
		}
		s.GPUCount = count
		s.Replicas = nodes
		p.servers = append(p.servers, s)
	}
}

// envs adds an envs: (or secrets:) mapping to env. A value left null must
// be given with --env (--secret) at launch: unknown. Secrets are never
// known: a value written in the file is a placeholder for the real one.
func (p *parser) envs(env shell.Env, m *yaml.Node, known bool) {
	for _, pr := range yamlsrc.Pairs(m) {
		n := pr.Value
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		if yamlsrc.IsNull(n) {
			env[pr.Key.Value] = deploy.Unknown("$"+pr.Key.Value, p.src.NodeSpan(pr.Key))
			continue
		}
		v := p.src.Value(n)
		v.Known = known
		env[pr.Key.Value] = v
	}
}

// accelerators reads resources.accelerators: the GPU name and the count per
// node, each spanning its part of the scalar. Several candidates of one
// name keep the name; candidates of different names leave it unknown (the
// optimizer picks one), Raw listing them, as do counts that differ.
func (p *parser) accelerators(n *yaml.Node) (gpu, count deploy.Value) {
	if n == nil || yamlsrc.IsNull(n) {
		return deploy.Value{}, deploy.Value{}
	}
	type cand struct{ name, count deploy.Value }
	var cands []cand
	switch n.Kind {
	case yaml.ScalarNode:
		g, c := p.accelerator(n)
		cands = append(cands, cand{g, c})
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item = yamlsrc.Resolve(item); item != nil && item.Kind == yaml.ScalarNode {
				g, c := p.accelerator(item)
				cands = append(cands, cand{g, c})
			}
		}
	case yaml.MappingNode:
		// {A100:1, V100:1} is a set: keys "A100:1" with null values; the
		// block form A100: 1 gives the count as the value.
		for _, pr := range yamlsrc.Pairs(n) {
			g, c := p.accelerator(pr.Key)
			if v := pr.Value; v != nil && v.Kind == yaml.ScalarNode && !yamlsrc.IsNull(v) {
				c = p.src.Value(v)
			}
			cands = append(cands, cand{g, c})
		}
	}
	if len(cands) == 0 {
		return deploy.Value{}, deploy.Value{}
	}
	gpu, count = cands[0].name, cands[0].count
	var names, counts []string
	for _, c := range cands {
		names = append(names, c.name.Raw)
		counts = append(counts, c.count.Raw)
	}
	last := cands[len(cands)-1]
	for _, c := range cands[1:] {
		if c.name.Raw != gpu.Raw {
			gpu = widen(deploy.Unknown(strings.Join(names, ","), gpu.Span), last.name.Span)
			break
		}
	}
	for _, c := range cands[1:] {
		if c.count.Raw != count.Raw {
			count = widen(deploy.Unknown(strings.Join(counts, ","), count.Span), last.count.Span)
			break
		}
	}
	return gpu, count
}

func widen(v deploy.Value, end deploy.Span) deploy.Value {
	v.Span.EndLine, v.Span.EndCol = end.EndLine, end.EndCol
	return v
}

// accelerator splits one "<name>:<count>" scalar. A count that is not a
// whole number (a fraction: SkyPilot rounds SKYPILOT_NUM_GPUS_PER_NODE up,
// and the server still sees the whole GPU) stays as written, unknown.
func (p *parser) accelerator(n *yaml.Node) (gpu, count deploy.Value) {
	text, _ := p.src.Scalar(n)
	s := text.S
	name, num, hasCount := strings.Cut(s, ":")
	span := func(i, j int) deploy.Span {
		a, b := text.Range(i, j)
		return p.src.Span(a, b)
	}
	lead := len(name) - len(strings.TrimLeft(name, " "))
	trimmed := strings.TrimSpace(name)
	gpu = deploy.Known(trimmed, span(lead, lead+len(trimmed)))
	if isPlaceholder(trimmed) {
		gpu.Known = false
	}
	if !hasCount {
		return gpu, deploy.Known("1", gpu.Span) // <name> is short for a count of 1
	}
	at := len(name) + 1
	numLead := len(num) - len(strings.TrimLeft(num, " "))
	num = strings.TrimSpace(num)
	count = deploy.Known(num, span(at+numLead, at+numLead+len(num)))
	if !isWhole(num) {
		count.Known = false
	}
	return gpu, count
}

func isWhole(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isPlaceholder(s string) bool { return strings.Contains(s, "$") || strings.Contains(s, "{{") }
