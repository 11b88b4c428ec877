package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// w renders a word as raw|known|line:col-endline:endcol for comparison.
func w(v deploy.Value) string {
	k := "?"
	if v.Known {
		k = "="
	}
	return fmt.Sprintf("%s|%s|%d:%d-%d:%d", v.Raw, k, v.Span.Line, v.Span.Col, v.Span.EndLine, v.Span.EndCol)
}

func words(c Command) []string {
	out := make([]string, len(c.Words))
	for i, v := range c.Words {
		out[i] = w(v)
	}
	return out
}

// find returns the first command whose first non-assignment words start
// with prefix.
func find(t *testing.T, cmds []Command, prefix ...string) Command {
	t.Helper()
	for _, c := range cmds {
		var raws []string
		for _, v := range c.Words {
			raws = append(raws, v.Raw)
		}
		for i := range raws {
			if len(raws)-i >= len(prefix) && strings.Join(raws[i:i+len(prefix)], "\x00") == strings.Join(prefix, "\x00") {
				return c
			}
		}
	}
	t.Fatalf("no command with %q in %v", prefix, dump(cmds))
	return Command{}
}

func dump(cmds []Command) string {
	var b strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n%v %q", c.Span, words(c))
	}
	return b.String()
}

func TestCommandWords(t *testing.T) {
	tests := []struct {
		name   string
		script string
		find   []string // words the command contains
		want   []string // its words
	}{
		{
			name: "continuation lines",
			script: "python3 -m sglang.launch_server \\\n" +
				"  --model-path meta-llama/Llama-3.1-8B-Instruct \\\n" +
				"  --port 30000\n",
			find: []string{"python3"},
			want: []string{
				"python3|=|1:1-1:8", "-m|=|1:9-1:11", "sglang.launch_server|=|1:12-1:32",
				"--model-path|=|2:3-2:15", "meta-llama/Llama-3.1-8B-Instruct|=|2:16-2:48",
				"--port|=|3:3-3:9", "30000|=|3:10-3:15",
			},
		},
		{
			name:   "continuation inside a word",
			script: "run --context-len\\\ngth 8192\n",
			find:   []string{"run"},
			want:   []string{"run|=|1:1-1:4", "--context-length|=|1:5-2:4", "8192|=|2:5-2:9"},
		},
		{
			name:   "quoting forms",
			script: `run 'a b' "c d" "e"'f'g "say \"hi\" \$x" a\ b $'t\tab' ""` + "\n",
			find:   []string{"run"},
			want: []string{
				"run|=|1:1-1:4", "a b|=|1:5-1:10", "c d|=|1:11-1:16", "efg|=|1:17-1:24",
				`say "hi" $x|=|1:25-1:41`, "a b|=|1:42-1:46", "t\tab|=|1:47-1:55", "|=|1:56-1:58",
			},
		},
		{
			name:   "variable from an earlier assignment",
			script: "MODEL=meta-llama/Llama-3.1-8B-Instruct\nexport PORT=30000\nrun --model-path \"$MODEL\" --port=$PORT ${PORT}x\n",
			find:   []string{"run"},
			want: []string{
				"run|=|3:1-3:4", "--model-path|=|3:5-3:17", "meta-llama/Llama-3.1-8B-Instruct|=|3:18-3:26",
				"--port=30000|=|3:27-3:39", "30000x|=|3:40-3:48",
			},
		},
		{
			name: "defaults",
			script: "EMPTY=\nSET=7\nunset GONE\n" +
				"run ${EMPTY:-1} ${EMPTY-2} ${SET:-3} ${GONE-4} ${NEVER:-5} ${NEW:=6} $NEW ${SET:+alt} ${GONE:+alt}x\n",
			find: []string{"run"},
			want: []string{
				"run|=|4:1-4:4", "1|=|4:5-4:16", "7|=|4:28-4:37", "4|=|4:38-4:47",
				"${NEVER:-5}|?|4:48-4:59", "${NEW:=6}|?|4:60-4:69", "$NEW|?|4:70-4:74", "alt|=|4:75-4:86", "x|=|4:87-4:100",
			},
		},
		{
			name:   "positional and special parameters are unknown",
			script: "run --node-rank $1 \"$@\" $# ${2:-0} $EXTRA_ARGS\n",
			find:   []string{"run"},
			want: []string{
				"run|=|1:1-1:4", "--node-rank|=|1:5-1:16", "$1|?|1:17-1:19", "$@|?|1:20-1:24",
				"$#|?|1:25-1:27", "${2:-0}|?|1:28-1:35", "$EXTRA_ARGS|?|1:36-1:47",
			},
		},
		{
			name:   "placeholders stay unknown",
			script: "run --nnodes $(LWS_GROUP_SIZE) --tp `nproc` --dist-init-addr $(LWS_LEADER_ADDRESS):20000 --mem $TP_SIZE\n",
			find:   []string{"run"},
			want: []string{
				"run|=|1:1-1:4", "--nnodes|=|1:5-1:13", "$(LWS_GROUP_SIZE)|?|1:14-1:31",
				"--tp|=|1:32-1:36", "`nproc`|?|1:37-1:44", "--dist-init-addr|=|1:45-1:61",
				"$(LWS_LEADER_ADDRESS):20000|?|1:62-1:89", "--mem|=|1:90-1:95", "$TP_SIZE|?|1:96-1:104",
			},
		},
		{
			name:   "unquoted variable splits into fields",
			script: "OPTS=\"--tp 2  --port 30000\"\nrun $OPTS \"$OPTS\"\n",
			find:   []string{"run"},
			want: []string{
				"run|=|2:1-2:4", "--tp|=|2:5-2:10", "2|=|2:5-2:10", "--port|=|2:5-2:10", "30000|=|2:5-2:10",
				"--tp 2  --port 30000|=|2:11-2:18",
			},
		},
		{
			name:   "an empty unquoted variable disappears",
			script: "E=\nrun $E \"$E\" x\n",
			find:   []string{"run"},
			want:   []string{"run|=|2:1-2:4", "|=|2:8-2:12", "x|=|2:13-2:14"},
		},
		{
			name:   "nohup and background",
			script: "nohup python3 -m sglang.launch_server --port 30000 > log 2>&1 &\n",
			find:   []string{"nohup"},
			want: []string{
				"nohup|=|1:1-1:6", "python3|=|1:7-1:14", "-m|=|1:15-1:17", "sglang.launch_server|=|1:18-1:38",
				"--port|=|1:39-1:45", "30000|=|1:46-1:51",
			},
		},
		{
			name:   "numactl wrapper and prefix assignments",
			script: "CUDA_VISIBLE_DEVICES=0,1 numactl --cpunodebind=0 --membind=0 python3 -m sglang.launch_server --tp 2\n",
			find:   []string{"numactl"},
			want: []string{
				"CUDA_VISIBLE_DEVICES=0,1|=|1:1-1:25", "numactl|=|1:26-1:33", "--cpunodebind=0|=|1:34-1:49",
				"--membind=0|=|1:50-1:61", "python3|=|1:62-1:69", "-m|=|1:70-1:72",
				"sglang.launch_server|=|1:73-1:93", "--tp|=|1:94-1:98", "2|=|1:99-1:100",
			},
		},
		{
			name:   "prefix assignments do not apply to the command's own words",
			script: "P=1\nP=2 run $P\n",
			find:   []string{"run"},
			want:   []string{"P=2|=|2:1-2:4", "run|=|2:5-2:8", "1|=|2:9-2:11"},
		},
		{
			name:   "arithmetic on known values",
			script: "BASE=30000\nRANK=2\nrun $((BASE + RANK * 10)) $((BASE / 0)) $((X+1))\n",
			find:   []string{"run"},
			want: []string{
				"run|=|3:1-3:4", "30020|=|3:5-3:26", "$((BASE / 0))|?|3:27-3:40", "$((X+1))|?|3:41-3:49",
			},
		},
		{
			name:   "globs and brace expansion are not expanded",
			script: "run /models/* {a,b} [ x]\n",
			find:   []string{"run"},
			want:   []string{"run|=|1:1-1:4", "/models/*|?|1:5-1:14", "{a,b}|?|1:15-1:20", "[|=|1:21-1:22", "x]|=|1:23-1:25"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "run.sh", Text: []byte(tt.script)})
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			got := words(find(t, cmds, tt.find...))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("words:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCommandOrderAndSpans(t *testing.T) {
	script := `#!/bin/bash
set -euo pipefail
cd /srv && python3 -m sglang.launch_server --port 1 || echo failed
(python3 -m sglang_router.launch_router --port 8000) | tee router.log
if true; then
  exec sglang serve --port 3
fi
start() {
  python3 -m sglang.launch_server --port 4
}
for i in 1 2; do python3 -m sglang.launch_server --port 5; done
`
	cmds, errs := Commands(Source{File: "s.sh", Text: []byte(script)})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, fmt.Sprintf("%d:%d-%d:%d %s", c.Span.Line, c.Span.Col, c.Span.EndLine, c.Span.EndCol, c.Words[0].Raw))
	}
	want := []string{
		"2:1-2:18 set",
		"3:1-3:8 cd",
		"3:12-3:52 python3",
		"3:56-3:67 echo",
		"4:2-4:52 python3",
		"4:56-4:70 tee",
		"5:4-5:8 true",
		"6:3-6:29 exec",
		// start is never called: its body runs nothing.
		"11:18-11:58 python3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n got %q\nwant %q", got, want)
	}
	for _, c := range cmds {
		if c.Span.File != "s.sh" {
			t.Errorf("span file %q", c.Span.File)
		}
	}
}

