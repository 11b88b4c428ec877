package engine

import (
	"strings"
	"testing"
)

// python -m huggingfaceserver: the server's own options are its own, the
// rest are vLLM's; --backend huggingface is no vLLM server.
func TestKServeHuggingFace(t *testing.T) {
	for _, tt := range []struct {
		name, cmd string
		launch    bool
		model     string // Raw; "?" unknown
		args      map[string]string
		unknown   string // a flag reported unknown to vLLM's parser, "" none
	}{
		{"model id and vLLM engine args", "python3 -m huggingfaceserver --model_name=chat --model_id=meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.85", true,
			"meta-llama/Llama-3.1-8B-Instruct", map[string]string{"--max-model-len": "8192", "--gpu-memory-utilization": "0.85", "--model_name": "chat"}, ""},
		{"the default model directory", "python3 -m huggingfaceserver --model_name=chat --backend=vllm --tensor-parallel-size 2", true,
			"/mnt/models", map[string]string{"--tensor-parallel-size": "2", "--backend": "vllm"}, ""},
		{"--model_dir, dashes as underscores", "python -m huggingfaceserver --model-dir /data/m --backend auto --max_model_len 4096", true,
			"/data/m", map[string]string{"--max-model-len": "4096"}, ""},
		{"--max_length is vLLM's --max-model-len", "python -m huggingfaceserver --model_id org/m --max_length 2048", true,
			"org/m", map[string]string{"--max-model-len": "2048"}, ""},
		{"KServe's templated --model_name is the server's own", "python3 -m huggingfaceserver --model_name={{.Name}}", true, "/mnt/models", nil, ""},
		{"an unreadable word may set the model", "python -m huggingfaceserver $MODEL_ARGS --model_name x", true, "?", nil, ""},
		{"a misspelt engine flag is reported", "python -m huggingfaceserver --model_id org/m --gpu-memory-utilisation 0.9", true, "org/m", nil, "--gpu-memory-utilisation"},
		{"the transformers backend", "python -m huggingfaceserver --model_id org/m --backend=huggingface", false, "", nil, ""},
		{"the transformers backend, value apart", "python3 -m huggingfaceserver --backend huggingface --model_name x", false, "", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			words := line(tt.cmd)
			srv, _, ok := Server(words, nil)
			if ok != tt.launch {
				t.Fatalf("launch = %v, want %v", ok, tt.launch)
			}
			if !ok {
				return
			}
			if srv.Engine != "vllm" || srv.Span != words[2].Span {
				t.Errorf("engine %q at %v, want vllm at the module word %v", srv.Engine, srv.Span, words[2].Span)
			}
			if tt.model == "?" {
				if srv.Model.Known || !srv.Model.IsSet() {
					t.Errorf("model = %+v, want unknown", srv.Model)
				}
			} else if !srv.Model.Known || srv.Model.Raw != tt.model {
				t.Errorf("model = %+v, want %q", srv.Model, tt.model)
			}
			for k, v := range tt.args {
				if got := srv.Args[k]; got.Raw != v {
					t.Errorf("%s = %q, want %q", k, got.Raw, v)
				}
			}
			var unknown []string
			for _, is := range srv.FlagIssues {
				if is.Kind == "unknown" {
					unknown = append(unknown, is.Flag)
					if !strings.Contains(is.Message, "huggingfaceserver") {
						t.Errorf("message does not say which parser: %s", is.Message)
					}
				}
			}
			if got := strings.Join(unknown, ","); got != tt.unknown {
				t.Errorf("unknown flags = %q, want %q", got, tt.unknown)
			}
		})
	}
}
