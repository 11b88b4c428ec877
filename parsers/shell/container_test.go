package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// testImages is an image table with one engine image and one base image, so
// the tests do not depend on the built-in rows.
var testImages = engine.NewImageTable([]engine.Image{
	{Repository: "corp/vllm", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}, Source: "test"},
	{Repository: "corp/base", Tags: "*", Cmd: []string{"bash"}, Source: "test"},
})

func containerServers(t *testing.T, script string) []*deploy.Server {
	t.Helper()
	servers, errs := Servers(Source{File: "run.sh", Text: []byte(script), Images: testImages}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return servers
}

func origin(v deploy.Value) string {
	var out []string
	for _, s := range v.Origin {
		out = append(out, fmt.Sprintf("%s@%d:%d-%d:%d", s.Kind, s.Span.Line, s.Span.Col, s.Span.EndLine, s.Span.EndCol))
	}
	return strings.Join(out, ",")
}

func TestContainerRunServers(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string // got/want pairs are rendered by the check funcs below
		check  func(s *deploy.Server) []string
	}{
		{
			name:   "command after the image",
			script: "docker run --gpus all -p 30000:30000 lmsysorg/sglang:latest python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 32768\n",
			check: func(s *deploy.Server) []string {
				return []string{string(s.Engine), at(s.Span), w(s.Image), w(s.GPUCount), w(s.Model), arg(s, "--context-length")}
			},
			want: []string{"sglang", "1:72-1:92", "lmsysorg/sglang:latest|=|1:38-1:60", "all|?|1:19-1:22",
				"Qwen/Qwen2.5-7B-Instruct|=|1:106-1:130", "32768|=|1:148-1:153"},
		},
		{
			name:   "arguments only: the image's entrypoint is the program",
			script: "sudo docker run --runtime nvidia --gpus 2 corp/vllm:v1 --model Qwen/Qwen2.5-7B-Instruct --max-model-len 32768\n",
			check: func(s *deploy.Server) []string {
				return []string{string(s.Engine), at(s.Span), w(s.GPUCount), w(s.Model), arg(s, "--max-model-len")}
			},
			want: []string{"vllm", "1:43-1:55", "2|=|1:41-1:42", "Qwen/Qwen2.5-7B-Instruct|=|1:64-1:88", "32768|=|1:105-1:110"},
		},
		{
			name: "continued lines and a resolved $IMAGE",
			script: "IMAGE=${IMAGE:-corp/vllm:v1}\n" +
				"docker run -d \\\n" +
				"  --gpus '\"device=0,1\"' \\\n" +
				"  \"$IMAGE\" \\\n" +
				"  --model m --tensor-parallel-size 2\n",
			check: func(s *deploy.Server) []string {
				return []string{s.Name, at(s.Span), w(s.Image), w(s.GPUCount), arg(s, "--tensor-parallel-size")}
			},
			// IMAGE may come from the environment: unknown, so the image
			// is not in the table and only the arguments remain.
			want: nil,
		},
		{
			name: "a known $IMAGE",
			script: "IMAGE=corp/vllm:v1\n" +
				"docker run -d \\\n" +
				"  --gpus '\"device=0,1\"' \\\n" +
				"  \"$IMAGE\" \\\n" +
				"  --model m --tensor-parallel-size 2\n",
			check: func(s *deploy.Server) []string {
				return []string{s.Name, at(s.Span), w(s.Image), w(s.GPUCount), arg(s, "--tensor-parallel-size")}
			},
			want: []string{"run.sh:2", "4:3-4:11", "corp/vllm:v1|=|4:3-4:11", "2|=|3:10-3:24", "2|=|5:36-5:37"},
		},
		{
			name:   "podman with a shell script and -e",
			script: "podman run -e MODEL=Qwen/Qwen2.5-7B corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL --tp 2'\n",
			check: func(s *deploy.Server) []string {
				return []string{at(s.Span), w(s.Model), origin(s.Model), w(s.Image)}
			},
			want: []string{"1:67-1:87", "Qwen/Qwen2.5-7B|=|1:101-1:107", "env@1:21-1:36", "corp/base|=|1:37-1:46"},
		},
		{
			name:   "--entrypoint replaces the image's program",
			script: "docker run --entrypoint python3 corp/vllm:v1 -m sglang.launch_server --model-path m\n",
			check: func(s *deploy.Server) []string {
				return []string{string(s.Engine), at(s.Span), w(s.Model)}
			},
			want: []string{"sglang", "1:49-1:69", "m|=|1:83-1:84"},
		},
		{
			name:   "--entrypoint bash with the script after the image",
			script: "docker run --entrypoint bash -e TP=4 corp/vllm:v1 -c 'vllm serve m --tensor-parallel-size $TP'\n",
			check: func(s *deploy.Server) []string {
				return []string{string(s.Engine), at(s.Span), arg(s, "--tensor-parallel-size")}
			},
			want: []string{"vllm", "1:55-1:59", "4|=|1:91-1:94"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := containerServers(t, tt.script)
			if tt.want == nil {
				if len(servers) != 0 {
					t.Fatalf("%d servers, want none", len(servers))
				}
				return
			}
			if len(servers) != 1 {
				t.Fatalf("%d servers", len(servers))
			}
			got := tt.check(servers[0])
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestContainerRunEnvironment(t *testing.T) {
	// The container does not see the host's exported variables: only -e.
	servers := containerServers(t, "export MODEL=host-model\n"+
		"docker run corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL'\n")
	if len(servers) != 1 || servers[0].Model.Known {
		t.Fatalf("model %v", servers)
	}
	// -e NAME copies the CLI's environment: an exported variable.
	servers = containerServers(t, "export MODEL=host-model\n"+
		"docker run -e MODEL corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL'\n")
	if len(servers) != 1 {
		t.Fatalf("%d servers", len(servers))
	}
	m := servers[0].Model
	if w(m) != "host-model|=|2:85-2:91" || origin(m) != "assignment@1:14-1:24,env@2:15-2:20" {
		t.Errorf("model %s via %s", w(m), origin(m))
	}
	// Not exported: docker's environment does not have it.
	servers = containerServers(t, "MODEL=host-model\n"+
		"docker run -e MODEL corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL'\n")
	if len(servers) != 1 || servers[0].Model.Known {
		t.Errorf("unexported inherited model %v", w(servers[0].Model))
	}
	// A prefix assignment is in docker's environment.
	servers = containerServers(t, "MODEL=m docker run -e MODEL corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL'\n")
	if len(servers) != 1 || w(servers[0].Model) != "m|=|1:93-1:99" {
		t.Errorf("prefix model %v", servers[0].Model)
	}
	// A double-quoted script is expanded by this shell first: with HOSTVAR
	// unknown here, its text stays in the script, and the container's -e
	// HOSTVAR must not fill it.
	servers = containerServers(t, "docker run -e TP=4 corp/base bash -c \"python3 -m sglang.launch_server --tp-size $HOSTVAR --model-path $TP\"\n")
	if len(servers) != 1 || servers[0].Model.Known {
		t.Errorf("host-expanded script: %v", w(servers[0].Model))
	}
	servers = containerServers(t, "docker run -e TP=4 corp/base bash -c \"python3 -m sglang.launch_server --model-path \\$TP\"\n")
	if len(servers) != 1 || w(servers[0].Model) != "4|=|1:85-1:88" {
		t.Errorf("escaped container variable: %v", w(servers[0].Model))
	}
	// An -e whose name is unknown may override an earlier one.
	servers = containerServers(t, "docker run -e MODEL=a -e \"$EXTRA\" corp/base bash -c 'python3 -m sglang.launch_server --model-path $MODEL'\n")
	if len(servers) != 1 || servers[0].Model.Known {
		t.Errorf("opaque -e: %v", servers)
	}
}

func TestContainerRunQuiet(t *testing.T) {
	for _, script := range []string{
		"docker run redis:7\n",
		"docker run -v x:/y busybox ls\n",
		"docker run unknown/image --model x\n",
		"docker ps\n",
		"docker run --help\n",
		"docker compose run --rm svc\n",
		// compose run's command is a launch when it is one.
	} {
		if servers := containerServers(t, script); len(servers) != 0 {
			t.Errorf("%q: %d servers", script, len(servers))
		}
	}
	servers := containerServers(t, "docker compose run --rm svc vllm serve m\n")
	if len(servers) != 1 || servers[0].Image.IsSet() || servers[0].Model.Raw != "m" {
		t.Errorf("compose run: %v", servers)
	}
}

func TestContainerCommandRecorded(t *testing.T) {
	cmds, errs := Commands(Source{File: "run.sh", Text: []byte("docker run unknown/image --model x --tp 2\n"), Images: testImages})
	if len(errs) > 0 || len(cmds) != 1 {
		t.Fatal(errs, cmds)
	}
	c := cmds[0]
	if c.Container == nil || c.Container.Command.ImageKnown || !c.Container.Command.EngineArgsOnly {
		t.Errorf("unknown image run: %+v", c.Container)
	}
}
