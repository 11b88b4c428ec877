package engine

import (
	"path"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// Server recognises an engine launch in the words of one simple command and
// parses it into a deploy.Server. It is the one entry point every source
// parser (shell, Dockerfile, compose, Kubernetes) calls, so its contract is:
//
//   - ok=false: the words are not a launch kvlint knows (nothing else is
//     returned);
//   - Engine is the program's engine; Span is the program word's span;
//   - Args, Positionals and FlagIssues come from Table.Parse (canonical
//     flag names; see Parse for every rule);
//   - Model is Args["--model-path"] (for `sglang serve MODEL` the
//     positional model, which sglang serve turns into --model-path); for
//     vLLM see vllmServer;
//   - Role: the router is RoleRouter. A server is RolePrefill or RoleDecode
//     for --disaggregation-mode prefill|decode, RoleColocated for "null" or
//     when the flag is absent. When the mode is a placeholder, or a value
//     argparse rejects, Role is "" (unknown): rules must not guess it.
//     Absence counts as colocated even when placeholders (Result.Opaque)
//     could hold the flag;
//   - Name, Source, GPU, GPUCount, Replicas, Image, Labels are left to the
//     caller.
//
// The errors are input kvlint could not analyse (an unreadable --config
// file); they come with the server, which is still returned.
//
// Result.Opaque and Result.Lists become Server.Opaque and Server.ArgLists.
func Server(words []deploy.Value, read ReadFile) (*deploy.Server, []*diag.Diagnostic, bool) {
	l, ok := Detect(words)
	if !ok {
		return nil, nil, false
	}
	srv, res := ServerFromLaunch(l, read)
	return srv, res.Errors, true
}

// ServerFromLaunch parses a detected launch and returns the server with the
// full parse result (Opaque and Lists included).
func ServerFromLaunch(l Launch, read ReadFile) (*deploy.Server, Result) {
	switch l.Program {
	case VLLMServer:
		return vllmServer(l, read)
	case DynamoSGLang, DynamoVLLM, DynamoFrontend:
		return dynamoServer(l, read)
	case KServeHuggingFace:
		return hfServer(l, read)
	}
	t := Lookup(l.Program)
	argv := l.Argv
	var pre []deploy.FlagIssue
	var modelType *deploy.Value
	if l.Program == SGLangServer && l.Command.Known && path.Base(l.Command.Raw) == "sglang" {
		argv, modelType, pre = serveArgv(argv)
	}
	res := t.Parse(argv, read)
	res.Issues = append(pre, res.Issues...)
	if modelType != nil {
		res.Args["--model-type"] = *modelType
	}
	srv := &deploy.Server{
		Engine:      l.Program.Engine(),
		Span:        l.Command.Span,
		Args:        res.Args,
		Positionals: res.Positionals,
		FlagIssues:  res.Issues,
		Options:     res.Options,
		Model:       res.Args["--model-path"],
		Role:        role(l.Program, res.Args),
		Routes:      routes(l.Program, res.Args),
		Opaque:      res.Opaque,
		ArgLists:    res.Lists,
	}
	return srv, res
}

// routes are the destinations a router names; nil for other programs.
func routes(p Program, args map[string]deploy.Value) []deploy.Route {
	if p != SGLangRouter {
		return nil
	}
	return routerRoutes(args)
}

// role derives a server's part in a PD deployment (server_args.py
// disaggregation_mode: Literal["null", "prefill", "decode"]).
func role(p Program, args map[string]deploy.Value) deploy.Role {
	if p == SGLangRouter {
		return deploy.RoleRouter
	}
	mode, ok := args["--disaggregation-mode"]
	if !ok {
		return deploy.RoleColocated
	}
	m, _ := mode.Typed.Str() // "" for a placeholder or a rejected value
	switch m {
	case "prefill":
		return deploy.RolePrefill
	case "decode":
		return deploy.RoleDecode
	case "null":
		return deploy.RoleColocated
	}
	return ""
}

// isPositionalModel reports whether sglang serve takes w as its model. A
// known word qualifies when it does not start with '-'. A placeholder
// qualifies only when its text names a model ("$MODEL_PATH",
// "{{ .Values.model }}"): "$@" or "$EXTRA_ARGS" may expand to flags.
func isPositionalModel(w deploy.Value) bool {
	if w.Known {
		return !strings.HasPrefix(w.Raw, "-")
	}
	return !strings.HasPrefix(w.Raw, "-") && strings.Contains(strings.ToLower(w.Raw), "model")
}

// serveArgv applies what `sglang serve` does before the server's parser
// (python/sglang/cli/serve.py at modal-projects/sglang 8905cbd4):
// _extract_model_type_override removes "--model-type X" / "--model-type=X"
// (exact spelling; auto|llm|diffusion), then _normalize_positional_model_path
// turns a first word that does not start with '-' into --model-path.
func serveArgv(argv []deploy.Value) ([]deploy.Value, *deploy.Value, []deploy.FlagIssue) {
	var out []deploy.Value
	var modelType *deploy.Value
	var issues []deploy.FlagIssue
	check := func(v deploy.Value) {
		modelType = &v
		if v.Known && (v.Raw == "auto" || v.Raw == "llm" || v.Raw == "diffusion") {
			v.Typed = deploy.TypedString(v.Raw)
		}
		if v.Known && v.Raw != "auto" && v.Raw != "llm" && v.Raw != "diffusion" {
			issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagInvalidValue, Flag: "--model-type", Written: "--model-type", Span: v.Span,
				Message: "sglang serve accepts --model-type auto, llm or diffusion; " + pyQuote(v.Raw) + " makes it exit (cli/serve.py _extract_model_type_override)"})
		}
	}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case w.Known && w.Raw == "--model-type":
			if i+1 >= len(argv) {
				issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagMissingValue, Flag: "--model-type", Written: w.Raw, Span: w.Span,
					Message: "sglang serve: --model-type requires a value (auto, llm or diffusion)"})
				continue
			}
			check(argv[i+1])
			i++
		case w.Known && strings.HasPrefix(w.Raw, "--model-type="):
			check(part(w, len("--model-type="), len(w.Raw)))
		default:
			out = append(out, w)
		}
	}
	if len(out) > 0 && isPositionalModel(out[0]) {
		model := out[0]
		flag := deploy.Value{Raw: "--model-path", Known: true, Span: model.Span, Origin: model.Origin}
		out = append([]deploy.Value{flag, model}, out[1:]...)
	}
	return out, modelType, issues
}
