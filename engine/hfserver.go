package engine

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// KServe's Hugging Face model server, python -m huggingfaceserver (the
// ENTRYPOINT of the kserve/huggingfaceserver images, and what the
// kserve-huggingfaceserver ClusterServingRuntime runs for an
// InferenceService with modelFormat huggingface), serves the model with
// vLLM unless told otherwise.
//
// kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912
// python/huggingfaceserver/huggingfaceserver/__main__.py: the parser is
// vLLM's FlexibleArgumentParser with kserve.model_server.parser as parent
// (python/kserve/kserve/model_server.py: --http_port, --model_name, …),
// plus the server's own options (--model_dir, --model_id, --backend, …).
// is_vllm_backend_enabled: --backend vllm or auto (the default), when vLLM
// is installed and supports the model's architecture; then
// maybe_add_vllm_cli_parser adds vLLM's make_arg_parser options (the
// engine arguments and vllm serve's API-server options, no positional
// model) and load_model sets args.model = args.model_id or args.model_dir,
// so the model is --model_id, else --model_dir, else /mnt/models, where
// KServe's storage initializer puts the InferenceService's storageUri.
// --backend huggingface runs transformers instead: no paged KV cache, and
// no launch kvlint sizes (Detect does not take it).
const KServeHuggingFace Program = "huggingfaceserver"

// hfOwnFlag is one option of the KServe server's own parsers.
type hfOwnFlag struct {
	value bool // takes a value (every option but the store_true ones)
	// vllm is the vLLM option the server's option sets too (the same
	// argparse dest), "" for none.
	vllm string
}

// hfOwnFlags are kserve.model_server.parser's options and
// huggingfaceserver's own (__main__.py), keyed with underscores: the
// server's parser is vLLM's FlexibleArgumentParser, which reads dashes
// and underscores alike, so both spellings are taken.
var hfOwnFlags = map[string]hfOwnFlag{
	// python/kserve/kserve/model_server.py
	"--http_port": {value: true}, "--grpc_port": {value: true}, "--workers": {value: true},
	"--max_threads": {value: true}, "--max_asyncio_workers": {value: true},
	"--enable_grpc": {value: true}, "--enable_docs_url": {value: true}, "--enable_latency_logging": {value: true},
	"--configure_logging": {value: true}, "--log_config_file": {value: true}, "--access_log_format": {value: true},
	"--event_loop": {value: true}, "--timeout_keep_alive": {value: true},
	"--model_name": {value: true}, "--predictor_host": {value: true}, "--protocol": {value: true},
	"--predictor_protocol": {value: true}, "--predictor_use_ssl": {value: true},
	"--predictor_request_timeout_seconds": {value: true},
	"--grpc_max_send_message_length":      {value: true}, "--grpc_max_receive_message_length": {value: true},
	"--predictor_request_retries": {value: true}, "--enable_predictor_health_check": {},
	// python/huggingfaceserver/huggingfaceserver/__main__.py
	"--model_dir": {value: true}, "--model_id": {value: true}, "--model_revision": {value: true},
	"--tokenizer_revision": {value: true},
	// --max_length stores into max_model_len, which vLLM reads as
	// --max-model-len.
	"--max_length":         {value: true, vllm: "--max-model-len"},
	"--disable_lower_case": {}, "--disable_special_tokens": {}, "--tensor_input_names": {value: true},
	"--backend": {value: true}, "--return_token_type_ids": {}, "--return_offsets_mapping": {},
	"--return_probabilities": {}, "--return_raw_logits": {}, "--disable_log_requests": {},
}

// hfModelDir is huggingfaceserver's --model_dir default (__main__.py),
// KServe's model mount.
const hfModelDir = "/mnt/models"

// hfArg is one of the server's own options as written.
type hfArg struct {
	name    string       // the key of hfOwnFlags
	written deploy.Value // the option string
	value   deploy.Value // its value (the option itself for a store_true)
}

