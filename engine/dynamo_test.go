package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestDetectDynamo(t *testing.T) {
	tests := []struct {
		cmd     string
		program Program // "" = not a launch
		argv0   string
	}{
		{"python3 -m dynamo.sglang --model-path m", DynamoSGLang, "--model-path"},
		{"python -m dynamo.vllm --model m", DynamoVLLM, "--model"},
		{"python3 -m dynamo.frontend --http-port 8000", DynamoFrontend, "--http-port"},
		{"exec env -i PATH=/usr/bin DYN_NAMESPACE=ns nohup numactl -i all python3 -u -m dynamo.sglang --tp 2", DynamoSGLang, "--tp"},
		{"CUDA_VISIBLE_DEVICES=0 taskset -c 0-7 timeout 1h python3 -mdynamo.vllm --model m", DynamoVLLM, "--model"},
		{"uv run -m dynamo.sglang --model-path m", DynamoSGLang, "--model-path"},
		{"uv run --module dynamo.frontend", DynamoFrontend, ""},
		// Not servers: Dynamo's planner and other modules, and module-like words elsewhere.
		{"python3 -m dynamo.planner --environment kubernetes", "", ""},
		{"python3 -m dynamo.router --router-mode kv", "", ""},
		{"python3 -m dynamo --help", "", ""},
		{"python3 dynamo.sglang --model-path m", "", ""},
		{"python3 -c dynamo.sglang", "", ""},
	}
	for _, tt := range tests {
		l, ok := Detect(line(tt.cmd))
		if tt.program == "" {
			if ok {
				t.Errorf("%q: detected %s, want no launch", tt.cmd, l.Program)
			}
			continue
		}
		if !ok || l.Program != tt.program {
			t.Errorf("%q: got %v %s, want %s", tt.cmd, ok, l.Program, tt.program)
			continue
		}
		if l.Command.Raw != string(tt.program) || l.Command.Span.Col != strings.Index(tt.cmd, l.Command.Raw)+1 {
			t.Errorf("%q: command %q at col %d", tt.cmd, l.Command.Raw, l.Command.Span.Col)
		}
		got := ""
		if len(l.Argv) > 0 {
			got = l.Argv[0].Raw
		}
		if got != tt.argv0 {
			t.Errorf("%q: argv starts %q, want %q", tt.cmd, got, tt.argv0)
		}
	}
}

// dynamo parses one command through Server and fails the test when it is
// not a launch.
func dynamo(t *testing.T, cmd string) *deploy.Server {
	t.Helper()
	s, errs, ok := Server(line(cmd), nil)
	if !ok {
		t.Fatalf("%q: not a launch", cmd)
	}
	if len(errs) > 0 {
		t.Fatalf("%q: errors %v", cmd, errs)
	}
	return s
}

func flagIssues(s *deploy.Server, kind deploy.FlagIssueKind) []deploy.FlagIssue {
	var out []deploy.FlagIssue
	for _, is := range s.FlagIssues {
		if is.Kind == kind {
			out = append(out, is)
		}
	}
	return out
}

