// Package skypilot finds engine launches in SkyPilot task files: the run:
// script each node of the task runs (bash), with envs: as its environment
// and resources.accelerators as the GPU type and count of every node.
//
// The task file is described in SkyPilot's YAML reference
// (skypilot-org/skypilot docs/source/reference/yaml-spec.rst): envs "can be
// accessed in the file_mounts, setup, and run sections"; accelerators are
// "<name>:<count> (or simply <name>, short for a count of 1)", an ordered
// list of those, or a set {<name>:<count>, ...} of candidates (any_of: and
// ordered: may list more); num_nodes (default 1) nodes each run run:. setup: installs software before run:
// and is not read: servers are started by run:. The run: environment also
// holds SKYPILOT_NUM_GPUS_PER_NODE, "the same as the count in accelerators"
// (docs/source/running-jobs/environment-variables.rst), and
// SKYPILOT_NUM_NODES; the rank and IP variables differ between nodes and
// stay unknown.
package skypilot

import (
	"bytes"
	"fmt"
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
	acc := p.resources(yamlsrc.Get(root, "resources"))
	nodes := deploy.Value{}
	if n := yamlsrc.Get(root, "num_nodes"); n != nil && n.Kind == yaml.ScalarNode {
		nodes = p.src.Value(n)
	}
	env := shell.Env{}
	if acc.count.IsSet() {
		env["SKYPILOT_NUM_GPUS_PER_NODE"] = acc.count
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
		if !s.GPU.IsSet() && acc.gpu.IsSet() {
			s.GPU, s.GPUKey = acc.gpu, deploy.GPUKeySkyPilot
			s.GPUCandidates = acc.names
		}
		s.GPUCount = acc.count
		s.GPUCountCandidates = acc.counts
		s.Replicas = nodes
		s.Nodes = nodes
		if !nodes.IsSet() {
			// num_nodes defaults to 1: the task is this node alone.
			s.Nodes = deploy.Known("1", deploy.Span{})
		}
		p.servers = append(p.servers, s)
	}
}

// accels is what a task's resources say of its GPUs: the accelerator (or,
// when the task allows several, an unknown value spanning them all and
// their names) and the count per node (unknown, with the counts, when the
// candidates give different counts).
type accels struct {
	gpu, count deploy.Value
	names      []string // the distinct names, when more than one
	counts     []string // the distinct counts, when more than one
}

// maxAlternatives bounds the accelerators a task's alternatives are read
// as candidates; past it the GPU is unknown.
const maxAlternatives = 64

// candidate is one accelerator a task allows: a name and its count.
type candidate struct{ name, count deploy.Value }

// resources reads the accelerators a task's resources allow. SkyPilot
// turns resources into candidate resources, one per accelerator
// (skypilot-org/skypilot@0021077c42ef sky/resources.py
// Resources.from_yaml_config): a string is one, a mapping {A: n, B: m}
// (flow or block, a null count meaning the name alone) is a set, a list
// an ordered preference; any_of: and ordered: entries override the base
// resources, each entry's accelerators replacing the base's. The server
// runs on one of them, chosen by SkyPilot's optimizer at launch.
func (p *parser) resources(res *yaml.Node) accels {
	res = yamlsrc.Resolve(res)
	baseNode := yamlsrc.Resolve(yamlsrc.Get(res, "accelerators"))
	base := p.candidates(baseNode)
	cands := base
	for _, key := range []string{"any_of", "ordered"} {
		alts := yamlsrc.Resolve(yamlsrc.Get(res, key))
		if alts == nil || alts.Kind != yaml.SequenceNode {
			continue
		}
		// Entries that alias one accelerators node (or fall back to
		// the base's) add its candidates once: a file of a few
		// kilobytes may alias a long list thousands of times.
		cands = nil
		seen := map[*yaml.Node]bool{}
		for _, entry := range alts.Content {
			acc := yamlsrc.Resolve(yamlsrc.Get(yamlsrc.Resolve(entry), "accelerators"))
			if acc == nil {
				acc = baseNode
			}
			if seen[acc] {
				continue
			}
			seen[acc] = true
			if acc == baseNode {
				cands = append(cands, base...)
			} else {
				cands = append(cands, p.candidates(acc)...)
			}
		}
	}
	return p.accels(cands)
}

