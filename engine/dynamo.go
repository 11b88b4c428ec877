package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/kvlint/kvlint/deploy"
)

// NVIDIA Dynamo runs SGLang and vLLM as workers behind its own frontend:
//
//   - python -m dynamo.sglang ARGS: components/src/dynamo/sglang/args.py
//     parse_args (ai-dynamo/dynamo 010ba7526f5a) builds a parser of Dynamo's
//     runtime and SGLang groups, takes its own flags with parse_known_args,
//     takes the worker's router flags with parse_worker_router_config, and
//     parses what is left with sglang_only_parser.parse_args, a parser that
//     ServerArgs.add_cli_args filled: a flag neither knows stops the worker.
//   - python -m dynamo.vllm ARGS: components/src/dynamo/vllm/args.py
//     parse_args (000a36a7399a) does the same with allow_abbrev=False and a
//     FlexibleArgumentParser that AsyncEngineArgs.add_cli_args filled: the
//     engine arguments, not vllm serve's API-server options (--port,
//     --host, …), and no positional model.
//   - python -m dynamo.frontend: the HTTP frontend, which routes to the
//     workers it discovers (frontend.go).
//
// Dynamo's own flags are data (data/dynamo_worker.tsv, each row citing its
// file and commit): they are taken out of the command line first, as
// parse_known_args does, and the rest is parsed with the engine's table, so a
// misspelt engine flag is still reported.
const (
	DynamoSGLang   Program = "dynamo.sglang"
	DynamoVLLM     Program = "dynamo.vllm"
	DynamoFrontend Program = "dynamo.frontend"
)

// dynamoFlag is one option a Dynamo worker parses itself.
type dynamoFlag struct {
	name    string
	kind    string // value, bool, list, optional, frontend
	typ     string // str, int, float
	choices []string
	forward bool // the worker also hands it to the engine
	source  string
}

var (
	dynamoOnce  sync.Once
	dynamoFlags map[Program]map[string]*dynamoFlag // option string (--x, and --no-x for bool) → flag
	dynamoErr   error
	// vllmServeOnly are vllm serve's API-server options
	// (vllm/entrypoints/openai/cli_args.py), which AsyncEngineArgs does not
	// register.
	vllmServeOnly map[string]bool
)

func loadDynamo() {
	rows, err := tsvRows("data/dynamo_worker.tsv")
	if err != nil {
		dynamoErr = err
		return
	}
	dynamoFlags = map[Program]map[string]*dynamoFlag{DynamoSGLang: {}, DynamoVLLM: {}}
	for _, r := range rows {
		f := &dynamoFlag{name: r["flag"], kind: r["kind"], typ: r["type"], forward: r["forward"] == "yes", source: r["source"]}
		if c := r["choices"]; c != "" {
			f.choices = strings.Split(c, "|")
		}
		for _, w := range strings.Split(r["workers"], ",") {
			p := map[string]Program{"sglang": DynamoSGLang, "vllm": DynamoVLLM}[w]
			if p == "" {
				dynamoErr = fmt.Errorf("data/dynamo_worker.tsv: %s: unknown worker %q", f.name, w)
				return
			}
			dynamoFlags[p][f.name] = f
			if f.kind == "bool" {
				dynamoFlags[p]["--no-"+strings.TrimPrefix(f.name, "--")] = f
			}
		}
	}
	serve, err := tsvRows("data/vllm_serve.tsv")
	if err != nil {
		dynamoErr = err
		return
	}
	vllmServeOnly = map[string]bool{}
	for _, r := range serve {
		if r["file"] == "vllm/entrypoints/openai/cli_args.py" {
			for _, n := range strings.Split(r["names"], ",") {
				vllmServeOnly[n] = true
			}
		}
	}
}

func dynamoTable(p Program) map[string]*dynamoFlag {
	dynamoOnce.Do(loadDynamo)
	if dynamoErr != nil {
		panic(dynamoErr) // embedded data, covered by tests
	}
	return dynamoFlags[p]
}

// dynamoArg is one of Dynamo's own flags as written.
type dynamoArg struct {
	flag    *dynamoFlag
	written deploy.Value // the option word (or its name part, for --x=v)
	value   deploy.Value // what the flag stores, with the span of its value
}