func TestVariableFlow(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string // the word after "run"
	}{
		{"assigned in one branch only", "if [ -n \"$X\" ]; then TP=2; fi\nrun $TP", "$TP|?"},
		{"both branches agree", "TP=1\nif [ -n \"$X\" ]; then TP=2; else TP=2; fi\nrun $TP", "2|="},
		{"elif branches disagree", "if a; then TP=2; elif b; then TP=4; else TP=2; fi\nrun $TP", "$TP|?"},
		{"&& right side may not run", "TP=1\n[ -z \"$X\" ] && TP=2\nrun $TP", "$TP|?"},
		{"&& right side agrees", "TP=2\ntrue && TP=2\nrun $TP", "2|="},
		{"loop variable", "for TP in 1 2; do :; done\nrun $TP", "$TP|?"},
		{"assigned in a loop", "TP=1\nwhile read line; do TP=$line; done\nrun $TP", "$TP|?"},
		{"read", "read -r TP\nrun $TP", "$TP|?"},
		{"subshell does not leak", "TP=1\n(TP=2)\nrun $TP", "1|="},
		{"pipeline does not leak", "TP=1\necho | TP=2\nrun $TP", "1|="},
		{"background does not leak", "TP=1\nTP=2 &\nrun $TP", "1|="},
		{"function call runs the body", "f() { TP=2; }\nTP=1\nf\nrun $TP", "2|="},
		{"function local is restored", "f() { local TP=2; }\nTP=1\nf\nrun $TP", "1|="},
		{"a recursive call is not followed and forgets what the body assigns", "f() { TP=2; f; }\nTP=1\nf\nrun $TP", "$TP|?"},
		{"function called in a loop forgets", "f() { TP=2; }\nTP=1\nwhile c; do f; done\nrun $TP", "$TP|?"},
		{"function defined but not called", "f() { TP=2; }\nTP=1\nrun $TP", "1|="},
		{"source forgets everything", "TP=1\n. ./env.sh\nrun $TP", "$TP|?"},
		{"a virtualenv's activate keeps the other variables", "TP=1\nsource .venv/bin/activate\nrun $TP", "1|="},
		{"a virtualenv's activate changes PATH", "PATH=/bin\nsource /opt/venv/bin/activate\nrun $PATH", "$PATH|?"},
		{"a file named activate elsewhere forgets everything", "TP=1\nsource ./activate\nrun $TP", "$TP|?"},
		{"conda's activate with an environment forgets everything", "TP=1\nsource /opt/venv/bin/activate myenv\nrun $TP", "$TP|?"},
		{"conda's activate forgets everything", "TP=1\nsource ~/miniconda3/bin/activate\nrun $TP", "$TP|?"},
		{"an activate path kvlint cannot read forgets everything", "TP=1\nsource \"$VENV/bin/activate\"\nrun $TP", "$TP|?"},
		{"eval forgets everything", "TP=1\neval \"$SETUP\"\nrun $TP", "$TP|?"},
		{"command substitution", "TP=$(nproc)\nrun $TP", "$TP|?"},
		{"arithmetic command", "TP=1\n((TP++))\nrun $TP", "$TP|?"},
		{"declare -i is arithmetic", "declare -i TP=1+1\nrun $TP", "$TP|?"},
		{"local and readonly", "readonly TP=4\nTP=5\nrun $TP", "4|="},
		{"append", "A=--tp\nA+==2\nrun $A", "--tp=2|="},
		{"unset", "TP=1\nunset TP\nrun ${TP:-3}", "3|="},
		{"case without default", "case $1 in a) TP=1;; esac\nrun $TP", "$TP|?"},
		{"case with agreeing branches and default", "case $1 in a) TP=1;; *) TP=1;; esac\nrun $TP", "$TP|?"},
		{"printf -v", "TP=1\nprintf -v TP '%d' 2\nrun $TP", "$TP|?"},
		{"changed IFS", "IFS=,\nO=a,b\nrun $O", "$O|?"},
		{"length", "M=abcd\nrun ${#M}", "4|="},
		{"assigned an empty expansion", "E=\nA=$E\nrun \"${A}x\"", "x|="},
		{"pattern removal is not evaluated", "M=a/b\nrun ${M##*/}", "${M##*/}|?"},
		{"tilde with unknown HOME", "run ~/m", "~/m|?"},
		{"tilde with known HOME", "HOME=/root\nrun ~/m", "/root/m|="},
		{"tilde after a colon in an assignment", "HOME=/root\nP=/a:~/b\nrun $P", "$P|?"},
		{"unset IFS splits as the default", "unset IFS\nO='a b'\nrun $O", "a|="},
		{"read through the command builtin", "TP=1\ncommand read TP\nrun $TP", "$TP|?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "v.sh", Text: []byte(tt.script + "\n")})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			c := find(t, cmds, "run")
			if len(c.Words) < 2 {
				t.Fatalf("words %q", words(c))
			}
			got := w(c.Words[1])
			got = got[:strings.LastIndex(got, "|")]
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVia(t *testing.T) {
	script := "BASE=/models\nMODEL=$BASE/llama\nrun \"$MODEL\"\n"
	cmds, _ := Commands(Source{File: "v.sh", Text: []byte(script)})
	c := find(t, cmds, "run")
	v := c.Words[1]
	if v.Raw != "/models/llama" || !v.Known {
		t.Fatalf("word %s", w(v))
	}
	var via []string
	for _, s := range v.Origin.Spans() {
		via = append(via, fmt.Sprintf("%d:%d-%d:%d", s.Line, s.Col, s.EndLine, s.EndCol))
	}
	// BASE's value, then MODEL's value.
	want := []string{"1:6-1:13", "2:7-2:18"}
	if strings.Join(via, " ") != strings.Join(want, " ") {
		t.Errorf("via %v, want %v", via, want)
	}
}

func TestEnv(t *testing.T) {
	env := Env{
		"MODEL": deploy.Known("Qwen/Qwen2.5-7B", deploy.Span{File: "pod.yaml", Line: 9, Col: 16, EndLine: 9, EndCol: 31}),
		"RANK":  deploy.Unknown("$(POD_INDEX)", deploy.Span{File: "pod.yaml", Line: 11, Col: 16, EndLine: 11, EndCol: 28}),
	}
	script := "run --model-path $MODEL --node-rank $RANK\n"
	cmds, _ := Commands(Source{File: "pod.yaml", Text: []byte(script), Env: env})
	got := words(find(t, cmds, "run"))
	want := []string{"run|=|1:1-1:4", "--model-path|=|1:5-1:17", "Qwen/Qwen2.5-7B|=|1:18-1:24", "--node-rank|=|1:25-1:36", "$RANK|?|1:37-1:42"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("words:\n got %q\nwant %q", got, want)
	}
	if o := find(t, cmds, "run").Words[2].Origin; len(o) != 1 || o[0].Span.Line != 9 || o[0].Span.File != "pod.yaml" || o[0].Kind != deploy.StepEnv {
		t.Errorf("origin %+v, want the environment variable at pod.yaml:9", o)
	}
	// An unknown value still says where it was set.
	if via := find(t, cmds, "run").Words[4].Origin.Spans(); len(via) != 1 || via[0].Line != 11 {
		t.Errorf("via of the unknown value %v", via)
	}
}

func TestNestedScript(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string // words of the inner launch
	}{
		{
			name:   "double quotes with expansion and escapes",
			script: "MODEL=m\nbash -c \"python3 -m sglang.launch_server --model-path $MODEL --x \\\"a b\\\" --p \\$P\"\n",
			want: []string{
				"python3|=|2:10-2:17", "-m|=|2:18-2:20", "sglang.launch_server|=|2:21-2:41",
				"--model-path|=|2:42-2:54", "m|=|2:55-2:56", "--x|=|2:62-2:65",
				"a b|=|2:67-2:73", "--p|=|2:74-2:77", "$P|?|2:79-2:81",
			},
		},
		{
			name:   "single quotes see only exported variables",
			script: "A=1\nexport B=2\nsh -c 'python3 -m sglang.launch_server --a $A --b $B'\n",
			want: []string{
				"python3|=|3:8-3:15", "-m|=|3:16-3:18", "sglang.launch_server|=|3:19-3:39",
				"--a|=|3:40-3:43", "$A|?|3:44-3:46", "--b|=|3:47-3:50", "2|=|3:51-3:53",
			},
		},
		{
			name:   "prefix assignment reaches the child",
			script: "PORT=1 /bin/bash -e -o pipefail -lc 'exec python3 -m sglang.launch_server --port $PORT'\n",
			want: []string{
				"exec|=|1:38-1:42", "python3|=|1:43-1:50", "-m|=|1:51-1:53", "sglang.launch_server|=|1:54-1:74",
				"--port|=|1:75-1:81", "1|=|1:82-1:87",
			},
		},
		{
			name: "continuation lines inside the string",
			script: "bash -c \"python3 -m sglang.launch_server \\\n" +
				"  --tp 2\"\n",
			want: []string{
				"python3|=|1:10-1:17", "-m|=|1:18-1:20", "sglang.launch_server|=|1:21-1:41",
				"--tp|=|2:3-2:7", "2|=|2:8-2:9",
			},
		},
		{
			name: "multi-line single-quoted script",
			script: "sh -c '\n" +
				"  cd /srv\n" +
				"  python3 -m sglang.launch_server --tp 2 --nnodes $(LWS_GROUP_SIZE)\n" +
				"'\n",
			want: []string{
				"python3|=|3:3-3:10", "-m|=|3:11-3:13", "sglang.launch_server|=|3:14-3:34",
				"--tp|=|3:35-3:39", "2|=|3:40-3:41", "--nnodes|=|3:42-3:50", "$(LWS_GROUP_SIZE)|?|3:51-3:68",
			},
		},
		{
			name:   "sh -c inside sh -c",
			script: `sh -c "bash -c 'python3 -m sglang.launch_server --tp 4'"` + "\n",
			want: []string{
				"python3|=|1:17-1:24", "-m|=|1:25-1:27", "sglang.launch_server|=|1:28-1:48",
				"--tp|=|1:49-1:53", "4|=|1:54-1:55",
			},
		},
		{
			name:   "after a wrapper program",
			script: "docker run --gpus all img bash -lc 'python3 -m sglang.launch_server --tp 4'\n",
			want: []string{
				"python3|=|1:37-1:44", "-m|=|1:45-1:47", "sglang.launch_server|=|1:48-1:68",
				"--tp|=|1:69-1:73", "4|=|1:74-1:75",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "n.sh", Text: []byte(tt.script)})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			got := words(find(t, cmds, "python3"))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("words:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestScriptArg(t *testing.T) {
	tests := []struct {
		argv string
		want int // -1: not a shell script string
	}{
		{"sh -c x", 2},
		{"/bin/sh -c x", 2},
		{"bash -lc x", 2},
		{"bash -l -c x", 3},
		{"bash -o pipefail -c x", 4},
		{"bash -eo pipefail -c x", 4},
		{"bash --login -c x", 3},
		{"exec bash -c x", 3},
		{"bash script.sh", -1},
		{"bash -c", -1},
		{"python3 -c x", -1},
		{"env A=b bash -ec x", 4},
	}
	for _, tt := range tests {
		var argv []deploy.Value
		for _, f := range strings.Fields(tt.argv) {
			argv = append(argv, deploy.Known(f, deploy.Span{}))
		}
		i, ok := ScriptArg(argv)
		if !ok {
			i = -1
		}
		if i != tt.want {
			t.Errorf("ScriptArg(%q) = %d, want %d", tt.argv, i, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"unclosed quote", "run a\nrun --port \"30000\n", "e.sh:2:12: shell syntax error: reached EOF without closing quote `\"`"},
		{"unterminated if", "run a\nif true; then\n  run\n", "e.sh:2:1: shell syntax error: `if` statement must end with `fi`"},
		{"in a nested script", "ok\n  bash -c \"run 'x\"\n", "e.sh:2:16: in the script of sh -c: shell syntax error: reached EOF without closing quote `'`"},
		// A template rendered before it runs says so; the plain arithmetic
		// error above it (no {{ on its line) does not.
		{"in a template action", "ok\nN=$(( 2 * {{ or .Spec.N 1 }} ))\n", "e.sh:2:14: shell syntax error: not a valid arithmetic operator: `or` (inside a {{ ... }} template action: this script is a template rendered before it runs, and kvlint reads it as written)"},
		{"arithmetic", "ok\nN=$(( 2 * x or 1 ))\n", "e.sh:2:13: shell syntax error: not a valid arithmetic operator: `or`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "e.sh", Text: []byte(tt.script)})
			if len(errs) != 1 {
				t.Fatalf("errors %v", errs)
			}
			if got := errs[0].Error(); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			if len(cmds) == 0 {
				t.Errorf("commands before the error were dropped")
			}
		})
	}
}

func TestMapper(t *testing.T) {
	// The text is a YAML block scalar indented by 4 columns from line 10.
	mapf := func(line, col int) (int, int) { return line + 9, col + 4 }
	cmds, _ := Commands(Source{File: "pod.yaml", Text: []byte("python3 -m sglang.launch_server\n--tp 2\n"), Map: mapf})
	got := words(cmds[0])
	want := []string{"python3|=|10:5-10:12", "-m|=|10:13-10:15", "sglang.launch_server|=|10:16-10:36"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("words:\n got %q\nwant %q", got, want)
	}
	if cmds[0].Span.Line != 10 || cmds[1].Span.Line != 11 || cmds[1].Span.Col != 5 {
		t.Errorf("spans %v %v", cmds[0].Span, cmds[1].Span)
	}
}

func TestPositionalParameters(t *testing.T) {
	span := func(col int) deploy.Span {
		return deploy.Span{File: "pod.yaml", Line: 7, Col: col, EndLine: 7, EndCol: col + 4}
	}
	params := []deploy.Value{
		deploy.Known("sh", span(1)), deploy.Known("--tp", span(10)), deploy.Known("4", span(20)), deploy.Known("a b", span(30)),
	}
	tests := []struct {
		name   string
		script string
		params []deploy.Value
		want   []string // words after "run"
	}{
		{"quoted $@ keeps each parameter and its span", `run "$@"`, params,
			[]string{"--tp|=|7:10-7:14", "4|=|7:20-7:24", "a b|=|7:30-7:34"}},
		{"$1 and $#", `run $1 "$2" ${3} $# ${9:-d}`, params,
			[]string{"--tp|=|7:10-7:14", "4|=|7:20-7:24", "a|=|1:13-1:17", "b|=|1:13-1:17", "3|=|1:18-1:20", "d|=|1:21-1:28"}},
		{"unquoted $@ with a space inside is split", `run $@`, params,
			[]string{"$@|?|1:5-1:7"}},
		{"shift", "shift\nrun \"$@\"", params,
			[]string{"4|=|7:20-7:24", "a b|=|7:30-7:34"}},
		{"set --", "set -e -- --port 1\nrun \"$@\"", params,
			[]string{"--port|=|1:11-1:17", "1|=|1:18-1:19"}},
		{"set -o pipefail keeps them", "set -euo pipefail\nrun \"$1\"", params,
			[]string{"--tp|=|7:10-7:14"}},
		{"unknown parameters", `run "$@" $1`, nil,
			[]string{"$@|?|1:5-1:9", "$1|?|1:10-1:12"}},
		{"inside a function they are the call's", "f() { run \"$1\" \"$2\"; }\nf x", params,
			[]string{"x|=|2:3-2:4", "|=|1:16-1:20"}},
		{"shift in a loop", "while true; do shift; done\nrun \"$1\"", params,
			[]string{"$1|?|2:5-2:9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "pod.yaml", Text: []byte(tt.script + "\n"), Params: tt.params})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			got := words(find(t, cmds, "run"))[1:]
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("words:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNestedScriptParameters(t *testing.T) {
	script := "PORT=30000\nbash -c 'exec python3 -m sglang.launch_server --tp \"$1\" \"${@:2}\" --port $2' sh 4 \"$PORT\"\n"
	cmds, errs := Commands(Source{File: "n.sh", Text: []byte(script)})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := words(find(t, cmds, "exec"))
	want := []string{
		"exec|=|2:10-2:14", "python3|=|2:15-2:22", "-m|=|2:23-2:25", "sglang.launch_server|=|2:26-2:46",
		"--tp|=|2:47-2:51", "4|=|2:80-2:81", "30000|=|2:82-2:89", "--port|=|2:66-2:72", "30000|=|2:82-2:89",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("words:\n got %q\nwant %q", got, want)
	}
}

func TestViaOfEmptyValues(t *testing.T) {
	cmds, _ := Commands(Source{File: "v.sh", Text: []byte("E=\nA=$E\nrun \"${A}x\"\n")})
	var via []string
	for _, s := range find(t, cmds, "run").Words[1].Origin.Spans() {
		via = append(via, at(s))
	}
	// E= is written at 1:1-1:3; A's value $E at 2:3-2:5. No span falls
	// back to the start of the file.
	want := []string{"1:1-1:3", "2:3-2:5"}
	if strings.Join(via, " ") != strings.Join(want, " ") {
		t.Errorf("via %v, want %v", via, want)
	}
}

// A=$A$A on each line doubles the value; the run stops copying at maxCopy
// with one error at the expansion that crossed it, and the launch after it
// is still found (with an unknown model).
func TestDoublingExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("A0=xxxxxxxxxxxxxxxx\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "A%d=\"$A%d$A%d\"\n", i, i-1, i-1)
	}
	b.WriteString("python3 -m sglang.launch_server --model-path \"$A39\"\n")
	text := []byte(b.String())
	cmds, errs := Commands(Source{File: "x.sh", Text: text})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "expand to more than") {
		t.Fatalf("errors: %v", errs)
	}
	if errs[0].Span.Line < 18 || errs[0].Span.Line > 23 {
		t.Errorf("error at line %d", errs[0].Span.Line)
	}
	last := cmds[len(cmds)-1]
	if len(last.Words) != 5 || last.Words[4].Known {
		t.Fatalf("launch words: %+v", last.Words)
	}
}

// A command of more words than any launch is an error at the first word
// past the bound, and no command is built from it.
func TestTooManyWords(t *testing.T) {
	text := []byte("python3 -m sglang.launch_server" + strings.Repeat(" --foo", 70000) + "\n")
	cmds, errs := Commands(Source{File: "x.sh", Text: text})
	if len(cmds) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Message, "more than 65536 words") {
		t.Fatalf("cmds %d, errors %v", len(cmds), errs)
	}
	// python3, -m, the module and 65,533 --foo make 65,536 words: the
	// error is at the next --foo, column 32+6*65533+1.
	if want := 32 + 6*65533 + 1; errs[0].Span.Col != want {
		t.Errorf("error at col %d, want %d", errs[0].Span.Col, want)
	}
}

// A 30,000-line script that grows a value on every line stops at the
// expansion that crosses the run's budget, the same one on any machine,
// and the launch after it is still found with an unknown word whose
// origin stays short.
func TestGrowingExpansionsBounded(t *testing.T) {
	// chain: line k+2 (A<k>=$A<k-1>) copies an origin of k steps, paying
	// k+1; the first k whose running sum k(k+3)/2 passes maxSteps is the
	// line of the error.
	chainLine := 0
	for k := 1; chainLine == 0; k++ {
		if k*(k+3)/2 > maxSteps {
			chainLine = k + 2
		}
	}
	// append: line k+2 copies the k*100 bytes the value then holds.
	appendLine := 0
	for k := 1; appendLine == 0; k++ {
		if 100*k*(k+1)/2 > maxCopy {
			appendLine = k + 2
		}
	}
	for _, tc := range []struct {
		name    string
		text    []byte
		line    int
		col     int
		message string
	}{
		{"double", doublingScript(30000), 25, 3, "expand to more than 16777216 bytes"},
		{"argv", argvScript(30000), 24, 4, "expand to more than 16777216 bytes"},
		{"array", arrayScript(30000), 18, 4, "expanded more than 1048576 times"},
		{"chain", chainScript(30000), chainLine, 7, "expanded more than 1048576 times"},
		{"append", appendScript(30000), appendLine, 1, "expand to more than 16777216 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds, errs := Commands(Source{File: "x.sh", Text: tc.text})
			if len(errs) != 1 || !strings.Contains(errs[0].Message, tc.message) {
				t.Fatalf("errors: %v", errs)
			}
			if sp := errs[0].Span; sp.Line != tc.line || sp.Col != tc.col {
				t.Errorf("error at %d:%d, want %d:%d", sp.Line, sp.Col, tc.line, tc.col)
			}
			last := cmds[len(cmds)-1]
			if len(last.Words) < 5 || last.Words[0].Raw != "python3" {
				t.Fatalf("launch words: %d", len(last.Words))
			}
			for _, w := range last.Words {
				if len(w.Origin) > 4 {
					t.Errorf("word %.20q has an origin of %d steps", w.Raw, len(w.Origin))
				}
			}
			if w := last.Words[len(last.Words)-1]; w.Known {
				t.Errorf("last word %.20q is known", w.Raw)
			}
		})
	}
}

// An unquoted expansion that would split into more words than any
// command has is an error at the expansion, before the words are made.
func TestSplitIntoTooManyWords(t *testing.T) {
	text := "A='" + strings.Repeat("-x ", 70000) + "'\npython3 -m sglang.launch_server --model-path m $A\n"
	cmds, errs := Commands(Source{File: "x.sh", Text: []byte(text)})
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "expands to more than 65536 words") {
		t.Fatalf("errors: %v", errs)
	}
	if sp := errs[0].Span; sp.Line != 2 || sp.Col != 48 {
		t.Errorf("error at %d:%d, want 2:48", sp.Line, sp.Col)
	}
	last := cmds[len(cmds)-1]
	if len(last.Words) != 6 || last.Words[5].Known || last.Words[5].Raw != "$A" {
		t.Errorf("launch words: %+v", last.Words)
	}
}

// Where the caller can show scripts (ConfigMaps mounted in a container),
// an activate script may be one of them: what it may assign is not
// guessed from its name, and the caller is not asked (a missing key is an
// error it reports).
func TestVenvActivateShownIsNotGuessed(t *testing.T) {
	asked := 0
	shown := func(f deploy.Value) (Source, bool) {
		if f.Raw == "venv/bin/activate" && f.Span.IsZero() {
			asked++ // asked for the effects, not for the walk
		}
		return Source{File: "venv/bin/activate", Text: []byte("TP=4\n")}, f.Raw == "venv/bin/activate"
	}
	cmds, errs := Commands(Source{File: "v.sh", Text: []byte("TP=1\nsource venv/bin/activate\nrun $TP\n"), Scripts: shown})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := w(find(t, cmds, "run").Words[1]); !strings.HasPrefix(got, "$TP|?") {
		t.Errorf("got %q, want $TP unknown", got)
	}
	if asked > 0 {
		t.Errorf("the script resolver was asked %d times for the sourced file's effects", asked)
	}
}