// splitHF takes the server's own options out of argv, as its
// parse_known_args does; the rest, in order, is vLLM's. An option that
// also sets a vLLM option is handed on under vLLM's name.
func splitHF(argv []deploy.Value) (own []hfArg, rest []deploy.Value) {
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		name, _, hasEq := strings.Cut(w.Raw, "=")
		// An option whose value is a placeholder (KServe's
		// --model_name={{.Name}}) is still the option its name says.
		if !strings.HasPrefix(w.Raw, "--") || (!w.Known && (!hasEq || hasPlaceholder(name))) {
			rest = append(rest, w)
			continue
		}
		key := "--" + strings.ReplaceAll(name[2:], "-", "_")
		f, ok := hfOwnFlags[key]
		if !ok {
			rest = append(rest, w)
			continue
		}
		a := hfArg{name: key, written: part(w, 0, len(name)), value: deploy.Known("true", w.Span)}
		switch {
		case f.value && hasEq && !w.Known:
			v := part(w, len(name)+1, len(w.Raw))
			a.value = deploy.Value{Raw: v.Raw, Span: v.Span, Origin: v.Origin}
		case f.value && hasEq:
			a.value = part(w, len(name)+1, len(w.Raw))
		case f.value && i+1 < len(argv):
			i++
			a.value = argv[i]
		case f.value:
			a.value = deploy.Value{}
		}
		own = append(own, a)
		if f.vllm != "" && a.value.IsSet() {
			rest = append(rest, deploy.Value{Raw: f.vllm, Known: true, Span: a.written.Span, Origin: a.written.Origin}, a.value)
		}
	}
	return own, rest
}

// hfBackend is the --backend in force (the last), and whether one was given.
func hfBackend(own []hfArg) (deploy.Value, bool) {
	var v deploy.Value
	found := false
	for _, a := range own {
		if a.name == "--backend" {
			v, found = a.value, true
		}
	}
	return v, found
}

// hfRunsVLLM reports whether a huggingfaceserver command line serves with
// vLLM: --backend vllm or auto, or none given (auto). A backend kvlint
// cannot read (a placeholder) is taken as the default's vLLM, which the
// server's own default and KServe's runtimes use.
func hfRunsVLLM(argv []deploy.Value) bool {
	own, _ := splitHF(argv)
	b, ok := hfBackend(own)
	return !ok || !b.Known || b.Raw != "huggingface"
}

// hfServer parses a huggingfaceserver launch (ServerFromLaunch).
func hfServer(l Launch, read ReadFile) (*deploy.Server, Result) {
	own, rest := splitHF(l.Argv)
	res := Lookup(VLLMServer).parse(rest, read, parseOptions{vllmAPIServer: true})
	for i := range res.Issues {
		if res.Issues[i].Kind == deploy.FlagUnknown {
			res.Issues[i].Message = fmt.Sprintf("python -m huggingfaceserver hands the options its own parsers do not take to vLLM's (kserve python/huggingfaceserver/huggingfaceserver/__main__.py, maybe_add_vllm_cli_parser): %s", res.Issues[i].Message)
		}
	}
	for _, a := range own {
		res.Args[a.name] = a.value
	}
	return newVLLMServer(l, res, hfModel(l, own, res.Opaque)), res
}

// hfModel is what load_model serves: --model_id, else --model_dir, else
// the default /mnt/models (spanning the program word, where an option
// would be added). A word kvlint cannot read where an option could stand
// may set either, so the model is then unknown, spanning that word.
func hfModel(l Launch, own []hfArg, opaque []deploy.Value) deploy.Value {
	var id, dir deploy.Value
	for _, a := range own {
		switch a.name {
		case "--model_id":
			id = a.value
		case "--model_dir":
			dir = a.value
		}
	}
	switch {
	case id.IsSet():
		return id
	case len(opaque) > 0:
		return deploy.Value{Raw: opaque[0].Raw, Span: opaque[0].Span, Origin: opaque[0].Origin}
	case dir.IsSet():
		return dir
	}
	v := deploy.Known(hfModelDir, l.Command.Span)
	v.Origin = v.Origin.Add(deploy.Step{Kind: deploy.StepImage, Text: "huggingfaceserver's --model_dir default, " + hfModelDir})
	return v
}

// HFTransformers finds python -m huggingfaceserver run with --backend
// huggingface in the words of a command (which Detect does not take for a
// launch) and returns the backend's value, for the parsers to say why the
// server is not sized rather than pass it by in silence.
func HFTransformers(words []deploy.Value) (deploy.Value, bool) {
	for j := 1; j < len(words); j++ {
		if !words[j].Known || words[j].Raw != string(KServeHuggingFace) || !words[j-1].Known || words[j-1].Raw != "-m" {
			continue
		}
		own, _ := splitHF(words[j+1:])
		if b, ok := hfBackend(own); ok && b.Known && b.Raw == "huggingface" {
			return b, true
		}
		return deploy.Value{}, false
	}
	return deploy.Value{}, false
}
