package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

var fuzzSeeds = []string{
	"--model-path m --tp 8 --pp 2",
	"--tp=8 --cuda-graph-bs-decode 1 2 4 --enable-metrics=1",
	"--chunked-prefill-size -1 --context-length 128Ki -- x",
	"--config c.yaml --port 1",
	"--config $CFG $EXTRA --tp-size ${TP}",
	"--prefill http://p 9000 --decode http://d --pd-disaggregation",
	"-hx -tp --no-dllm-fdfo --model-checksum",
	"--mem-fraction-statc 0.8 --disaggregation-decode-tp 2 --cuda-graph-max-bs 4",
	"=  - -- --=x ---x --tp= -1.5 -.5 -1e3",
}

// FuzzParse feeds space-split argv to every program's parser (with a
// --config file taken from the input's YAML-looking tail) and checks that it
// never panics and always points at what it reports.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "tp-size: 2\nenable-metrics: yes\n")
	}
	f.Add("--config c.yaml", "model-path: [a\n")
	f.Add("--config c.yaml", "- 1\n- 2\n")
	f.Add("--config c.yaml", "? [a]\n: b\n")
	f.Fuzz(func(t *testing.T, cmd, yamlText string) {
		read := files(map[string]string{"c.yaml": yamlText})
		for _, p := range []Program{SGLangServer, SGLangRouter, SGLangRouterServer} {
			res := Lookup(p).Parse(line(cmd), read)
			for _, is := range res.Issues {
				if is.Span.IsZero() || is.Message == "" || is.Kind == "" {
					t.Fatalf("%s %q: issue without span or message: %+v", p, cmd, is)
				}
			}
			for _, e := range res.Errors {
				if e.Span.IsZero() {
					t.Fatalf("%s %q: error without span: %+v", p, cmd, e)
				}
			}
			for k, v := range res.Args {
				if !strings.HasPrefix(k, "-") {
					t.Fatalf("%s: Args key %q is not a flag", p, k)
				}
				if v.Span.IsZero() {
					t.Fatalf("%s %q: Args[%s] has no span", p, cmd, k)
				}
			}
		}
	})
}

// FuzzDetect checks that launch recognition never panics and that a
// recognised launch names a known program with a word of the input.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"python3 -m sglang.launch_server --tp 2",
		"exec env A=1 nohup numactl -N 0 taskset -c 0-3 python3 -u -m sglang.launch_server",
		"uv run -m sglang.launch_server", "torchrun --nproc-per-node 8 -m sglang.launch_server",
		"python -m torch.distributed.run -m sglang_router launch", "sglang serve m", "smg server",
		"timeout 1h stdbuf -oL sudo -u x nice -n 5 setsid time python -Xdev -msglang.launch_server",
		"python3 -c", "python3 -m", "env -u", "taskset", "uv run --with", "torchrun -m",
		"python3 -m dynamo.sglang --model-path m", "exec python -m dynamo.vllm --model m", "python3 -m dynamo.frontend",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		words := line(cmd)
		l, ok := Detect(words)
		if !ok {
			return
		}
		dynamo := l.Program == DynamoSGLang || l.Program == DynamoVLLM || l.Program == DynamoFrontend
		if Lookup(l.Program) == nil && !dynamo && l.Program != KServeHuggingFace {
			t.Fatalf("%q: unknown program %q", cmd, l.Program)
		}
		if l.Command.Span.IsZero() || len(l.Argv) > len(words) {
			t.Fatalf("%q: bad launch %+v", cmd, l)
		}
		if _, _, ok := Server(words, nil); !ok {
			t.Fatalf("%q: Detect and Server disagree", cmd)
		}
	})
}

// A word list built by hand can hold values with zero spans; Parse must
// cope without panicking.
func TestParseZeroSpans(t *testing.T) {
	argv := []deploy.Value{deploy.Known("--tp=8", deploy.Span{}), deploy.Known("--cuda-graph-bs-decode", deploy.Span{}), deploy.Known("1", deploy.Span{})}
	res := Lookup(SGLangServer).Parse(argv, nil)
	if res.Args["--tp-size"].Raw != "8" || res.Args["--cuda-graph-bs-decode"].Raw != "1" {
		t.Errorf("args %+v", res.Args)
	}
}
