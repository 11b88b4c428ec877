package engine

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// mergeConfig does what prepare_server_args does before argparse runs
// (python/sglang/srt/server_args.py L8168-8177, server_args_config_parser.py
// ConfigArgumentMerger at modal-projects/sglang 8905cbd4):
//
//   - only the exact word "--config" triggers it ("--config=f.yaml" and the
//     abbreviation "--conf f.yaml" reach argparse, which stores the path and
//     never reads the file);
//   - more than one "--config", or "--config" as the last word, is a
//     ValueError; the file name must end in .yaml or .yml;
//   - the file is yaml.safe_load'ed and must hold a mapping; each key
//     becomes "--" + key exactly as written (so an underscore key such as
//     tensor_parallel_size is not a flag argparse knows), a boolean of a
//     store_true flag becomes the bare flag (true) or nothing (false), any
//     other boolean "true"/"false", a list its items, a mapping its JSON, any
//     other value its Python str();
//   - a key naming the dest of an action other than store/store_true is a
//     ValueError ("Unsupported config option");
//   - the result is config args + the words before "--config" + the words
//     after its path, so a flag on the command line overrides the file.
//
// It returns the merged argv and how many leading words came from the file,
// or ok=false when argv has no "--config" word.
func (p *parser) mergeConfig(argv []deploy.Value, read ReadFile) (merged []deploy.Value, fromFile int, ok bool) {
	var at []int
	for i, w := range argv {
		if w.Known && w.Raw == "--config" {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil, 0, false
	}
	if len(at) > 1 {
		p.error(argv[at[1]].Span, "SGLang refuses more than one --config (\"Multiple config files specified! Only one allowed.\", server_args_config_parser.py L89-90)")
		return dropConfig(argv, at), 0, true
	}
	i := at[0]
	if i == len(argv)-1 {
		p.error(argv[i].Span, "--config needs a file name (\"No config file specified after --config flag!\", server_args_config_parser.py L96-97)")
		return dropConfig(argv, at), 0, true
	}
	file := argv[i+1]
	rest := dropConfig(argv, at)
	if !file.Known {
		// The file's flags are unknown: anything may be set there.
		p.res.Opaque = append(p.res.Opaque, file)
		return rest, 0, true
	}
	if ext := strings.ToLower(pathSuffix(file.Raw)); ext != ".yaml" && ext != ".yml" {
		p.error(file.Span, "SGLang only reads a YAML --config file: the name must end in .yaml or .yml (\"Config file must be YAML format, got: %s\", server_args_config_parser.py L132-136)", ext)
		return rest, 0, true
	}
	if read == nil {
		p.error(file.Span, "cannot read config file %s: no file access here", file.Raw)
		return rest, 0, true
	}
	name, data, err := read(file.Raw)
	if err != nil {
		p.error(file.Span, "cannot read config file %s: %v", file.Raw, err)
		return rest, 0, true
	}
	cfg, err := p.configArgs(name, data, file)
	if err != nil {
		p.error(file.Span, "%v", err)
		return rest, 0, true
	}
	return append(cfg, rest...), len(cfg), true
}

// dropConfig removes each "--config" word and the word after it.
func dropConfig(argv []deploy.Value, at []int) []deploy.Value {
	skip := map[int]bool{}
	for _, i := range at {
		skip[i], skip[i+1] = true, true
	}
	var out []deploy.Value
	for i, w := range argv {
		if !skip[i] {
			out = append(out, w)
		}
	}
	return out
}

// pathSuffix is pathlib's Path(p).suffix: the last ".ext" of the final
// component, "" for a name that only starts with a dot.
func pathSuffix(p string) string {
	base := path.Base(strings.TrimRight(p, "/"))
	i := strings.LastIndexByte(base, '.')
	if i <= 0 || i == len(base)-1 {
		return ""
	}
	return base[i:]
}

// configArgs turns the YAML file into argv words whose spans point into it.
func (p *parser) configArgs(name string, data []byte, file deploy.Value) ([]deploy.Value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config file %s is not valid YAML: %v", file.Raw, err)
	}
	src := newSourceLines(data)
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil // an empty file is an empty mapping
	}
	root := deref(doc.Content[0])
	if root.Kind == yaml.ScalarNode && resolveScalar(root).kind == pyNone {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s must hold a mapping of flag names to values (\"Config file must contain a dictionary at root level\", server_args_config_parser.py L127-128)", file.Raw)
	}
	var out []deploy.Value
	word := func(raw string, n *yaml.Node) deploy.Value {
		return deploy.Known(raw, src.span(name, n))
	}
	for k := 0; k+1 < len(root.Content); k += 2 {
		keyNode, val := deref(root.Content[k]), deref(root.Content[k+1])
		ks := resolveScalar(keyNode)
		if keyNode.Kind != yaml.ScalarNode || ks.kind != pyStr {
			// key.replace("-", "_") on a non-str key raises AttributeError.
			p.error(src.span(name, keyNode), "config key %q is not a string: SGLang fails reading the file", keyNode.Value)
			continue
		}
		key := ks.text
		keyNorm := strings.ReplaceAll(key, "-", "_")
		if f := p.unsupportedConfigDest(keyNorm); f != nil {
			p.issue(deploy.FlagInvalidValue, f.Key, key, src.span(name, keyNode), "",
				fmt.Sprintf("config key %s names the dest of %s (argparse action %s), which SGLang refuses in a config file: ValueError \"Unsupported config option '%s' with action '%s'\" (server_args_config_parser.py L146-150); pass it on the command line", key, f.Name, f.Action, keyNorm, actionClass(f)))
			continue
		}
		flagWord := word("--"+key, keyNode)
		switch {
		case val.Kind == yaml.ScalarNode && resolveScalar(val).kind == pyBool:
			b := resolveScalar(val).b
			if p.storeTrueDest(keyNorm) {
				if b {
					out = append(out, flagWord)
				}
				continue
			}
			out = append(out, flagWord, word(strings.ToLower(resolveScalar(val).text), val))
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
			out = append(out, flagWord, word(jsonDumps(val, &budget), val))
		default:
			out = append(out, flagWord, word(pyStrNode(val), val))
		}
	}
	return out, nil
}