// accels folds the candidates into one GPU and one count.
func (p *parser) accels(cands []candidate) accels {
	if len(cands) == 0 {
		return accels{}
	}
	a := accels{gpu: cands[0].name, count: cands[0].count}
	var names, counts []string
	nameSeen, countSeen := map[string]bool{}, map[string]bool{}
	var first, last deploy.Span
	for i, c := range cands {
		if i == 0 || c.name.Span.Line < first.Line || (c.name.Span.Line == first.Line && c.name.Span.Col < first.Col) {
			first = c.name.Span
		}
		if i == 0 || c.count.Span.EndLine > last.EndLine || (c.count.Span.EndLine == last.EndLine && c.count.Span.EndCol > last.EndCol) {
			last = c.count.Span
		}
		// SkyPilot reads accelerator names case-insensitively: A10g is A10G
		// (skypilot-org/skypilot@ad6296b71f8c sky/utils/accelerator_registry.py
		// canonicalize_accelerator_name).
		if l := strings.ToLower(c.name.Raw); !nameSeen[l] {
			nameSeen[l] = true
			names = append(names, c.name.Raw)
		}
		if !countSeen[c.count.Raw] {
			countSeen[c.count.Raw] = true
			counts = append(counts, c.count.Raw)
		}
	}
	if len(names) > maxAlternatives {
		// No task lists so many GPUs; naming each would cost more than
		// it tells.
		a.gpu = deploy.Unknown(fmt.Sprintf("any of %d accelerators", len(names)), spanning(first, last))
		a.count = deploy.Unknown(fmt.Sprintf("any of %d counts", len(counts)), spanning(first, last))
		return a
	}
	if len(names) > 1 {
		a.names = names
		a.gpu = deploy.Unknown(strings.Join(names, ","), spanning(first, last))
	}
	if len(counts) > 1 {
		a.counts = counts
		a.count = deploy.Unknown(strings.Join(counts, ","), spanning(first, last))
	}
	return a
}

// spanning is the span from the start of a to the end of b.
func spanning(a, b deploy.Span) deploy.Span {
	a.EndLine, a.EndCol = b.EndLine, b.EndCol
	if a.EndLine < a.Line || (a.EndLine == a.Line && a.EndCol < a.Col) {
		a.EndLine, a.EndCol = a.Line, a.Col
	}
	return a
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

// candidates reads one accelerators: value, each candidate's name and
// count spanning its part of the scalar.
func (p *parser) candidates(n *yaml.Node) []candidate {
	n = yamlsrc.Resolve(n)
	if n == nil || yamlsrc.IsNull(n) {
		return nil
	}
	var cands []candidate
	switch n.Kind {
	case yaml.ScalarNode:
		g, c := p.accelerator(n)
		cands = append(cands, candidate{g, c})
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item = yamlsrc.Resolve(item); item != nil && item.Kind == yaml.ScalarNode {
				g, c := p.accelerator(item)
				cands = append(cands, candidate{g, c})
			}
		}
	case yaml.MappingNode:
		// {A100:1, V100:1} is a set: keys "A100:1" with null values; the
		// block form A100: 1 gives the count as the value.
		for _, pr := range yamlsrc.Pairs(n) {
			g, c := p.accelerator(pr.Key)
			if v := pr.Value; v != nil && v.Kind == yaml.ScalarNode && !yamlsrc.IsNull(v) {
				c = p.src.Value(v)
				if !isWhole(strings.TrimSpace(c.Raw)) {
					c.Known = false
				}
			}
			cands = append(cands, candidate{g, c})
		}
	}
	return cands
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
