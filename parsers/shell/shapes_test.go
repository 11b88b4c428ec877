package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// server returns the flags of each server found in script, as
// "flag=value|known|line:col-endline:endcol", one string per server.
func serverArgs(t *testing.T, script string) []string {
	t.Helper()
	servers, errs := Parse("s.sh", []byte(script), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var out []string
	for _, s := range servers {
		var parts []string
		parts = append(parts, s.Name)
		for _, name := range s.ArgNames() {
			parts = append(parts, name+"="+w(s.Args[name]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func hasStep(v deploy.Value, line, col int) bool {
	for _, s := range v.Origin.Spans() {
		if s.Line == line && s.Col == col {
			return true
		}
	}
	return false
}

func TestLaunchShapes(t *testing.T) {
	tests := []struct {
		name, script string
		want         []string
	}{
		{"eval of a known string maps into the assignment",
			"CMD=\"python3 -m sglang.launch_server --tp 2\"\neval \"$CMD\"\n",
			[]string{"s.sh:2 --tp-size=2|=|1:43-1:44"}},
		{"eval of an unquoted variable",
			"CMD='sglang serve --port 8000'\neval $CMD\n",
			[]string{"s.sh:2 --port=8000|=|1:26-1:30"}},
		{"eval of a string with a variable inside",
			"ARGS=\"--tp 4 --port 30000\"\neval \"python3 -m sglang.launch_server $ARGS\"\n",
			[]string{"s.sh:2 --port=30000|=|1:21-1:26 --tp-size=4|=|1:12-1:13"}},
		{"eval word written in two pieces points at the eval word",
			"P=300\neval \"sglang serve --port=${P}00\"\n",
			[]string{"s.sh:2 --port=30000|=|2:6-2:34"}},
		{"eval of several words",
			"eval sglang serve --tp 2\n",
			[]string{"s.sh:1 --tp-size=2|=|1:24-1:25"}},
		{"eval of an unknown string invents nothing",
			"eval \"$LAUNCH\"\n", nil},
		{"eval sets variables in this shell",
			"eval 'TP=8'\nsglang serve --tp $TP\n",
			[]string{"s.sh:2 --tp-size=8|=|2:19-2:22"}},
		{"array expanded quoted, each element its own span",
			"M=org/model\nARGS=(--model-path \"$M\" --tp 2)\nARGS+=(--context-length 8192)\nsglang serve \"${ARGS[@]}\"\n",
			[]string{"s.sh:4 --context-length=8192|=|3:25-3:29 --model-path=org/model|=|2:20-2:24 --tp-size=2|=|2:30-2:31"}},
		{"array indexed assignment and [*]",
			"ARGS=(--tp 2)\nARGS[1]=4\nsglang serve ${ARGS[*]}\n",
			[]string{"s.sh:3 --tp-size=4|=|2:9-2:10"}},
		{"array element",
			"P=(8000 9000)\nsglang serve --port ${P[1]}\n",
			[]string{"s.sh:2 --port=9000|=|2:21-2:28"}},
		{"array assigned in a branch is unknown after",
			"A=(--tp 2)\nif x; then A=(--tp 4); fi\nsglang serve \"${A[@]}\"\n",
			[]string{"s.sh:3"}},
		{"sparse array is unknown",
			"A=([0]=--tp [2]=4)\nsglang serve \"${A[@]}\"\n",
			[]string{"s.sh:2"}},
		{"function called later, one server per call",
			"launch() { python3 -m sglang.launch_server --model-path \"$1\" \"$@\"; }\nlaunch org/m --tp 2\nlaunch org/n --tp 4\n",
			[]string{
				"s.sh:2 --model-path=org/m|=|2:8-2:13 --tp-size=2|=|2:19-2:20",
				"s.sh:3 --model-path=org/n|=|3:8-3:13 --tp-size=4|=|3:19-3:20",
			}},
		{"a slice of the arguments",
			"f() { sglang serve --model-path \"$1\" \"${@:2}\"; }\nf org/m --tp 2\n",
			[]string{"s.sh:2 --model-path=org/m|=|2:3-2:8 --tp-size=2|=|2:14-2:15"}},
		{"function keyword form",
			"function serve {\n  sglang serve --tp \"$1\"\n}\nserve 8\n",
			[]string{"s.sh:4 --tp-size=8|=|4:7-4:8"}},
		{"function never called launches nothing",
			"launch() { sglang serve --tp 2; }\n", nil},
		{"recursive function is walked once",
			"f() { sglang serve --tp \"$1\"; f \"$1\"; }\nf 2\n",
			[]string{"s.sh:2 --tp-size=2|=|2:3-2:4"}},
		{"function called from eval",
			"f() { sglang serve --tp \"$1\"; }\nCMD='f 2'\neval \"$CMD\"\n",
			[]string{"s.sh:3 --tp-size=2|=|2:8-2:9"}},
		{"array passed to a function",
			"f() { sglang serve \"$@\"; }\nA=(--tp 2)\nf \"${A[@]}\"\n",
			[]string{"s.sh:3 --tp-size=2|=|2:9-2:10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serverArgs(t, tt.script)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("servers:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A flag that eval cannot place exactly keeps the assignment in its origin.
func TestEvalOrigin(t *testing.T) {
	servers, errs := Parse("s.sh", []byte("P=300\neval \"sglang serve --port=${P}00\"\n"), nil)
	if len(errs) > 0 || len(servers) != 1 {
		t.Fatal(servers, errs)
	}
	if v := servers[0].Args["--port"]; !hasStep(v, 1, 3) {
		t.Errorf("--port origin %v lacks the assignment at 1:3", v.Origin.Spans())
	}
}

func TestFollowBudget(t *testing.T) {
	// Each f<n> calls f<n+1> twice: 2^20 calls if all were followed.
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "f%d() { f%d; f%d; }\n", i, i+1, i+1)
	}
	b.WriteString("f20() { sglang serve --tp 2; }\nf0\n")
	cmds, errs := Commands(Source{File: "s.sh", Text: []byte(b.String())})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "not followed") || errs[0].Span.Line != 20 {
		t.Fatalf("errors %v", errs)
	}
	if len(cmds) > 2*maxFollow+2 {
		t.Errorf("%d commands: the budget did not hold", len(cmds))
	}
}

func TestEvalDepth(t *testing.T) {
	_, errs := Commands(Source{File: "s.sh", Text: []byte("C='eval \"$C\"'\neval \"$C\"\n")})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "eval nested more than") {
		t.Fatalf("errors %v", errs)
	}
}

func TestSlurmGPUs(t *testing.T) {
	const launch = "srun --ntasks=1 python3 -m sglang.launch_server --model-path m\n"
	tests := []struct {
		name, head string
		gpu, count string // as w() renders them; "" for unset
	}{
		{"gres with type and count", "#SBATCH --gres=gpu:h100:8\n", "h100|=|2:20-2:24", "8|=|2:25-2:26"},
		{"gres count only", "#SBATCH --nodes=2\n#SBATCH --gres=gpu:4 --time=1:00:00\n", "", "4|=|3:20-3:21"},
		{"gres as the next word, with another resource", "#SBATCH --gres nvme:1,gpu:a100:2\n", "a100|=|2:27-2:31", "2|=|2:32-2:33"},
		{"gres gpu alone counts one", "#SBATCH --gres=gpu\n", "", "1|=|2:16-2:19"},
		{"gpus per node", "#SBATCH --gpus-per-node=H100:8\n", "H100|=|2:25-2:29", "8|=|2:30-2:31"},
		{"gpus total on one node", "#SBATCH -N 1\n#SBATCH --gpus=h100:8\n", "h100|=|3:16-3:20", "8|=|3:21-3:22"},
		{"gpus total without a node count", "#SBATCH -G 8\n", "", "8|?|2:12-2:13"},
		{"G joined, one node", "#SBATCH -N1 -G8\n", "", "8|=|2:15-2:16"},
		{"quoted value", "#SBATCH --gres=\"gpu:l40s:4\"\n", "l40s|=|2:21-2:25", "4|=|2:26-2:27"},
		{"a command ends the directives", "module load cuda\n#SBATCH --gres=gpu:8\n", "", ""},
		{"a comment does not", "# serve\n\n#SBATCH --gres=gpu:2 # two\n", "", "2|=|4:20-4:21"},
		{"indented #SBATCH is not a directive", "  #SBATCH --gres=gpu:2\n", "", ""},
		{"two types per node: type unknown", "#SBATCH --gpus-per-node=a100:2,h100:2\n", "a100:2,h100:2|?|2:25-2:38", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, errs := Parse("job.slurm", []byte("#!/bin/bash\n"+tt.head+launch), nil)
			if len(errs) > 0 || len(servers) != 1 {
				t.Fatal(servers, errs)
			}
			render := func(v deploy.Value) string {
				if !v.IsSet() {
					return ""
				}
				return w(v)
			}
			if got := render(servers[0].GPU); got != tt.gpu {
				t.Errorf("GPU %q, want %q", got, tt.gpu)
			}
			if got := render(servers[0].GPUCount); got != tt.count {
				t.Errorf("GPUCount %q, want %q", got, tt.count)
			}
		})
	}
}

// A script without servers gets nothing from its directives, and a
// server's own count is kept.
func TestSlurmNoServer(t *testing.T) {
	servers, errs := Parse("job.slurm", []byte("#!/bin/bash\n#SBATCH --gres=gpu:8\nsrun go build ./...\n"), nil)
	if len(servers) != 0 || len(errs) != 0 {
		t.Fatal(servers, errs)
	}
}

// srun's own GPU options are the step's: they win over the batch request,
// which still gives what the step does not say.
func TestSrunGPUs(t *testing.T) {
	script := "#!/bin/bash\n#SBATCH --gres=gpu:h100:8\nsrun --gres gpu:2 --ntasks=1 python3 -m sglang.launch_server --tp 2\n" +
		"srun --gpus-per-node=a100:4 sglang serve m\n"
	servers, errs := Parse("job.sh", []byte(script), nil)
	if len(errs) > 0 || len(servers) != 2 {
		t.Fatal(servers, errs)
	}
	got := []string{w(servers[0].GPU), w(servers[0].GPUCount), w(servers[1].GPU), w(servers[1].GPUCount)}
	want := []string{"h100|=|2:20-2:24", "2|=|3:17-3:18", "a100|=|4:22-4:26", "4|=|4:27-4:28"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("GPUs %q, want %q", got, want)
	}
}