// storeTrueDest reports whether a config key names the dest of a plain
// store_true action (ConfigArgumentMerger.store_true_actions).
func (p *parser) storeTrueDest(dest string) bool {
	for _, f := range p.t.flags {
		if f.Dest == dest && f.Action == "store_true" {
			return true
		}
	}
	return false
}

// unsupportedConfigDest returns the action a config key would hit in
// ConfigArgumentMerger.unsupported_actions: any action with option strings
// that is neither _StoreAction nor _StoreTrueAction, except --config and
// --help, keyed by dest (the last registered wins, as in the dict
// comprehension).
func (p *parser) unsupportedConfigDest(dest string) *Flag {
	var hit *Flag
	for _, f := range p.t.flags {
		if f.Dest != dest || f.Name == "--config" || f.Action == "help" {
			continue
		}
		if f.Action != "store" && f.Action != "store_true" {
			hit = f
		}
	}
	return hit
}

// actionClass is the Python class name argparse uses for an action.
func actionClass(f *Flag) string {
	switch f.Action {
	case "boolean_optional":
		return "BooleanOptionalAction"
	case "append":
		return "_AppendAction"
	}
	return f.Action
}

// ignoredConfig reports a --config that reaches argparse, which stores the
// path and never reads the file.
func (p *parser) ignoredConfig(tok token) {
	msg := fmt.Sprintf("SGLang reads a config file only when \"--config\" is a word of its own followed by the path (server_args.py L8170); written as %s the file is never read", tok.word.Raw)
	if p.t.Program == VLLMServer {
		msg = fmt.Sprintf("vLLM reads a config file only when \"--config\" is a word of its own followed by the path (argparse_utils.py FlexibleArgumentParser.parse_args: if \"--config\" in args); written as %s the file is never read", tok.word.Raw)
	}
	if p.t.Program == SGLangRouterServer {
		msg = "sglang_router.launch_server never reads --config (its main() calls parse_args() without the config merge), so the file is ignored"
	}
	p.issue(deploy.FlagInvalidValue, "--config", tok.written.Raw, tok.written.Span, "", msg)
}

func (p *parser) error(span deploy.Span, format string, args ...any) {
	p.res.Errors = append(p.res.Errors, diag.Errorf(span, format, args...))
}

// sourceLines turns yaml.v3 positions (1-based lines, columns counted in
// characters) into byte spans.
type sourceLines struct{ lines [][]byte }

func newSourceLines(data []byte) sourceLines {
	return sourceLines{lines: bytes.Split(data, []byte("\n"))}
}

// span covers the text of a node on its first line: the whole token for a
// plain or quoted scalar, the first line otherwise.
func (s sourceLines) span(file string, n *yaml.Node) deploy.Span {
	if n.Line < 1 || n.Line > len(s.lines) {
		return deploy.Span{File: file, Line: max(n.Line, 1), Col: max(n.Column, 1), EndLine: max(n.Line, 1), EndCol: max(n.Column, 1) + 1}
	}
	line := s.lines[n.Line-1]
	start := byteOffset(line, n.Column-1)
	end := tokenEnd(line, start, n)
	return deploy.Span{File: file, Line: n.Line, Col: start + 1, EndLine: n.Line, EndCol: end + 1}
}

// byteOffset converts a character column (0-based) to a byte offset.
func byteOffset(line []byte, chars int) int {
	off := 0
	for c := 0; c < chars && off < len(line); c++ {
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}

// tokenEnd finds where the node's token ends on its line.
func tokenEnd(line []byte, start int, n *yaml.Node) int {
	rest := line[start:]
	end := len(line)
	switch {
	case n.Kind == yaml.ScalarNode && n.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' {
				i++
				continue
			}
			if rest[i] == '"' {
				return start + i + 1
			}
		}
	case n.Kind == yaml.ScalarNode && n.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1
			}
		}
	case n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0:
		if bytes.HasPrefix(rest, []byte(n.Value)) && n.Value != "" {
			return start + len(n.Value)
		}
	}
	// Trailing comments and spaces are not part of the token.
	trimmed := bytes.TrimRight(line[:end], " \t\r")
	if len(trimmed) <= start {
		return start + 1
	}
	return len(trimmed)
}
