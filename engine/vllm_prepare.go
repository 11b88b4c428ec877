package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// prepareVLLM does what vLLM's FlexibleArgumentParser.parse_args does to
// argv before argparse sees it (vllm/utils/argparse_utils.py at
// vllm-project/vllm 9aaf83ef502f), in its order:
//
//  1. `vllm serve` only: the first "--model X" / "--model=X" is moved to the
//     front as the positional model, with a deprecation warning; then, when
//     the first word is an option, no word is "--config", and
//     --served-model-name is given, vLLM raises ValueError ("`model` should
//     be provided as the first positional argument");
//  2. the exact word "--config" pulls the YAML file's flags in (see
//     vllmConfigArgs);
//  3. in every word starting with "--", underscores become dashes from the
//     "--" up to the first "." (only in the name of "--name=value"):
//     --gpu_memory_utilization is --gpu-memory-utilization;
//  4. "-O3", "-O=3", "-Odecode" become --optimization-level VALUE, and
//     "-O" followed by 0-3 becomes --optimization-level;
//  5. a "--flag.key VALUE" or "--flag.key=VALUE" word (after step 3) is a
//     dotted JSON key: the words are removed, every key of one flag is
//     merged into one dict (values read as JSON, else human_readable_int,
//     else a string; "key+" appends comma-separated items to a list), and
//     each flag is appended at the end of argv as "--flag JSON".
//
// Divergence: vLLM applies step 5 to any word starting with "-" and holding
// a ".", so a negative decimal value such as "-0.5" is also taken apart;
// kvlint only reads words starting with "--" as dotted keys.
func (p *parser) prepareVLLM(argv []deploy.Value, read ReadFile) ([]deploy.Value, []bool) {
	if !p.opt.vllmAPIServer {
		argv = p.moveServeModel(argv)
		p.checkServedModelName(argv)
	}
	fromConfig := make([]bool, len(argv))
	argv, fromConfig = p.vllmConfig(argv, fromConfig, read)
	var words []deploy.Value
	var from []bool
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case w.Known && strings.HasPrefix(w.Raw, "--") && !strings.HasPrefix(w.Raw, "--help="):
			words, from = append(words, normalizeDashes(w)), append(from, fromConfig[i])
		case w.Known && strings.HasPrefix(w.Raw, "-O") && w.Raw != "-O":
			level := part(w, 2, len(w.Raw))
			if len(w.Raw) > 2 && w.Raw[2] == '=' {
				level = part(w, 3, len(w.Raw))
			}
			flag := deploy.Value{Raw: "--optimization-level", Known: true, Span: subSpan(w, 0, 2), Origin: w.Origin}
			words, from = append(words, flag, level), append(from, fromConfig[i], fromConfig[i])
		case w.Known && w.Raw == "-O" && i+1 < len(argv) && argv[i+1].Known && len(argv[i+1].Raw) == 1 && strings.Contains("0123", argv[i+1].Raw):
			flag := deploy.Value{Raw: "--optimization-level", Known: true, Span: w.Span, Origin: w.Origin}
			words, from = append(words, flag), append(from, fromConfig[i])
		default:
			words, from = append(words, w), append(from, fromConfig[i])
		}
	}
	words, from = p.mergeDotted(words, from)
	if !p.opt.vllmAPIServer && len(words) > 0 && !words[0].Known && isPositionalModel(words[0]) && !from[0] {
		// "vllm serve $MODEL …": a placeholder first word that names a
		// model is the positional model (as for sglang serve), not words
		// that may hold any flags.
		p.modelAt = 1
	}
	return words, from
}

// normalizeDashes is step 3: the regex (?<=--)[^\.]* replaced once, in the
// name part of "--name=value". The text keeps its length, so spans hold.
func normalizeDashes(w deploy.Value) deploy.Value {
	name, value, hasEq := strings.Cut(w.Raw, "=")
	if hasPlaceholder(name) {
		return w
	}
	head, tail, hasDot := strings.Cut(name[2:], ".")
	out := "--" + strings.ReplaceAll(head, "_", "-")
	if hasDot {
		out += "." + tail
	}
	if hasEq {
		out += "=" + value
	}
	w.Raw = out
	return w
}

// serveModelFlag is the pattern vLLM looks for: ^--model(=.+|$).
var serveModelFlag = regexp.MustCompile(`^--model(=.+|$)`)

// moveServeModel is step 1: `vllm serve -tp 2 --model M …` becomes
// `vllm serve M -tp 2 …`.
func (p *parser) moveServeModel(argv []deploy.Value) []deploy.Value {
	for i, w := range argv {
		if !w.Known || !serveModelFlag.MatchString(w.Raw) {
			continue
		}
		var model deploy.Value
		rest := i + 1
		if w.Raw == "--model" {
			if i+1 >= len(argv) {
				// args[model_idx + 1] raises IndexError: vLLM crashes.
				p.issue(deploy.FlagMissingValue, "--model", w.Raw, w.Span, "",
					"--model is the last word: vllm serve reads the word after it as the model and fails with IndexError; give the model as the first argument instead (vllm serve MODEL …)")
				return append(argv[:i:i], argv[i+1:]...)
			}
			model, rest = argv[i+1], i+2
		} else {
			model = part(w, len("--model="), len(w.Raw))
		}
		p.issue(deploy.FlagDeprecated, "--model", "--model", subSpan(w, 0, len("--model")), "",
			"with vllm serve, --model is deprecated: vLLM moves the model to the front and warns that \"the `--model` option will be removed in a future version\"; write vllm serve MODEL … (or model: in the --config file)")
		out := make([]deploy.Value, 0, len(argv))
		out = append(out, model)
		out = append(out, argv[:i]...)
		return append(out, argv[rest:]...)
	}
	return argv
}

var (
	configWord          = regexp.MustCompile(`^--config(=.+|$)`)
	servedModelNameWord = regexp.MustCompile(`^--served[-_]model[-_]name(=.+|$)`)
)

// checkServedModelName is the second half of step 1.
func (p *parser) checkServedModelName(argv []deploy.Value) {
	if len(argv) == 0 || !argv[0].Known || !strings.HasPrefix(argv[0].Raw, "-") {
		return
	}
	var served *deploy.Value
	for i, w := range argv {
		if !w.Known {
			continue
		}
		if configWord.MatchString(w.Raw) {
			return
		}
		if served == nil && servedModelNameWord.MatchString(w.Raw) {
			served = &argv[i]
		}
	}
	if served == nil {
		return
	}
	name, _, _ := strings.Cut(served.Raw, "=")
	p.issue(deploy.FlagInvalidValue, "--served-model-name", name, subSpan(*served, 0, len(name)), "",
		fmt.Sprintf("vllm serve with --served-model-name and an option (%s) as its first argument raises ValueError: \"`model` should be provided as the first positional argument when using `vllm serve`\"; put the model right after serve", argv[0].Raw))
}

// unexpectedPositional explains an argument no option takes.
func (p *parser) unexpectedPositional(raw string) string {
	if p.t.Program == VLLMServer {
		return fmt.Sprintf("unrecognized argument %s: vllm serve takes one positional argument, the model, and it is already given, so argparse exits", pyQuote(raw))
	}
	return fmt.Sprintf("unrecognized argument %s: %s takes no positional arguments, so argparse exits", pyQuote(raw), p.t.Program)
}