// splitDynamo takes a worker's own flags out of argv, as its first
// parse_known_args does: an exact option string of Dynamo's parser (the
// vLLM worker's parser has allow_abbrev=False; the SGLang worker's prefixes
// are not modelled) and the words it consumes. Everything else, in order,
// is left for the engine; a flag marked forward stays there too.
func splitDynamo(p Program, argv []deploy.Value) (own []dynamoArg, rest []deploy.Value, issues []deploy.FlagIssue) {
	table := dynamoTable(p)
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		if !w.Known || !strings.HasPrefix(w.Raw, "--") {
			rest = append(rest, w)
			continue
		}
		name, val, hasEq := strings.Cut(w.Raw, "=")
		f, ok := table[name]
		if !ok {
			rest = append(rest, w)
			continue
		}
		written := part(w, 0, len(name))
		if f.kind == "frontend" {
			// Not the worker's: the engine's parser gets it and exits. It is
			// reported once, here, and kept from the engine's parse.
			issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagUnknown, Flag: name, Written: name, Span: written.Span,
				Message: fmt.Sprintf("%s is an option of python -m dynamo.frontend (components/src/dynamo/frontend/frontend_args.py), not of the %s worker, which hands it to %s's parser: argparse exits (\"unrecognized arguments: %s\"); set it on the frontend",
					name, p, dynamoEngine(p).engineName(), name)})
			if !hasEq && i+1 < len(argv) && !looksLikeOption(argv[i+1]) {
				i++
			}
			continue
		}
		if f.forward {
			rest = append(rest, w)
		}
		a := dynamoArg{flag: f, written: written}
		switch f.kind {
		case "bool":
			if hasEq {
				issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagInvalidValue, Flag: f.name, Written: name, Span: w.Span,
					Message: fmt.Sprintf("%s takes no value: argparse exits (\"ignored explicit argument '%s'\")", name, val)})
				continue
			}
			on := !strings.HasPrefix(name, "--no-")
			a.value = deploy.Value{Raw: strconv.FormatBool(on), Known: true, Span: w.Span, Origin: w.Origin, Typed: deploy.TypedBool(on)}
		case "value", "optional":
			switch {
			case hasEq:
				a.value = part(w, len(name)+1, len(w.Raw))
			case i+1 < len(argv) && !looksLikeOption(argv[i+1]):
				i++
				a.value = argv[i]
				if f.forward {
					rest = append(rest, argv[i])
				}
			case f.kind == "optional":
				a.value = deploy.Value{Raw: "true", Known: true, Span: w.Span, Origin: w.Origin}
			default:
				issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagMissingValue, Flag: f.name, Written: name, Span: w.Span,
					Message: fmt.Sprintf("%s expects one argument: %s's parser exits (\"expected one argument\")", name, p)})
				continue
			}
			if is, ok := f.check(name, a.value); !ok {
				issues = append(issues, is)
			} else {
				a.value.Typed = f.typed(a.value)
			}
		case "list":
			var items []deploy.Value
			if hasEq {
				items = append(items, part(w, len(name)+1, len(w.Raw)))
			}
			for !hasEq && i+1 < len(argv) && !looksLikeOption(argv[i+1]) {
				i++
				items = append(items, argv[i])
			}
			a.value = joinWords(w, items)
		}
		own = append(own, a)
	}
	return own, rest, issues
}

// looksLikeOption is argparse's test for a word that starts an option
// rather than being a value: a leading '-' that is not a negative number.
func looksLikeOption(w deploy.Value) bool {
	if !w.Known || !strings.HasPrefix(w.Raw, "-") || w.Raw == "-" {
		return false
	}
	_, err := strconv.ParseFloat(w.Raw, 64)
	return err != nil
}

// joinWords is a list flag's value: its items joined by spaces, spanning
// from the first to the last (the flag itself when there are none).
func joinWords(flag deploy.Value, items []deploy.Value) deploy.Value {
	if len(items) == 0 {
		return deploy.Value{Raw: "", Known: true, Span: flag.Span, Origin: flag.Origin, Typed: deploy.TypedList()}
	}
	v := deploy.Value{Known: true, Span: joinSpans(items[0].Span, items[len(items)-1].Span), Origin: items[0].Origin}
	var raw []string
	var typed []deploy.Typed
	for _, it := range items {
		raw = append(raw, it.Raw)
		typed = append(typed, deploy.TypedString(it.Raw))
		v.Known = v.Known && it.Known
	}
	v.Raw = strings.Join(raw, " ")
	if v.Known {
		v.Typed = deploy.TypedList(typed...)
	}
	return v
}

