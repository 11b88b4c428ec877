package shell

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func at(s deploy.Span) string {
	return fmt.Sprintf("%d:%d-%d:%d", s.Line, s.Col, s.EndLine, s.EndCol)
}

// arg renders a server's flag as value|known|span, or "-" when absent.
func arg(s *deploy.Server, flag string) string {
	v, ok := s.Arg(flag)
	if !ok {
		return "-"
	}
	return w(v)
}

func TestParsePD(t *testing.T) {
	data, err := os.ReadFile("testdata/pd.sh")
	if err != nil {
		t.Fatal(err)
	}
	servers, errs := Parse("testdata/pd.sh", data, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(servers) != 3 {
		t.Fatalf("%d servers", len(servers))
	}
	prefill, decode, router := servers[0], servers[1], servers[2]
	for _, s := range servers {
		if s.Source != "shell" || s.Span.File != "testdata/pd.sh" {
			t.Errorf("server %s: source %q span %v", s.Name, s.Source, s.Span)
		}
	}
	checks := []struct{ got, want string }{
		{prefill.Name, "testdata/pd.sh:10"},
		{string(prefill.Role), "prefill"},
		{string(prefill.Engine), "sglang"},
		{at(prefill.Span), "10:18-10:38"},
		{w(prefill.Model), "/models/llama-3.1-8b|=|11:16-11:28"},
		{arg(prefill, "--port"), "30000|=|13:10-13:15"},
		{arg(prefill, "--disaggregation-ib-device"), "mlx5_roce0|=|14:30-14:42"},
		{arg(prefill, "--mem-fraction-static"), "0.85|=|15:3-15:10"},
		{arg(prefill, "--trust-remote-code"), "true|=|15:3-15:10"},

		{decode.Name, "testdata/pd.sh:17"},
		{string(decode.Role), "decode"},
		{at(decode.Span), "18:14-18:34"},
		// MODEL comes from ${MODEL_PATH:-...}: the environment may set it.
		{w(decode.Model), "$MODEL|?|18:48-18:56"},
		{arg(decode, "--port"), "30001|=|19:39-19:44"},
		{arg(decode, "--context-length"), "32k|=|20:20-20:23"},

		{router.Name, "testdata/pd.sh:22"},
		{string(router.Role), "router"},
		{string(router.Engine), "sglang-router"},
		{arg(router, "--port"), "8000|=|24:25-24:29"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// Unknown, but it says where it was set.
	if via := decode.Model.Origin.Spans(); len(via) != 1 || at(via[0]) != "5:7-5:54" {
		t.Errorf("unknown model via %v", via)
	}
	if via := prefill.Model.Origin.Spans(); len(via) != 1 || at(via[0]) != "6:11-6:31" {
		t.Errorf("model via %v", via)
	}
	// Both were set by assignments in the script.
	for _, v := range []deploy.Value{decode.Model, prefill.Model} {
		if len(v.Origin) != 1 || v.Origin[0].Kind != deploy.StepAssignment {
			t.Errorf("model %q origin %+v, want one assignment", v.Raw, v.Origin)
		}
	}
}

func TestServersNested(t *testing.T) {
	// The shape of the StatefulSet command in SGLang's
	// docker/k8s-sglang-distributed-sts.yaml, as a script.
	script := `bash -c "python3 -m sglang.launch_server --model /llm-folder --dist-init-addr sglang-master-pod:5000 --tensor-parallel-size 16 --nnodes 2 --node-rank $POD_INDEX --trust-remote-code --host 0.0.0.0 --port 8000"` + "\n"
	servers, errs := Parse("sts.sh", []byte(script), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(servers) != 1 {
		t.Fatalf("%d servers", len(servers))
	}
	s := servers[0]
	checks := []struct{ got, want string }{
		{s.Name, "sts.sh:1"},
		{w(s.Model), "/llm-folder|=|1:50-1:61"},
		{arg(s, "--tp-size"), "16|=|1:125-1:127"},
		{arg(s, "--node-rank"), "$POD_INDEX|?|1:151-1:161"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if !strings.HasPrefix(script[124:], "16 ") {
		t.Errorf("test fixture columns moved")
	}
}

func TestDynamoWorkers(t *testing.T) {
	// Dynamo launches its frontend and workers in the background from one
	// script; the model comes from a variable, the namespace from Dynamo's
	// own flag.
	script := `MODEL=Qwen/Qwen3-0.6B
python3 -m dynamo.frontend --http-port 8000 &
python3 -m dynamo.sglang --model-path "$MODEL" --namespace demo \
  --disaggregation-mode prefill --page-sise 16 &
exec nohup python3 -m dynamo.sglang --model-path "$MODEL" --namespace demo --disaggregation-mode decode
python3 -m dynamo.planner --environment slurm
`
	servers, errs := Parse("run.sh", []byte(script), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(servers) != 3 {
		t.Fatalf("%d servers, want frontend, prefill and decode (the planner is not a server)", len(servers))
	}
	front, prefill, decode := servers[0], servers[1], servers[2]
	checks := []struct{ got, want string }{
		{string(front.Engine) + " " + string(front.Role), "dynamo-frontend router"},
		{at(front.Span), "2:12-2:27"},
		{arg(front, "--http-port"), "8000|=|2:40-2:44"},
		{string(prefill.Engine) + " " + string(prefill.Role), "sglang prefill"},
		{w(prefill.Model), "Qwen/Qwen3-0.6B|=|3:39-3:47"},
		{arg(prefill, "--namespace"), "demo|=|3:60-3:64"},
		{string(decode.Role), "decode"},
		{at(decode.Span), "5:23-5:36"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if len(prefill.FlagIssues) != 1 || prefill.FlagIssues[0].Written != "--page-sise" || at(prefill.FlagIssues[0].Span) != "4:33-4:44" {
		t.Errorf("prefill issues %+v, want only --page-sise at 4:33", prefill.FlagIssues)
	}
	if len(decode.FlagIssues) != 0 || !decode.Dynamo || !prefill.Dynamo {
		t.Errorf("decode issues %+v (Dynamo %v %v)", decode.FlagIssues, prefill.Dynamo, decode.Dynamo)
	}
	deps := deploy.Group(servers, nil)
	if len(deps) != 1 || len(deps[0].Links) != 1 || len(deps[0].Links[0].Servers) != 2 || deps[0].Links[0].Match != "dynamo" {
		t.Errorf("deployments %+v, want one with the frontend linked to both workers", deps)
	}
}
