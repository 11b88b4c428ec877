package engine

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"gopkg.in/yaml.v3"
)

// vllmConfig is step 2 of prepareVLLM, FlexibleArgumentParser's
// _pull_args_from_config and load_config_file (vllm/utils/argparse_utils.py
// at vllm-project/vllm 9aaf83ef502f):
//
//   - it runs when a word is exactly "--config" ("--config=f.yaml" reaches
//     argparse, which stores the path and never reads the file); a second
//     "--config" fails an assertion, and "--config" as the last word is a
//     ValueError;
//   - the file name's text after its last "." must be yaml or yml;
//   - the file is yaml.safe_load'ed and must hold a mapping; each key becomes
//     "--" + key, with vLLM's later underscore normalisation (so
//     tensor_parallel_size works, unlike SGLang's files); true becomes the
//     bare flag, false nothing, a list its items (nothing when empty), a
//     mapping its json.dumps, anything else its Python str();
//   - the file's words go right after the model (when the first word is the
//     model) and before the rest of the command line, so the command line
//     wins; `vllm serve` with no model on the command line nor "model:" in
//     the file is a ValueError ("No model specified!").
func (p *parser) vllmConfig(argv []deploy.Value, fromConfig []bool, read ReadFile) ([]deploy.Value, []bool) {
	var at []int
	for i, w := range argv {
		if w.Known && w.Raw == "--config" {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return argv, fromConfig
	}
	if len(at) > 1 {
		p.error(argv[at[1]].Span, "vLLM refuses more than one --config: AssertionError \"More than one config file specified!\" (argparse_utils.py _pull_args_from_config)")
		return dropConfig(argv, at), make([]bool, len(argv)-2*len(at))
	}
	i := at[0]
	if i == len(argv)-1 {
		p.error(argv[i].Span, "--config needs a file name: vLLM raises ValueError \"No config file specified! Please check your command-line arguments.\"")
		return argv[:i], make([]bool, i)
	}
	file := argv[i+1]
	rest := append(append([]deploy.Value(nil), argv[:i]...), argv[i+2:]...)
	plain := make([]bool, len(rest))
	if !file.Known {
		p.res.Opaque = append(p.res.Opaque, file) // the file may set anything
		return rest, plain
	}
	ext := file.Raw[strings.LastIndexByte(file.Raw, '.')+1:]
	if ext != "yaml" && ext != "yml" {
		p.error(file.Span, "vLLM only reads a YAML --config file: ValueError \"Config file must be of a yaml/yml type. %s supplied\"", ext)
		return rest, plain
	}
	if read == nil {
		p.error(file.Span, "cannot read config file %s: no file access here", file.Raw)
		return rest, plain
	}
	name, data, err := read(file.Raw)
	if err != nil {
		p.error(file.Span, "cannot read config file %s: %v", file.Raw, err)
		return rest, plain
	}
	cfg, err := p.vllmConfigArgs(name, data, file)
	if err != nil {
		p.error(file.Span, "%v", err)
		return rest, plain
	}
	modelFirst := len(rest) > 0 && (!rest[0].Known || !strings.HasPrefix(rest[0].Raw, "-"))
	if !p.opt.vllmAPIServer && !modelFirst {
		inConfig := false
		for _, w := range cfg {
			inConfig = inConfig || w.Raw == "--model"
		}
		if !inConfig {
			p.error(file.Span, "vllm serve names no model: not as its first argument and not as model: in %s (vLLM raises ValueError \"No model specified! Please specify model either as a positional argument or in a config file.\")", file.Raw)
		}
	}
	var merged []deploy.Value
	var from []bool
	if modelFirst {
		merged, from = append(merged, rest[0]), append(from, false)
		rest = rest[1:]
	}
	for _, w := range cfg {
		merged, from = append(merged, w), append(from, true)
	}
	for _, w := range rest {
		merged, from = append(merged, w), append(from, false)
	}
	return merged, from
}

// vllmConfigArgs turns the YAML file into argv words whose spans point into
// it (load_config_file).
func (p *parser) vllmConfigArgs(name string, data []byte, file deploy.Value) ([]deploy.Value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config file %s is not valid YAML: %v", file.Raw, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("config file %s is empty: vLLM fails reading it (AttributeError: 'NoneType' object has no attribute 'items')", file.Raw)
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s must hold a mapping of flag names to values: vLLM calls config.items() on it and fails", file.Raw)
	}
	src := newSourceLines(data)
	word := func(raw string, n *yaml.Node) deploy.Value { return deploy.Known(raw, src.span(name, n)) }
	var out []deploy.Value
	for k := 0; k+1 < len(root.Content); k += 2 {
		keyNode, val := deref(root.Content[k]), deref(root.Content[k+1])
		ks := resolveScalar(keyNode)
		if keyNode.Kind != yaml.ScalarNode || ks.kind != pyStr {
			// "--" + key on a non-str key raises TypeError.
			p.error(src.span(name, keyNode), "config key %q is not a string: vLLM fails reading the file (\"--\" + key)", keyNode.Value)
			continue
		}
		flagWord := word("--"+ks.text, keyNode)
		switch {
		case val.Kind == yaml.ScalarNode && resolveScalar(val).kind == pyBool:
			if resolveScalar(val).b {
				out = append(out, flagWord)
				continue
			}
			p.droppedFalse(normalizeDashes(flagWord), src.span(name, val))
		case val.Kind == yaml.SequenceNode:
			if len(val.Content) == 0 {
				continue
			}
			out = append(out, flagWord)
			for _, item := range val.Content {
				out = append(out, word(pyStrNode(item), deref(item)))
			}
		case val.Kind == yaml.MappingNode:
			budget := renderBudget
			w := word(jsonDumps(val, &budget), val)
			out = append(out, flagWord, w)
			p.rememberMembers(w.Span, val, func(n *yaml.Node) deploy.Span { return src.span(name, n) })
		default:
			out = append(out, flagWord, word(pyStrNode(val), val))
		}
	}
	return out, nil
}

