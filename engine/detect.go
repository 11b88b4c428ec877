package engine

import (
	"path"
	"regexp"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// Detect recognises an engine launch in the words of one simple command and
// returns the program, the word that names it, and its argv.
//
// Recognised, after any wrappers (below):
//   - python, python3, python3.11, /usr/bin/python3 … with interpreter
//     options (-u, -O, -X opt, -W arg, combined as in -uB) and
//     -m sglang.launch_server | sglang_router.launch_router |
//     sglang_router.launch_server | sglang_router launch|server
//     (the module word is the Command);
//   - sglang serve (the "sglang" word is the Command);
//   - vllm serve (the "vllm" word is the Command), python -m
//     vllm.entrypoints.openai.api_server (the module word), and python -m
//     vllm.entrypoints.cli.main serve (the module word);
//   - python -m huggingfaceserver, KServe's Hugging Face server, unless
//     --backend huggingface (hfserver.go);
//   - smg / amg / sglang-router launch|server (sglang_router/cli.py);
//   - torchrun <opts> -m module …, python -m torch.distributed.run|launch
//     <opts> -m module …, and torchrun --no-python sglang serve ….
//
// Wrappers skipped: environment assignments (A=b cmd), env [opts] [A=b]…,
// exec, nohup, numactl, taskset, stdbuf, timeout, nice, setsid, time,
// sudo, uv run, srun, mpirun, mpiexec. A placeholder where the program word should be is not a
// launch.
func Detect(words []deploy.Value) (Launch, bool) {
	return detectAt(words, 0, 0)
}

// maxWrapperDepth bounds wrapper nesting (exec env nohup numactl python …).
const maxWrapperDepth = 32

func detectAt(words []deploy.Value, i, depth int) (Launch, bool) {
	if depth > maxWrapperDepth {
		return Launch{}, false
	}
	for i < len(words) && isAssignment(words[i]) {
		i++
	}
	if i >= len(words) || !words[i].Known {
		return Launch{}, false
	}
	prog := path.Base(words[i].Raw)
	if skip, ok := wrappers[prog]; ok {
		j, ok := skip(words, i+1)
		if !ok {
			return Launch{}, false
		}
		if prog == "uv" && j < len(words) && words[j].Known {
			// `uv run -m module` runs the module with uv's python.
			switch words[j].Raw {
			case "-m":
				return detectPython(words, j, depth)
			case "--module":
				if j+1 < len(words) {
					return detectModule(words, words[j+1], j+2, depth)
				}
				return Launch{}, false
			}
		}
		return detectAt(words, j, depth+1)
	}
	switch {
	case pythonName.MatchString(prog):
		return detectPython(words, i+1, depth)
	case prog == "sglang":
		if sub, ok := wordAt(words, i+1); ok && sub == "serve" {
			return launch(SGLangServer, words[i], words[i+2:]), true
		}
	case prog == "vllm":
		// vllm/entrypoints/cli/main.py: the `vllm` console script's
		// subcommands; serve runs the OpenAI-compatible server.
		if sub, ok := wordAt(words, i+1); ok && sub == "serve" {
			return launch(VLLMServer, words[i], words[i+2:]), true
		}
	case prog == "smg" || prog == "amg" || prog == "sglang-router":
		return routerCLI(words, i, words[i])
	case prog == "torchrun":
		return detectTorchrun(words, i+1, depth)
	}
	return Launch{}, false
}

func launch(p Program, cmd deploy.Value, argv []deploy.Value) Launch {
	return Launch{Program: p, Command: cmd, Argv: argv}
}

// routerCLI reads sglang_router/cli.py main: "launch" runs the router,
// "server" the router with data-parallel servers (their argv follow).
func routerCLI(words []deploy.Value, i int, cmd deploy.Value) (Launch, bool) {
	sub, ok := wordAt(words, i+1)
	switch {
	case ok && sub == "launch":
		return launch(SGLangRouter, cmd, words[i+2:]), true
	case ok && sub == "server":
		return launch(SGLangRouterServer, cmd, words[i+2:]), true
	}
	return Launch{}, false
}

// wordAt returns the known text of words[i].
func wordAt(words []deploy.Value, i int) (string, bool) {
	if i < 0 || i >= len(words) || !words[i].Known {
		return "", false
	}
	return words[i].Raw, true
}

var (
	pythonName = regexp.MustCompile(`^python[0-9.]*$`)
	assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// isAssignment reports a shell "NAME=value" prefix word; the value may be a
// placeholder, the name may not.
func isAssignment(w deploy.Value) bool {
	m := assignment.FindString(w.Raw)
	return m != "" && !hasPlaceholder(m)
}

// modules maps `python -m` module names to programs.
var modules = map[string]Program{
	"sglang.launch_server":        SGLangServer,
	"sglang_router.launch_router": SGLangRouter,
	"sglang_router.launch_server": SGLangRouterServer,
	// vllm/entrypoints/openai/api_server.py __main__: make_arg_parser, the
	// same parser as vllm serve, without the subcommand.
	"vllm.entrypoints.openai.api_server": VLLMServer,
	// NVIDIA Dynamo's workers and frontend (dynamo.go).
	"dynamo.sglang":   DynamoSGLang,
	"dynamo.vllm":     DynamoVLLM,
	"dynamo.frontend": DynamoFrontend,
	// KServe's Hugging Face server, whose default backend is vLLM
	// (hfserver.go).
	"huggingfaceserver": KServeHuggingFace,
}

// detectPython reads CPython's command line (Modules/main.c, Python/getopt.c:
// short options combine, -c/-m/-W/-X take the rest of the word or the next
// word) up to -m MODULE.
func detectPython(words []deploy.Value, i, depth int) (Launch, bool) {
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return Launch{}, false
		}
		switch {
		case w == "--check-hash-based-pycs":
			i += 2
			continue
		case strings.HasPrefix(w, "--"):
			// --help, --version, "--" and the like: nothing is launched.
			return Launch{}, false
		case !strings.HasPrefix(w, "-") || w == "-":
			// A script path: sglang/launch_server.py run as a file.
			if strings.HasSuffix(w, "sglang/launch_server.py") {
				return launch(SGLangServer, words[i], words[i+1:]), true
			}
			return Launch{}, false
		}
		for k := 1; k < len(w); k++ {
			c := w[k]
			if !strings.ContainsRune("cmWX", rune(c)) {
				continue
			}
			if c == 'c' {
				return Launch{}, false
			}
			var arg deploy.Value
			next := i + 1
			if k+1 < len(w) {
				arg = part(words[i], k+1, len(w))
			} else if next < len(words) {
				arg = words[next]
				next++
			} else {
				return Launch{}, false
			}
			if c == 'm' {
				return detectModule(words, arg, next, depth)
			}
			i = next - 1
			break
		}
		i++
	}
	return Launch{}, false
}

