package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		cmd     string
		program Program // "" = not a launch
		command string  // the Command word
		argv0   string  // first word of Argv ("" = empty argv)
	}{
		{"python -m sglang.launch_server --model-path m", SGLangServer, "sglang.launch_server", "--model-path"},
		{"python3 -m sglang.launch_server --tp 2", SGLangServer, "sglang.launch_server", "--tp"},
		{"python3.11 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"/usr/bin/python3 -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"/opt/conda/bin/python -u -X faulthandler -W ignore -O -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"python3 -uB -Xdev -msglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"python3 -um sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"python3 -m sglang_router.launch_router --pd-disaggregation", SGLangRouter, "sglang_router.launch_router", "--pd-disaggregation"},
		{"python3 -m sglang_router.launch_server --dp-size 2", SGLangRouterServer, "sglang_router.launch_server", "--dp-size"},
		{"python3 -m sglang_router launch --pd-disaggregation", SGLangRouter, "sglang_router", "--pd-disaggregation"},
		{"sglang serve --model-path m", SGLangServer, "sglang", "--model-path"},
		{"/usr/local/bin/sglang serve m", SGLangServer, "/usr/local/bin/sglang", "m"},
		{"smg launch --policy random", SGLangRouter, "smg", "--policy"},
		{"sglang-router server --dp-size 2", SGLangRouterServer, "sglang-router", "--dp-size"},
		{"CUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=$LEVEL python3 -m sglang.launch_server --tp 2", SGLangServer, "sglang.launch_server", "--tp"},
		{"env -i PATH=/usr/bin HF_HOME=/data python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"env -u FOO -- python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"exec python3 -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"exec -a sglang python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"nohup python3 -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"numactl --cpunodebind=0 --membind 0 -C 0-31 python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"numactl -i all sglang serve m", SGLangServer, "sglang", "m"},
		{"taskset -c 0-7 python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"taskset 0xff python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"taskset -p 0xff 1234", "", "", ""},
		{"srun --nodes=1 -n 1 --gres gpu:8 -l python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"srun -N2 --ntasks-per-node 1 --container-image img vllm serve m", VLLMServer, "vllm", "m"},
		{"srun --mpi=pmix -o log.txt sglang serve m", SGLangServer, "sglang", "m"},
		{"srun hostname", "", "", ""},
		{"mpirun -np 2 --mca btl tcp,self -x NCCL_DEBUG=INFO --bind-to none python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"mpiexec -n 4 -host a,b --map-by ppr:1:node vllm serve m", VLLMServer, "vllm", "m"},
		{"mpirun --allow-run-as-root -np 1 -- sglang serve m", SGLangServer, "sglang", "m"},
		{"stdbuf -oL -e L python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"timeout -s KILL 3600 python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"timeout --kill-after=10 1h sglang serve m", SGLangServer, "sglang", "m"},
		{"nice -n 10 python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"nice -5 python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"setsid -f python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"time -p python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"sudo -E -u svc python3 -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},
		{"uv run --with sglang[all] --python 3.12 python -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"uv run -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"uv run --frozen sglang serve m", SGLangServer, "sglang", "m"},
		{"torchrun --nproc-per-node 8 --nnodes=2 --standalone -m sglang.launch_server --tp 16", SGLangServer, "sglang.launch_server", "--tp"},
		{"python -m torch.distributed.run --nproc_per_node 8 -m sglang.launch_server --port 1", SGLangServer, "sglang.launch_server", "--port"},
		{"torchrun --no-python sglang serve m", SGLangServer, "sglang", "m"},
		{"exec env A=1 nohup numactl -N 0 taskset -c 0-3 python3 -u -m sglang.launch_server", SGLangServer, "sglang.launch_server", ""},

		// Not launches.
		{"$PYTHON -m sglang.launch_server", "", "", ""},
		{"python3 -m $MODULE --tp 2", "", "", ""},
		{"python3 -m vllm.entrypoints.api_server --model m", "", "", ""}, // the old demo server, not the OpenAI one
		{"vllm chat --url http://x", "", "", ""},
		{"python3 -c 'import sglang'", "", "", ""},
		{"python3 script.py --tp 2", "", "", ""},
		{"python3 --version", "", "", ""},
		{"sglang version", "", "", ""},
		{"smg --help", "", "", ""},
		{"pip install sglang", "", "", ""},
		{"env -S python3 -m sglang.launch_server", "", "", ""},
		{"torchrun --nproc-per-node 8 train.py", "", "", ""},
		{"", "", "", ""},
		{"A=1 B=2", "", "", ""},
	}
	for _, tt := range tests {
		l, ok := Detect(line(tt.cmd))
		if ok != (tt.program != "") || l.Program != tt.program {
			t.Errorf("%q: Detect = %v, %v; want %q", tt.cmd, l.Program, ok, tt.program)
			continue
		}
		if !ok {
			continue
		}
		if l.Command.Raw != tt.command {
			t.Errorf("%q: Command = %q, want %q", tt.cmd, l.Command.Raw, tt.command)
		}
		argv0 := ""
		if len(l.Argv) > 0 {
			argv0 = l.Argv[0].Raw
		}
		if argv0 != tt.argv0 {
			t.Errorf("%q: Argv starts with %q, want %q", tt.cmd, argv0, tt.argv0)
		}
		if l.Command.Span.IsZero() {
			t.Errorf("%q: Command has no span", tt.cmd)
		}
	}
}

func TestDetectAttachedModuleSpan(t *testing.T) {
	cmd := "python3 -msglang.launch_server --port 1"
	l, ok := Detect(line(cmd))
	if !ok || l.Command.Span.Col != 11 || l.Command.Span.EndCol != 11+len("sglang.launch_server") {
		t.Errorf("Command %+v, want the module text after -m", l.Command)
	}
}

func TestServer(t *testing.T) {
	tests := []struct {
		cmd   string
		role  deploy.Role
		model string
	}{
		{"python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill", deploy.RolePrefill, "m"},
		{"python3 -m sglang.launch_server --model m --disaggregation-mode decode", deploy.RoleDecode, "m"},
		{"python3 -m sglang.launch_server --model-path m --disaggregation-mode null", deploy.RoleColocated, "m"},
		{"python3 -m sglang.launch_server --model-path m", deploy.RoleColocated, "m"},
		{"python3 -m sglang.launch_server --model-path m --disaggregation-mode $MODE", "", "m"},
		{"python3 -m sglang.launch_server --model-path m --disaggregation-mode both", "", "m"},
		{"python3 -m sglang.launch_server --model-path m --disaggregation-mo prefill", deploy.RolePrefill, "m"},
		{"python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://p", deploy.RoleRouter, ""},
		{"sglang serve Qwen/Qwen3-8B --tp 2", deploy.RoleColocated, "Qwen/Qwen3-8B"},
		{"sglang serve $MODEL_PATH --tp 2", deploy.RoleColocated, "$MODEL_PATH"},
	}
	for _, tt := range tests {
		srv, errs, ok := Server(line(tt.cmd), nil)
		if !ok || len(errs) != 0 {
			t.Errorf("%q: ok=%v errs=%v", tt.cmd, ok, errs)
			continue
		}
		if srv.Role != tt.role || srv.Model.Raw != tt.model {
			t.Errorf("%q: role %q model %q, want %q %q", tt.cmd, srv.Role, srv.Model.Raw, tt.role, tt.model)
		}
		if srv.Span.IsZero() || srv.Args == nil {
			t.Errorf("%q: span %v args %v", tt.cmd, srv.Span, srv.Args)
		}
	}
	srv, _, _ := Server(line("python3 -m sglang_router.launch_router --pd-disaggregation"), nil)
	if srv.Engine != deploy.EngineSGLangRouter {
		t.Errorf("router engine %q", srv.Engine)
	}
	if _, _, ok := Server(line("echo hello"), nil); ok {
		t.Errorf("echo is not a launch")
	}
}

func TestServeModelType(t *testing.T) {
	srv, _, _ := Server(line("sglang serve --model-type llm m --tp 2"), nil)
	if srv.Model.Raw != "m" || srv.Args["--model-type"].Raw != "llm" || len(srv.FlagIssues) != 1 {
		// --tp is abbreviated: one issue.
		t.Errorf("model %q args %+v issues %+v", srv.Model.Raw, srv.Args, srv.FlagIssues)
	}
	srv, _, _ = Server(line("sglang serve m --model-type=video"), nil)
	found := false
	for _, is := range srv.FlagIssues {
		found = found || (is.Kind == deploy.FlagInvalidValue && strings.Contains(is.Message, "auto, llm or diffusion"))
	}
	if !found {
		t.Errorf("issues %+v", srv.FlagIssues)
	}
}

func TestServerConfigErrors(t *testing.T) {
	_, errs, ok := Server(line("python3 -m sglang.launch_server --config missing.yaml"), files(nil))
	if !ok || len(errs) != 1 {
		t.Errorf("ok=%v errs=%v", ok, errs)
	}
}

// A launch of more words than kvlint parses is an error at the first word
// past the bound, not a server built from a prefix.
func TestServerTooManyWords(t *testing.T) {
	words := []deploy.Value{
		{Raw: "python3", Known: true}, {Raw: "-m", Known: true},
		{Raw: "sglang.launch_server", Known: true},
	}
	for i := len(words); i <= MaxArgv+3; i++ {
		words = append(words, deploy.Value{Raw: "--foo", Known: true, Span: deploy.Span{File: "x.sh", Line: 2, Col: i}})
	}
	_, errs, ok := Server(words, nil)
	if !ok || len(errs) != 1 || !strings.Contains(errs[0].Message, "more than 65536 words") {
		t.Fatalf("ok=%v errs=%v", ok, errs)
	}
	if errs[0].Span.Col != MaxArgv+3 {
		t.Errorf("error at col %d, want %d", errs[0].Span.Col, MaxArgv+3)
	}
}