// droppedFalse reports "key: false" for a flag whose default is not false:
// load_config_file passes only true booleans on, so the line does nothing
// and the flag keeps its default (enable-prefix-caching: false leaves prefix
// caching on).
func (p *parser) droppedFalse(flagWord deploy.Value, valueSpan deploy.Span) {
	f, ok := p.t.byOpt[flagWord.Raw]
	if !ok || f.Action != "boolean_optional" || f.Default == "False" || strings.HasPrefix(flagWord.Raw, "--no-") {
		return
	}
	p.issue(deploy.FlagInvalidValue, f.Key, flagWord.Raw, valueSpan, "--no-"+strings.TrimPrefix(f.Name, "--"),
		fmt.Sprintf("%s: false in a vLLM config file does nothing (vLLM does not exit, it ignores the line): load_config_file passes only true booleans on (argparse_utils.py), so %s keeps its default (%s); write %s: true in the file or pass --no-%s",
			strings.TrimPrefix(flagWord.Raw, "--"), f.Name, vllmBoolDefault(f), "no-"+strings.TrimPrefix(f.Name, "--"), strings.TrimPrefix(f.Name, "--")))
}

// vllmBoolDefault says what a boolean flag is when it is not given; None
// means the engine decides (prefix caching: on, CacheConfig.enable_prefix_caching).
func vllmBoolDefault(f *Flag) string {
	if f.Name == "--enable-prefix-caching" {
		return "on"
	}
	switch f.Default {
	case "True":
		return "on"
	case "None":
		return "decided by vLLM"
	}
	return f.Default
}

// rememberMembers keeps, for a mapping in a config file that becomes one JSON
// word, where each top-level key and value is written, so the keys spread
// from that JSON (finishVLLM) point into the file, not at the mapping.
func (p *parser) rememberMembers(word deploy.Span, m *yaml.Node, span func(*yaml.Node) deploy.Span) {
	if p.yamlMembers == nil {
		p.yamlMembers = map[deploy.Span]map[string][2]deploy.Span{}
	}
	members := map[string][2]deploy.Span{}
	for k := 0; k+1 < len(m.Content); k += 2 {
		key, val := deref(m.Content[k]), deref(m.Content[k+1])
		members[key.Value] = [2]deploy.Span{span(key), span(val)}
	}
	p.yamlMembers[word] = members
}
