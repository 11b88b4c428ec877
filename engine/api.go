// Package engine knows the command-line interfaces of the serving engines:
// every flag of each program as data, argv parsing with the engine's own
// (argparse) semantics, and recognising a launch inside a command line.
package engine

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// Program identifies a command-line interface whose flags kvlint knows.
type Program string

const (
	SGLangServer Program = "sglang.launch_server" // also `sglang serve`
	SGLangRouter Program = "sglang_router.launch_router"
	// SGLangRouterServer is sglang_router.launch_server (also `smg server`):
	// data-parallel SGLang servers plus a router in one command. It takes the
	// server flags and the router flags with a "router-" prefix, and it does
	// not read --config (sglang_router/launch_server.py main).
	SGLangRouterServer Program = "sglang_router.launch_server"
	// VLLMServer is vLLM's OpenAI-compatible server: `vllm serve [MODEL]`
	// and `python -m vllm.entrypoints.openai.api_server`, which share one
	// parser (vllm/entrypoints/openai/cli_args.py make_arg_parser).
	VLLMServer Program = "vllm serve"
)

// Engine is the deploy.Engine a program runs as.
func (p Program) Engine() deploy.Engine {
	switch p {
	case SGLangRouter:
		return deploy.EngineSGLangRouter
	case VLLMServer, DynamoVLLM, KServeHuggingFace:
		return deploy.EngineVLLM
	case DynamoFrontend:
		return deploy.EngineDynamoFrontend
	default:
		return deploy.EngineSGLang
	}
}

// Launch is a recognised engine launch inside a command line.
type Launch struct {
	Program Program
	// Command is the word that names the program (python3 -m sglang.launch_server
	// → the "sglang.launch_server" word; sglang serve → "sglang"). Its span is
	// the server's span.
	Command deploy.Value
	// Argv is everything after the program that belongs to it: its options and
	// their values, in order.
	Argv []deploy.Value
}

// ReadFile reads a file named on a command line (--config FILE). The path is as
// written; the caller resolves it relative to what it knows (the script's
// directory, the repository root) and returns an error when it can't.
// The returned name is used in spans.
type ReadFile func(path string) (name string, data []byte, err error)

// Result is the outcome of parsing one program's argv.
type Result struct {
	Args        map[string]deploy.Value // canonical name → value in force
	Positionals []deploy.Value
	Issues      []deploy.FlagIssue
	Errors      []*diag.Diagnostic // e.g. a --config file that can't be read or parsed
	// Opaque are words that could not be resolved where an option could
	// stand (an unexpanded "$EXTRA_ARGS"): they may hold any flags, so a
	// flag's absence from Args is not proof that it is unset.
	Opaque []deploy.Value
	// Lists holds, for flags that take several values (nargs '+', '*', N, or
	// action append such as the router's --prefill URL [PORT]), each item
	// with its own span: one inner slice per occurrence in force (the last
	// one for a store action, every one for append). Args carries the same
	// items joined by single spaces.
	Lists map[string][][]deploy.Value
	// Options are the options as written, in order (Server.Options).
	Options []deploy.WrittenOption
}