func TestDynamoSGLangWorker(t *testing.T) {
	cmd := "python3 -m dynamo.sglang --model-path Qwen/Qwen3-8B --endpoint dyn://ns.prefill.generate --namespace ns --router-mode kv --no-router-kv-events --disaggregation-mode prefill --page-sise 16 --migration-limit 3 --tp-size 2"
	s := dynamo(t, cmd)
	if s.Engine != deploy.EngineSGLang || s.Role != deploy.RolePrefill || !s.Dynamo {
		t.Fatalf("engine %s role %q dynamo %v, want sglang prefill dynamo", s.Engine, s.Role, s.Dynamo)
	}
	unknown := flagIssues(s, deploy.FlagUnknown)
	if len(unknown) != 2 {
		t.Fatalf("unknown-flag issues %+v, want --page-sise and --migration-limit", unknown)
	}
	if u := unknown[0]; u.Written != "--migration-limit" || u.Span.Col != colOf(t, cmd, "--migration-limit", 0) || !strings.Contains(u.Message, "dynamo.frontend") {
		t.Errorf("first issue %+v, want the frontend's --migration-limit", u)
	}
	if u := unknown[1]; u.Written != "--page-sise" || u.Suggestion != "--page-size" || u.Span.Col != colOf(t, cmd, "--page-sise", 0) || !strings.Contains(u.Message, "dynamo.sglang") {
		t.Errorf("second issue %+v, want the misspelt SGLang flag with its suggestion", u)
	}
	if len(s.FlagIssues) != 2 {
		t.Errorf("issues %+v, want only the two unknown flags", s.FlagIssues)
	}
	if v := s.Args["--endpoint"]; v.Raw != "dyn://ns.prefill.generate" || v.Span.Col != colOf(t, cmd, "dyn://ns.prefill.generate", 0) {
		t.Errorf("--endpoint %+v", v)
	}
	if on, ok := s.Args["--router-kv-events"].Typed.Bool(); !ok || on {
		t.Errorf("--no-router-kv-events stored %v %v, want false", on, ok)
	}
	if n, _ := s.Args["--tp-size"].Typed.Int(); n != 2 {
		t.Errorf("--tp reached SGLang's parser as %d, want 2", n)
	}
	if s.Model.Raw != "Qwen/Qwen3-8B" {
		t.Errorf("model %q", s.Model.Raw)
	}
}

func TestDynamoSGLangModes(t *testing.T) {
	for _, tt := range []struct {
		mode string
		role deploy.Role
	}{{"agg", deploy.RoleColocated}, {"pd", deploy.RoleColocated}, {"encode", deploy.RoleColocated}, {"decode", deploy.RoleDecode}, {"null", deploy.RoleColocated}, {"$MODE", ""}} {
		s := dynamo(t, "python3 -m dynamo.sglang --model-path m --disaggregation-mode "+tt.mode)
		if s.Role != tt.role || len(s.FlagIssues) != 0 {
			t.Errorf("--disaggregation-mode %s: role %q issues %+v, want %q and none", tt.mode, s.Role, s.FlagIssues, tt.role)
		}
	}
	// The words Dynamo maps are Dynamo's only: plain SGLang rejects them.
	s := dynamo(t, "python3 -m sglang.launch_server --model-path m --disaggregation-mode agg")
	if len(flagIssues(s, deploy.FlagInvalidValue)) != 1 {
		t.Errorf("sglang.launch_server accepted agg: %+v", s.FlagIssues)
	}
	s = dynamo(t, "python3 -m dynamo.sglang --model-path m --disaggregation-mode prefil")
	if s.Role != "" || len(flagIssues(s, deploy.FlagInvalidValue)) != 1 {
		t.Errorf("prefil: role %q issues %+v, want unknown role and one invalid value", s.Role, s.FlagIssues)
	}
}

func TestDynamoVLLMWorker(t *testing.T) {
	kv := `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`
	for _, tt := range []struct {
		flags string
		role  deploy.Role
	}{
		{"--disaggregation-mode prefill", deploy.RolePrefill},
		{"--disaggregation-mode=decode", deploy.RoleDecode},
		{"--disaggregation-mode agg", deploy.RoleColocated},
		{"--is-prefill-worker", deploy.RolePrefill},
		{"--is-decode-worker", deploy.RoleDecode},
		{"--is-prefill-worker --no-is-prefill-worker", deploy.RoleColocated},
		{"", deploy.RoleColocated},
		{"--disaggregation-mode $MODE", ""},
	} {
		cmd := strings.TrimSpace("python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --kv-transfer-config " + kv + " " + tt.flags)
		s := dynamo(t, cmd)
		if s.Engine != deploy.EngineVLLM || s.Role != tt.role || len(s.FlagIssues) != 0 {
			t.Errorf("%q: engine %s role %q issues %+v, want vllm %q and none", tt.flags, s.Engine, s.Role, s.FlagIssues, tt.role)
		}
		if s.Model.Raw != "Qwen/Qwen3-0.6B" {
			t.Errorf("%q: model %q", tt.flags, s.Model.Raw)
		}
	}
	cmd := "python3 -m dynamo.vllm Qwen/Qwen3-0.6B --port 8000 --disaggregation-mode prefil --gpu-memory-utilisation 0.9"
	s := dynamo(t, cmd)
	var got []string
	for _, is := range s.FlagIssues {
		got = append(got, string(is.Kind)+" "+is.Written)
	}
	want := []string{"invalid --disaggregation-mode", "unknown --port", "unknown --gpu-memory-utilisation", "unknown Qwen/Qwen3-0.6B"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("issues %q, want %q", got, want)
	}
	if s.Role != "" || s.Model.IsSet() {
		t.Errorf("role %q model %q, want unknown role and no model (the positional is not read)", s.Role, s.Model.Raw)
	}
	for _, is := range s.FlagIssues {
		if is.Written == "--port" && is.Span.Col != colOf(t, cmd, "--port", 0) {
			t.Errorf("--port at col %d", is.Span.Col)
		}
	}
}

