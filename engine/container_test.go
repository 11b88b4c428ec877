package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// runSummary renders what DetectContainerRun read, for table tests.
func runSummary(r ContainerRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cli=%s image=%s@%d", r.CLI.Raw, r.Image.Raw, r.Image.Span.Col)
	if r.Compose {
		b.WriteString(" compose")
	}
	if r.Entrypoint != nil {
		fmt.Fprintf(&b, " entrypoint=%q@%d", r.Entrypoint.Raw, r.Entrypoint.Span.Col)
	}
	for _, e := range r.Env {
		fmt.Fprintf(&b, " env=%s", e.Name)
		if e.Inherit {
			b.WriteString("(inherit)")
		} else {
			fmt.Fprintf(&b, ":%s@%d", e.Value.Raw, e.Value.Span.Col)
		}
	}
	for _, g := range r.GPUs {
		fmt.Fprintf(&b, " gpus=%s@%d", g.Raw, g.Span.Col)
	}
	if r.Name.IsSet() {
		fmt.Fprintf(&b, " name=%s", r.Name.Raw)
	}
	var cmd []string
	for _, w := range r.Cmd {
		cmd = append(cmd, w.Raw)
	}
	fmt.Fprintf(&b, " cmd=[%s]", strings.Join(cmd, " "))
	return b.String()
}

func TestDetectContainerRun(t *testing.T) {
	tests := []struct {
		cmd  string
		want string // "" when not a container run
	}{
		{"docker run img", "cli=docker image=img@12 cmd=[]"},
		{"docker container run img a b", "cli=docker image=img@22 cmd=[a b]"},
		{"podman run img", "cli=podman image=img@12 cmd=[]"},
		{"podman container run img", "cli=podman image=img@22 cmd=[]"},
		{"nerdctl run img", "cli=nerdctl image=img@13 cmd=[]"},
		{"/usr/bin/docker run img", "cli=/usr/bin/docker image=img@21 cmd=[]"},
		{"sudo -E docker run img", "cli=docker image=img@20 cmd=[]"},
		{"exec nohup env A=b docker run img", "cli=docker image=img@31 cmd=[]"},
		{"docker --context remote -D run img", "cli=docker image=img@32 cmd=[]"},
		{"docker -H=tcp://h:2375 run img", "cli=docker image=img@28 cmd=[]"},
		// Every value-taking option consumes the next word.
		{"docker run -v /m:/m -p 8000:8000 -e A=1 --env-file f --gpus 2 --shm-size 16g --name s --network host --entrypoint x --runtime nvidia -w /w --ulimit memlock=-1 --device /dev/x --ipc host --mount type=bind --label k=v -u 0 -m 8g --cpus 4 --platform linux/amd64 --pull always img c",
			"cli=docker image=img@274 entrypoint=\"x\"@115 env=A:1@39 gpus=2@61 name=s cmd=[c]"},
		// Booleans consume nothing, alone or combined.
		{"docker run -d -i -t --rm --privileged -P --init --read-only -q img", "cli=docker image=img@64 cmd=[]"},
		{"docker run -it img", "cli=docker image=img@16 cmd=[]"},
		{"docker run -dit --rm img sh", "cli=docker image=img@22 cmd=[sh]"},
		// A value-taking letter ends a cluster; its value is the rest or the next word.
		{"docker run -itv /a:/b img", "cli=docker image=img@23 cmd=[]"},
		{"docker run -p8000:8000 -eA=1 img", "cli=docker image=img@30 env=A:1@28 cmd=[]"},
		{"docker run -e=A=1 img", "cli=docker image=img@19 env=A:1@17 cmd=[]"},
		// --opt=value forms.
		{"docker run --gpus=all --env=A=1 --rm=true img", "cli=docker image=img@43 env=A:1@31 gpus=all@19 cmd=[]"},
		// "--" ends the options: what follows is the image.
		{"docker run --rm -- img --rm", "cli=docker image=img@20 cmd=[--rm]"},
		// Options after the image belong to the container (SetInterspersed(false)).
		{"docker run img --gpus 2", "cli=docker image=img@12 cmd=[--gpus 2]"},
		{"docker run -e HF_TOKEN img", "cli=docker image=img@24 env=HF_TOKEN(inherit) cmd=[]"},
		{"docker run --entrypoint= img", "cli=docker image=img@26 entrypoint=\"\"@25 cmd=[]"},
		// A placeholder image, and a placeholder value of a known option.
		{"docker run --gpus $N $IMAGE --model m", "cli=docker image=$IMAGE@22 gpus=$N@19 cmd=[--model m]"},
		// compose run names a service.
		{"docker compose run --rm -e A=1 svc python3 x", "cli=docker image=svc@32 compose env=A:1@30 cmd=[python3 x]"},
		{"docker compose -f c.yaml -p proj run -T svc", "cli=docker image=svc@41 compose cmd=[]"},
		{"docker compose --ansi never --dry-run run --build -P --quiet-pull svc", "cli=docker image=svc@67 compose cmd=[]"},
		{"docker-compose run --service-ports svc", "cli=docker-compose image=svc@36 compose cmd=[]"},
		{"nerdctl run --rootfs --umask 0022 img", "cli=nerdctl image=img@35 cmd=[]"},
		{"podman run --replace --tz UTC img", "cli=podman image=img@31 cmd=[]"},

		// Not a container run.
		{"docker ps", ""},
		{"docker run", ""},
		{"docker run --help", ""},
		{"docker run --rm", ""},
		{"docker run --gpus", ""},
		{"docker run --no-such-option img", ""},
		{"docker run -Z img", ""},
		{"docker build -t x .", ""},
		{"docker compose up", ""},
		{"docker run $ARGS_THAT_START_WITH --x", "cli=docker image=$ARGS_THAT_START_WITH@12 cmd=[--x]"},
		{"nerdctl --namespace k8s.io run img", ""},
		// docker-only options are not podman's, nor podman's docker's.
		{"docker run --replace img", ""},
		{"echo docker run img", ""},
	}
	for _, tt := range tests {
		r, ok := DetectContainerRun(line(tt.cmd))
		got := ""
		if ok {
			got = runSummary(r)
		}
		if got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.cmd, got, tt.want)
		}
	}
}

