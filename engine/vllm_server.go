package engine

import "github.com/kvlint/kvlint/deploy"

// vllmServer parses a vLLM launch (ServerFromLaunch for VLLMServer).
//
//   - Model: for `vllm serve`, the positional model (vLLM's model_tag, which
//     ServeSubcommand.cmd copies into model; a --model on the command line
//     was already moved there), else --model (from a --config file's
//     model:). For python -m vllm.entrypoints.openai.api_server, --model:
//     its __main__ parses a positional model_tag but never uses it, which
//     is reported. Unset when nothing names the model (vLLM then serves its
//     default, ModelConfig.model, Qwen/Qwen3-0.6B at 9aaf83ef502f).
//   - Role from --kv-transfer-config (vllm/config/kv_transfer.py): with a
//     kv_connector, kv_role kv_producer is RolePrefill, kv_consumer
//     RoleDecode, and kv_both RoleColocated — a kv_both server both sends
//     and receives KV (llm-d runs prefill and decode pods both as kv_both
//     with NixlConnector, the router deciding who prefills; LMCache offload
//     uses kv_both too), so it serves requests end to end and its place in a
//     split can only come from the deployment around it; rules that need it
//     read Args["--kv-transfer-config.kv_role"]. No --kv-transfer-config, or
//     no kv_connector (is_kv_transfer_instance is false), is RoleColocated;
//     a placeholder or an invalid value leaves Role "".
func vllmServer(l Launch, read ReadFile) (*deploy.Server, Result) {
	api := l.Command.Known && l.Command.Raw == "vllm.entrypoints.openai.api_server"
	res := Lookup(VLLMServer).parse(l.Argv, read, parseOptions{vllmAPIServer: api})
	model, hasFlag := res.Args["--model"]
	if len(res.Positionals) > 0 {
		if api {
			pos := res.Positionals[0]
			res.Issues = append(res.Issues, deploy.FlagIssue{Kind: deploy.FlagInvalidValue, Flag: "model_tag", Written: pos.Raw, Span: pos.Span,
				Message: "python -m vllm.entrypoints.openai.api_server parses a positional model but never uses it (api_server.py __main__ does not copy model_tag into model, as vllm serve does): it does not exit, it serves --model or else vLLM's default model; write --model " + pos.Raw + " or use vllm serve"})
		} else {
			model, hasFlag = res.Positionals[0], true
		}
	}
	if !hasFlag {
		model = deploy.Value{}
	}
	return newVLLMServer(l, res, model), res
}

// newVLLMServer is the vLLM server of launch l whose arguments parsed to
// res, serving model.
func newVLLMServer(l Launch, res Result, model deploy.Value) *deploy.Server {
	return &deploy.Server{
		Engine:      deploy.EngineVLLM,
		Span:        l.Command.Span,
		Args:        res.Args,
		Positionals: res.Positionals,
		FlagIssues:  res.Issues,
		Options:     res.Options,
		Model:       model,
		Role:        vllmRole(res),
		Opaque:      res.Opaque,
		ArgLists:    res.Lists,
	}
}

func vllmRole(res Result) deploy.Role {
	cfg, ok := res.Args["--kv-transfer-config"]
	if !ok {
		return deploy.RoleColocated
	}
	for _, is := range res.Issues {
		if is.Flag == "--kv-transfer-config" && (is.Kind == deploy.FlagInvalidValue || is.Kind == deploy.FlagMissingValue) {
			return ""
		}
	}
	conn, hasConn := res.Args["--kv-transfer-config.kv_connector"]
	role, hasRole := res.Args["--kv-transfer-config.kv_role"]
	switch {
	case hasConn && !conn.Known, hasRole && !role.Known:
		return ""
	case !hasConn && !cfg.Known:
		return "" // the JSON could not be read: it may name a connector
	case !hasConn || conn.Raw == "null":
		return deploy.RoleColocated
	}
	switch role.Raw {
	case "kv_producer":
		return deploy.RolePrefill
	case "kv_consumer":
		return deploy.RoleDecode
	case "kv_both":
		return deploy.RoleColocated
	}
	return ""
}