// detectModule handles `python -m MODULE args…`.
func detectModule(words []deploy.Value, mod deploy.Value, next, depth int) (Launch, bool) {
	if !mod.Known {
		return Launch{}, false
	}
	if p, ok := modules[mod.Raw]; ok {
		if p == KServeHuggingFace && !hfRunsVLLM(words[next:]) {
			return Launch{}, false // --backend huggingface: transformers, no KV pool
		}
		return launch(p, mod, words[next:]), true
	}
	switch mod.Raw {
	case "sglang_router":
		return routerCLI(words, next-1, mod)
	case "vllm.entrypoints.cli.main":
		if sub, ok := wordAt(words, next); ok && sub == "serve" {
			return launch(VLLMServer, mod, words[next+1:]), true
		}
	case "torch.distributed.run", "torch.distributed.launch":
		return detectTorchrun(words, next, depth)
	}
	return Launch{}, false
}

// torchrunValueless are torchrun's options that take no value
// (torch/distributed/run.py get_args_parser); every other option takes one,
// written "--opt v" or "--opt=v". --use-env is torch.distributed.launch's.
var torchrunValueless = map[string]bool{
	"--standalone": true, "--no-python": true, "--no_python": true,
	"--run-path": true, "--run_path": true, "--use-env": true, "--use_env": true,
	"--module": true, "-m": true, "--virtual-local-rank": true, "--virtual_local_rank": true,
}

// detectTorchrun skips torchrun's options and finds the module (-m) or,
// with --no-python, the program it runs.
func detectTorchrun(words []deploy.Value, i, depth int) (Launch, bool) {
	module, noPython := false, false
	for i < len(words) {
		w, ok := wordAt(words, i)
		if !ok {
			return Launch{}, false
		}
		if !strings.HasPrefix(w, "-") {
			break
		}
		name, _, hasEq := strings.Cut(w, "=")
		switch {
		case name == "-m" || name == "--module":
			module = true
		case name == "--no-python" || name == "--no_python":
			noPython = true
		case w == "--":
			i++
			continue
		}
		if torchrunValueless[name] || hasEq {
			i++
		} else {
			i += 2
		}
	}
	if i >= len(words) || !words[i].Known {
		return Launch{}, false
	}
	switch {
	case module:
		return detectModule(words, words[i], i+1, depth)
	case noPython:
		return detectAt(words, i, depth+1)
	case strings.HasSuffix(words[i].Raw, "sglang/launch_server.py"):
		return launch(SGLangServer, words[i], words[i+1:]), true
	}
	return Launch{}, false
}