func TestContainerRunCmdAt(t *testing.T) {
	words := line("sudo docker run --rm img python3 -m x")
	r, ok := DetectContainerRun(words)
	if !ok || r.CmdAt != 5 || words[r.CmdAt].Raw != "python3" {
		t.Fatalf("CmdAt %d", r.CmdAt)
	}
}

func TestContainerGPUCount(t *testing.T) {
	tests := []struct {
		opts string
		want string // raw|known|col, or "-" when unset
	}{
		{"", "-"},
		{"--gpus all", "all|?|19"},
		{"--gpus 2", "2|=|19"},
		{"--gpus=4", "4|=|19"},
		{"--gpus count=2", "2|=|19"},
		{"--gpus count=all", "all|?|19"},
		{`--gpus "device=0,1"`, "2|=|19"},
		{"--gpus device=3", "1|=|19"},
		{"--gpus device=0,1,2", "device=0,1,2|?|19"}, // read as device=0 plus counts 1 and 2: Set rejects the second count
		{"--gpus device=0,1", "device=0,1|?|19"},     // device=0 and count 1: both, which the daemon rejects
		{"--gpus capabilities=utility", "1|=|19"},
		{"--gpus 1 --gpus 2", "3|=|19"},
		{"--gpus $NGPU", "$NGPU|?|19"},
		{"--gpus two", "two|?|19"},
		{"--gpus bogus=1", "bogus=1|?|19"},
	}
	for _, tt := range tests {
		cmd := "docker run " + tt.opts + " img"
		words := line(cmd)
		// line does not remove quotes: do it as the shell would.
		for i := range words {
			words[i].Raw = strings.Trim(words[i].Raw, `"`)
			if strings.HasPrefix(words[i].Raw, "device=0,1") && strings.Contains(tt.opts, `"`) {
				words[i].Raw = `"device=0,1"`
			}
		}
		r, ok := DetectContainerRun(words)
		if !ok {
			t.Fatalf("%s: not detected", cmd)
		}
		g := r.GPUCount()
		got := "-"
		if g.IsSet() {
			k := "?"
			if g.Known {
				k = "="
			}
			got = fmt.Sprintf("%s|%s|%d", g.Raw, k, g.Span.Col)
		}
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", cmd, got, tt.want)
		}
	}
}