// check validates a value against the flag's type and choices as argparse
// would (type conversion first, then choices).
func (f *dynamoFlag) check(written string, v deploy.Value) (deploy.FlagIssue, bool) {
	if !v.Known {
		return deploy.FlagIssue{}, true
	}
	bad := func(why string) (deploy.FlagIssue, bool) {
		return deploy.FlagIssue{Kind: deploy.FlagInvalidValue, Flag: f.name, Written: written, Span: v.Span,
			Message: fmt.Sprintf("%s %s: %s, so Dynamo's parser exits (%s)", written, pyQuote(v.Raw), why, f.sourceFile())}, false
	}
	switch f.typ {
	case "int":
		if _, err := strconv.ParseInt(strings.TrimSpace(v.Raw), 10, 64); err != nil {
			return bad("not an int")
		}
	case "float":
		if _, err := strconv.ParseFloat(strings.TrimSpace(v.Raw), 64); err != nil {
			return bad("not a float")
		}
	}
	if len(f.choices) > 0 {
		for _, c := range f.choices {
			if c == v.Raw {
				return deploy.FlagIssue{}, true
			}
		}
		return bad("not one of " + strings.Join(f.choices, ", "))
	}
	return deploy.FlagIssue{}, true
}

func (f *dynamoFlag) typed(v deploy.Value) deploy.Typed {
	if !v.Known {
		return deploy.Typed{}
	}
	switch f.typ {
	case "int":
		n, _ := strconv.ParseInt(strings.TrimSpace(v.Raw), 10, 64)
		return deploy.TypedInt(n)
	case "float":
		x, _ := strconv.ParseFloat(strings.TrimSpace(v.Raw), 64)
		return deploy.TypedFloat(x)
	}
	return deploy.TypedString(v.Raw)
}

// sourceFile names the Dynamo file that defines the flag.
func (f *dynamoFlag) sourceFile() string {
	switch f.source {
	case "sglang_backend":
		return "components/src/dynamo/sglang/backend_args.py"
	case "sglang_args":
		return "components/src/dynamo/sglang/args.py"
	case "vllm_backend":
		return "components/src/dynamo/vllm/backend_args.py"
	case "router":
		return "components/src/dynamo/common/configuration/groups/router_args.py"
	case "kv_router":
		return "components/src/dynamo/common/configuration/groups/kv_router_args.py"
	}
	return "components/src/dynamo/common/configuration/groups/runtime_args.py"
}

// dynamoEngine is the engine program whose parser gets a worker's rest.
func dynamoEngine(p Program) Program {
	if p == DynamoVLLM {
		return VLLMServer
	}
	return SGLangServer
}

// dynamoServer parses a Dynamo launch (ServerFromLaunch).
func dynamoServer(l Launch, read ReadFile) (*deploy.Server, Result) {
	if l.Program == DynamoFrontend {
		return frontendServer(l)
	}
	own, rest, pre := splitDynamo(l.Program, l.Argv)
	var srv *deploy.Server
	var res Result
	if l.Program == DynamoVLLM {
		var serveOnly []deploy.FlagIssue
		rest, serveOnly = dropServeOnly(rest)
		pre = append(pre, serveOnly...)
		// Parsed as python -m vllm.entrypoints.openai.api_server parses:
		// no serve subcommand moves --model in front.
		res = Lookup(VLLMServer).parse(rest, read, parseOptions{vllmAPIServer: true})
		res.Issues = append(res.Issues, dynamoPositional(res.Positionals)...)
		srv = &deploy.Server{
			Engine:      deploy.EngineVLLM,
			Span:        l.Command.Span,
			Args:        res.Args,
			Positionals: res.Positionals,
			Model:       res.Args["--model"],
			Opaque:      res.Opaque,
			ArgLists:    res.Lists,
		}
	} else {
		srv, res = ServerFromLaunch(Launch{Program: SGLangServer, Command: l.Command, Argv: rest}, read)
	}
	for i := range res.Issues {
		if res.Issues[i].Kind == deploy.FlagUnknown {
			res.Issues[i].Message = fmt.Sprintf("python -m %s hands the flags its own parser does not take to %s's parser (parse_known_args, then parse_args): %s",
				l.Program, dynamoEngine(l.Program).engineName(), res.Issues[i].Message)
		}
	}
	res.Issues = append(pre, res.Issues...)
	srv.FlagIssues = res.Issues
	for _, a := range own {
		if _, taken := res.Args[a.flag.name]; !taken || !a.flag.forward {
			res.Args[a.flag.name] = a.value
		}
	}
	srv.Args = res.Args
	srv.Dynamo = true
	if l.Program == DynamoVLLM {
		srv.Role = dynamoVLLMRole(own)
	} else {
		srv.Role = dynamoSGLangRole(srv)
	}
	res.Issues = srv.FlagIssues
	return srv, res
}

