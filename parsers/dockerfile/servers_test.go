package dockerfile

import (
	"fmt"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func at(s deploy.Span) string {
	return fmt.Sprintf("%d:%d-%d:%d", s.Line, s.Col, s.EndLine, s.EndCol)
}

func flagOf(s *deploy.Server, flag string) string {
	v, ok := s.Arg(flag)
	if !ok {
		return "-"
	}
	return w(v)
}

func TestParseServers(t *testing.T) {
	tests := []struct {
		name       string
		dockerfile string
		checks     func(s *deploy.Server) [][2]string
	}{
		{
			name: "exec ENTRYPOINT and CMD",
			dockerfile: "ARG CUDA=12.4.1\n" +
				"FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS builder\n" +
				"RUN pip install sglang\n" +
				"FROM lmsysorg/sglang:v0.5.0-cu124\n" +
				`ENTRYPOINT ["python3", "-m", "sglang.launch_server"]` + "\n" +
				`CMD ["--model-path", "Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "30000", "--tp", "2"]` + "\n",
			checks: func(s *deploy.Server) [][2]string {
				return [][2]string{
					{s.Name, "Dockerfile:5"},
					{string(s.Source), "dockerfile"},
					{string(s.Role), "colocated"},
					{at(s.Span), "5:30-5:52"},
					{w(s.Image), "lmsysorg/sglang:v0.5.0-cu124|=|4:6-4:34"},
					{w(s.Model), "Qwen/Qwen2.5-7B-Instruct|=|6:22-6:48"},
					{flagOf(s, "--tp-size"), "2|=|6:98-6:101"},
					{flagOf(s, "--port"), "30000|=|6:81-6:88"},
				}
			},
		},
		{
			name: "shell form with ENV and continuation lines",
			dockerfile: "FROM lmsysorg/sglang:latest\n" +
				"ENV MODEL=deepseek-ai/DeepSeek-V3 \\\n" +
				"    MODE=decode\n" +
				"CMD python3 -m sglang.launch_server --model-path $MODEL \\\n" +
				"      --disaggregation-mode $MODE \\\n" +
				"      --mem-fraction-static 0.8 --tp $TP\n",
			checks: func(s *deploy.Server) [][2]string {
				return [][2]string{
					{s.Name, "Dockerfile:4"},
					{string(s.Source), "dockerfile"},
					{string(s.Role), "decode"},
					{at(s.Span), "4:16-4:36"},
					{w(s.Model), "deepseek-ai/DeepSeek-V3|=|4:50-4:56"},
					{fmt.Sprint(at(s.Model.Origin[0].Span)), "2:11-2:34"},
					{flagOf(s, "--disaggregation-mode"), "decode|=|5:29-5:34"},
					{flagOf(s, "--mem-fraction-static"), "0.8|=|6:29-6:32"},
					{flagOf(s, "--tp-size"), "$TP|?|6:38-6:41"},
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, errs := Parse("Dockerfile", []byte(tt.dockerfile), nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if len(servers) != 1 {
				t.Fatalf("%d servers", len(servers))
			}
			for _, c := range tt.checks(servers[0]) {
				if c[0] != c[1] {
					t.Errorf("got %q, want %q", c[0], c[1])
				}
			}
		})
	}
}

func TestParseNoServer(t *testing.T) {
	servers, errs := Parse("Dockerfile", []byte("FROM python:3.12\nCMD [\"python3\", \"app.py\"]\n"), nil)
	if len(servers) != 0 || len(errs) != 0 {
		t.Errorf("servers %v errors %v", servers, errs)
	}
}