func TestContainerCommand(t *testing.T) {
	tab := NewImageTable([]Image{
		{Repository: "corp/vllm", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}},
		{Repository: "corp/base", Tags: "*", Cmd: []string{"bash"}},
	})
	tests := []struct {
		cmd  string
		want string // the argv, each word raw@col ("img" for words from the image)
	}{
		// Args only: the image's entrypoint supplies the program.
		{"docker run --gpus all corp/vllm:v1 --model m", "vllm@img serve@img --model@36 m@44"},
		// A command after an image with no entrypoint replaces its CMD.
		{"docker run corp/base python3 -m x", "python3@22 -m@30 x@33"},
		{"docker run corp/base", "bash@img"},
		// --entrypoint replaces the image's entrypoint and drops its CMD.
		{"docker run --entrypoint python3 corp/vllm -m x", "python3@25 -m@43 x@46"},
		{"docker run --entrypoint python3 corp/base", "python3@25"},
		{"docker run --entrypoint= corp/vllm x", "x@36"},
		// An image the table does not know: the command alone.
		{"docker run unknown/img python3 -m x", "python3@24 -m@32 x@35"},
		{"docker run unknown/img --model x", "--model@24 x@32"},
		{"docker run unknown/img", ""},
		{"docker run --entrypoint vllm unknown/img serve m", "vllm@25 serve@42 m@48"},
		// compose run: the service's image is not on the command line.
		{"docker compose run svc python3 x", "python3@24 x@32"},
		{"docker compose run --entrypoint 'vllm serve' svc m", ""},
	}
	for _, tt := range tests {
		r, ok := DetectContainerRun(line(tt.cmd))
		if !ok {
			t.Fatalf("%s: not detected", tt.cmd)
		}
		c := r.Command(tab)
		var got []string
		for _, w := range c.Argv {
			at := fmt.Sprint(w.Span.Col)
			if len(w.Origin) > 0 && w.Origin[len(w.Origin)-1].Kind == deploy.StepImage {
				at = "img"
			}
			got = append(got, w.Raw+"@"+at)
		}
		if want := strings.HasPrefix(tt.cmd, "docker run unknown/img --model"); c.EngineArgsOnly != want {
			t.Errorf("%s: EngineArgsOnly %v", tt.cmd, c.EngineArgsOnly)
		}
		if tt.want == "" && strings.Contains(tt.cmd, "'") {
			continue // line() cannot quote; the compose split is tested below
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.cmd, strings.Join(got, " "), tt.want)
		}
	}
}

func TestComposeEntrypointSplit(t *testing.T) {
	ep := deploy.Value{Raw: "vllm serve", Known: true, Span: deploy.Span{File: "f", Line: 1, Col: 33, EndLine: 1, EndCol: 43}}
	r := ContainerRun{Compose: true, Entrypoint: &ep, Image: deploy.Value{Raw: "svc", Known: true}, Cmd: line("m")}
	var got []string
	for _, w := range r.Command(nil).Argv {
		got = append(got, fmt.Sprintf("%s@%d", w.Raw, w.Span.Col))
	}
	if strings.Join(got, " ") != "vllm@33 serve@38 m@1" {
		t.Errorf("got %v", got)
	}
	// docker run takes --entrypoint as one program word.
	r.Compose = false
	if argv := r.Command(NewImageTable(nil)).Argv; len(argv) != 2 || argv[0].Raw != "vllm serve" {
		t.Errorf("docker entrypoint split: %v", argv)
	}
}

func TestContainerEnvPlaceholders(t *testing.T) {
	r, ok := DetectContainerRun(line("docker run -e MODEL=$M -e $EXTRA img"))
	if !ok || len(r.Env) != 2 {
		t.Fatalf("%+v", r)
	}
	if e := r.Env[0]; e.Name != "MODEL" || e.Value.Known || e.Value.Raw != "$M" || e.Value.Span.Col != 21 {
		t.Errorf("env 0: %+v", e)
	}
	if e := r.Env[1]; e.Name != "" || e.Inherit {
		t.Errorf("env 1: %+v", e)
	}
}

func TestEngineArgs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"--model x":                true,
		"--model-path x":           true,
		"--tensor-parallel-size 2": true,
		"--max-model-len=4096":     true,
		"--frobnicate":             false,
		"redis-server":             false,
		"":                         false,
	} {
		if got := EngineArgs(line(cmd)); got != want {
			t.Errorf("EngineArgs(%q) = %v", cmd, got)
		}
	}
}

// FuzzDetectContainerRun checks that reading a container run never panics,
// that every word it returns is a word (or part of one) of the input, and
// that the argv it composes never grows beyond the input plus the image's
// words.
func FuzzDetectContainerRun(f *testing.F) {
	for _, s := range []string{
		"docker run --gpus all -p 1:1 img python3 -m sglang.launch_server --tp 2",
		"sudo podman container run -dit -e=A=1 -eB -- img --model x",
		"docker compose -f c.yaml run --entrypoint=x svc a",
		"docker run -e $X --gpus=\"device=0,1\" $IMAGE",
		"docker --context c -D run -itv /a:/b -p8000:8000 img",
		"docker run - -- --- -e= --=x -= img",
	} {
		f.Add(s)
	}
	tab := NewImageTable([]Image{{Repository: "img", Tags: "*", Entrypoint: []string{"vllm", "serve"}}})
	f.Fuzz(func(t *testing.T, cmd string) {
		words := line(cmd)
		r, ok := DetectContainerRun(words)
		if !ok {
			return
		}
		if r.CmdAt < 1 || r.CmdAt > len(words) || len(r.Cmd) != len(words)-r.CmdAt {
			t.Fatalf("%q: CmdAt %d of %d words", cmd, r.CmdAt, len(words))
		}
		for _, e := range r.Env {
			if e.Word.Span.IsZero() {
				t.Fatalf("%q: env without span", cmd)
			}
		}
		if argv := r.Command(tab).Argv; len(argv) > len(words)+2 {
			t.Fatalf("%q: argv of %d words", cmd, len(argv))
		}
		r.GPUCount()
	})
}