// dropServeOnly removes vllm serve's API-server options, which the Dynamo
// vLLM worker's engine parser does not have, and reports each.
func dropServeOnly(argv []deploy.Value) ([]deploy.Value, []deploy.FlagIssue) {
	t := Lookup(VLLMServer)
	var out []deploy.Value
	var issues []deploy.FlagIssue
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		name, _, hasEq := strings.Cut(w.Raw, "=")
		if !w.Known || !strings.HasPrefix(w.Raw, "--") || !vllmServeOnly[name] {
			out = append(out, w)
			continue
		}
		written := part(w, 0, len(name))
		issues = append(issues, deploy.FlagIssue{Kind: deploy.FlagUnknown, Flag: name, Written: name, Span: written.Span,
			Message: fmt.Sprintf("%s is an option of vllm serve's API server (vllm/entrypoints/openai/cli_args.py), not an engine argument: python -m dynamo.vllm parses what it does not take itself with AsyncEngineArgs.add_cli_args only, so argparse exits (\"unrecognized arguments: %s\"); the Dynamo frontend serves HTTP", name, name)})
		if f, ok := t.Flag(name); ok && f.TakesValue() && !hasEq && i+1 < len(argv) && !looksLikeOption(argv[i+1]) {
			i++
		}
	}
	return out, issues
}

// dynamoPositional reports the words the vLLM worker's parsers leave:
// neither Dynamo's parser nor AsyncEngineArgs' takes a positional model.
func dynamoPositional(pos []deploy.Value) []deploy.FlagIssue {
	if len(pos) == 0 {
		return nil
	}
	w := pos[0]
	return []deploy.FlagIssue{{Kind: deploy.FlagUnknown, Flag: w.Raw, Written: w.Raw, Span: w.Span,
		Message: fmt.Sprintf("python -m dynamo.vllm takes no positional model (its parsers are Dynamo's and AsyncEngineArgs.add_cli_args'), so argparse exits (\"unrecognized arguments: %s\"); write --model %s", w.Raw, w.Raw)}}
}

// dynamoVLLMRole is the worker's part as DynamoVllmConfig
// _resolve_disaggregation_mode decides it (backend_args.py d195d280e13e):
// --disaggregation-mode when given, else the deprecated
// --is-prefill-worker / --is-decode-worker, else aggregated.
func dynamoVLLMRole(own []dynamoArg) deploy.Role {
	var mode *dynamoArg
	prefill, decode := false, false
	for i := range own {
		a := &own[i]
		switch a.flag.name {
		case "--disaggregation-mode":
			mode = a
		case "--is-prefill-worker":
			prefill, _ = a.value.Typed.Bool()
		case "--is-decode-worker":
			decode, _ = a.value.Typed.Bool()
		}
	}
	if mode != nil {
		m, ok := mode.value.Typed.Str()
		if !ok || prefill || decode {
			return "" // unknown, rejected, or combined with a legacy flag (validate raises)
		}
		switch m {
		case "prefill":
			return deploy.RolePrefill
		case "decode":
			return deploy.RoleDecode
		}
		return deploy.RoleColocated
	}
	switch {
	case prefill && decode:
		return ""
	case prefill:
		return deploy.RolePrefill
	case decode:
		return deploy.RoleDecode
	}
	return deploy.RoleColocated
}

// dynamoSGLangRole reads SGLang's --disaggregation-mode after the worker's
// normalisation (sglang/args.py 010ba7526f5a
// _normalize_multimodal_disaggregation_args): "agg" and "pd" become "null",
// and "encode" is removed (a multimodal encode worker), all of them serving
// without a PD split. SGLang itself rejects those words, so the invalid-value
// issue its table raised is dropped.
func dynamoSGLangRole(srv *deploy.Server) deploy.Role {
	v, ok := srv.Args["--disaggregation-mode"]
	if !ok || !v.Known {
		return srv.Role
	}
	switch v.Raw {
	case "agg", "pd", "encode":
	default:
		return srv.Role
	}
	kept := srv.FlagIssues[:0]
	for _, is := range srv.FlagIssues {
		if !(is.Flag == "--disaggregation-mode" && is.Kind == deploy.FlagInvalidValue) {
			kept = append(kept, is)
		}
	}
	srv.FlagIssues = kept
	v.Typed = deploy.TypedString("null")
	srv.Args["--disaggregation-mode"] = v
	return deploy.RoleColocated
}