func TestDynamoFlagValues(t *testing.T) {
	s := dynamo(t, "python3 -m dynamo.sglang --model-path m --request-plane http --engine-request-limit many --connector nixl lmcache --fpm-trace=1 --endpoint")
	var got []string
	for _, is := range s.FlagIssues {
		got = append(got, string(is.Kind)+" "+is.Written)
	}
	want := "invalid --request-plane, invalid --engine-request-limit, invalid --fpm-trace, missingvalue --endpoint"
	if strings.Join(got, ", ") != want {
		t.Errorf("issues %q, want %q", got, want)
	}
	if v := s.Args["--connector"]; v.Raw != "nixl lmcache" {
		t.Errorf("--connector %q", v.Raw)
	}
}

func TestDynamoFrontend(t *testing.T) {
	cmd := "python3 -m dynamo.frontend --http-port 8080 --router-mode kv --namespace=prod --kv-cache-block-size 16"
	s := dynamo(t, cmd)
	if s.Engine != deploy.EngineDynamoFrontend || s.Role != deploy.RoleRouter || len(s.FlagIssues) != 0 {
		t.Fatalf("engine %s role %q issues %v", s.Engine, s.Role, s.FlagIssues)
	}
	if n, _ := s.Args["--http-port"].Typed.Int(); n != 8080 {
		t.Errorf("--http-port %d", n)
	}
	if len(s.Routes) != 1 || !s.Routes[0].Dynamo || s.Routes[0].DynamoNamespace != "prod" || s.Routes[0].DynamoPrefix {
		t.Errorf("routes %+v, want discovery in Dynamo namespace prod", s.Routes)
	}
	s = dynamo(t, "python3 -m dynamo.frontend")
	if len(s.Routes) != 1 || s.Routes[0].DynamoNamespace != "" {
		t.Errorf("routes %+v, want discovery in every namespace", s.Routes)
	}
}

// FuzzDynamo feeds space-split argv to the Dynamo programs and checks that
// every issue points at the input and every stored value has a span.
func FuzzDynamo(f *testing.F) {
	for _, s := range []string{
		"--model-path m --namespace ns --router-mode kv --no-router-kv-events --disaggregation-mode agg",
		"--model m --is-prefill-worker --port 8000 Qwen --connector nixl lmcache --fpm-trace=1",
		"--endpoint --migration-limit --dyn-structural-tag --output-modalities",
		"--http-port 8000 --namespace-prefix p --router-mode=kv",
		"--namespace $NS --disaggregation-mode ${MODE} -- --x=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, p := range []Program{DynamoSGLang, DynamoVLLM, DynamoFrontend} {
			cmdWord := deploy.Known(string(p), deploy.Span{File: "run.sh", Line: 2, Col: 1, EndLine: 2, EndCol: 1 + len(p)})
			srv, res := ServerFromLaunch(Launch{Program: p, Command: cmdWord, Argv: line(cmd)}, nil)
			for _, is := range srv.FlagIssues {
				if is.Span.IsZero() || is.Message == "" || is.Kind == "" {
					t.Fatalf("%s %q: issue without span or message: %+v", p, cmd, is)
				}
			}
			for k, v := range res.Args {
				if !strings.HasPrefix(k, "-") || v.Span.IsZero() {
					t.Fatalf("%s %q: Args[%s] = %+v", p, cmd, k, v)
				}
			}
		}
	})
}
