package dockerfile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// w renders a word as raw|known|line:col-endline:endcol.
func w(v deploy.Value) string {
	k := "?"
	if v.Known {
		k = "="
	}
	return fmt.Sprintf("%s|%s|%d:%d-%d:%d", v.Raw, k, v.Span.Line, v.Span.Col, v.Span.EndLine, v.Span.EndCol)
}

// run returns the words of each command the final stage runs.
func run(t *testing.T, dockerfile string) [][]string {
	t.Helper()
	p, final := analyse("Dockerfile", []byte(dockerfile))
	if len(p.errs) > 0 {
		t.Fatalf("errors: %v", p.errs)
	}
	var out [][]string
	cmds, _ := p.commands(final)
	for _, c := range cmds {
		var ws []string
		for _, v := range c.Words {
			ws = append(ws, w(v))
		}
		out = append(out, ws)
	}
	return out
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name       string
		dockerfile string
		want       [][]string
	}{
		{
			name: "exec form",
			dockerfile: "FROM lmsysorg/sglang:latest\n" +
				`CMD ["python3", "-m", "sglang.launch_server", "--port", "30000"]` + "\n",
			want: [][]string{{
				"python3|=|2:6-2:15", "-m|=|2:17-2:21", "sglang.launch_server|=|2:23-2:45",
				"--port|=|2:47-2:55", "30000|=|2:57-2:64",
			}},
		},
		{
			name: "exec form escapes and continuation lines",
			dockerfile: "FROM img\n" +
				"ENTRYPOINT [ \"python3\", \"-m\", \"sglang.launch_server\", \\\n" +
				"  \"--chat-template\", \"a\\\"b\\u00e9\" ]\n",
			want: [][]string{{
				"python3|=|2:14-2:23", "-m|=|2:25-2:29", "sglang.launch_server|=|2:31-2:53",
				"--chat-template|=|3:3-3:20", "a\"bé|=|3:22-3:34",
			}},
		},
		{
			name: "exec form does no substitution",
			dockerfile: "FROM img\nENV PORT=30000\n" +
				`CMD ["python3", "-m", "sglang.launch_server", "--port", "$PORT"]` + "\n",
			want: [][]string{{
				"python3|=|3:6-3:15", "-m|=|3:17-3:21", "sglang.launch_server|=|3:23-3:45",
				"--port|=|3:47-3:55", "$PORT|=|3:57-3:64",
			}},
		},
		{
			name: "shell form with continuations and ENV",
			dockerfile: "FROM img\n" +
				"ENV MODEL=meta-llama/Llama-3.1-8B-Instruct \\\n" +
				"    PORT=30000\n" +
				"CMD python3 -m sglang.launch_server \\\n" +
				"  --model-path $MODEL \\\n" +
				"# a comment inside the instruction\n" +
				"\n" +
				"  --port \"${PORT}\"\n",
			want: [][]string{
				{"/bin/sh|=|4:1-4:4", "-c|=|4:1-4:4", "python3 -m sglang.launch_server   --model-path $MODEL   --port \"${PORT}\"|=|4:5-8:19"},
				{
					"python3|=|4:5-4:12", "-m|=|4:13-4:15", "sglang.launch_server|=|4:16-4:36",
					"--model-path|=|5:3-5:15", "meta-llama/Llama-3.1-8B-Instruct|=|5:16-5:22",
					"--port|=|8:3-8:9", "30000|=|8:10-8:19",
				},
			},
		},
		{
			name: "exec ENTRYPOINT with exec CMD",
			dockerfile: "FROM img\n" +
				`ENTRYPOINT ["python3", "-m", "sglang.launch_server"]` + "\n" +
				`CMD ["--tp", "2"]` + "\n",
			want: [][]string{{
				"python3|=|2:13-2:22", "-m|=|2:24-2:28", "sglang.launch_server|=|2:30-2:52",
				"--tp|=|3:6-3:12", "2|=|3:14-3:17",
			}},
		},
		{
			// sh would reject "--tp 2" as an option: no script is read.
			name: "exec ENTRYPOINT with shell CMD gets /bin/sh -c as arguments",
			dockerfile: "FROM img\n" +
				`ENTRYPOINT ["python3", "-m", "sglang.launch_server"]` + "\n" +
				"CMD -- --tp 2\n",
			want: [][]string{{
				"python3|=|2:13-2:22", "-m|=|2:24-2:28", "sglang.launch_server|=|2:30-2:52",
				"/bin/sh|=|3:1-3:4", "-c|=|3:1-3:4", "--tp 2|=|3:8-3:14",
			}},
		},
		{
			name: "shell ENTRYPOINT leaves CMD as unused parameters",
			dockerfile: "FROM img\n" +
				"ENTRYPOINT python3 -m sglang.launch_server --tp 4\n" +
				`CMD ["--tp", "2"]` + "\n",
			want: [][]string{
				{"/bin/sh|=|2:1-2:11", "-c|=|2:1-2:11", "python3 -m sglang.launch_server --tp 4|=|2:12-2:50", "--tp|=|3:6-3:12", "2|=|3:14-3:17"},
				{"python3|=|2:12-2:19", "-m|=|2:20-2:22", "sglang.launch_server|=|2:23-2:43", "--tp|=|2:44-2:48", "4|=|2:49-2:50"},
			},
		},
		{
			name: "ENTRYPOINT sh -c with \"$@\" takes CMD",
			dockerfile: "FROM img\n" +
				`ENTRYPOINT ["/bin/bash", "-c", "exec python3 -m sglang.launch_server \"$@\"", "--"]` + "\n" +
				`CMD ["--tp", "2"]` + "\n",
			want: [][]string{
				{"/bin/bash|=|2:13-2:24", "-c|=|2:26-2:30", `exec python3 -m sglang.launch_server "$@"|=|2:32-2:77`, "--|=|2:79-2:83", "--tp|=|3:6-3:12", "2|=|3:14-3:17"},
				{"exec|=|2:33-2:37", "python3|=|2:38-2:45", "-m|=|2:46-2:48", "sglang.launch_server|=|2:49-2:69", "--tp|=|3:6-3:12", "2|=|3:14-3:17"},
			},
		},
		{
			name: "the last CMD wins and ENTRYPOINT resets an inherited CMD",
			dockerfile: "FROM img AS base\n" +
				`CMD ["old"]` + "\n" +
				"FROM base\n" +
				`CMD ["first"]` + "\n" +
				`CMD ["second"]` + "\n" +
				"FROM base AS final\n" +
				`ENTRYPOINT ["python3", "-m", "sglang.launch_server"]` + "\n",
			want: [][]string{{"python3|=|7:13-7:22", "-m|=|7:24-7:28", "sglang.launch_server|=|7:30-7:52"}},
		},
		{
			name: "CMD given in the stage survives a later ENTRYPOINT",
			dockerfile: "FROM img\n" +
				`CMD ["--tp", "2"]` + "\n" +
				`ENTRYPOINT ["sglang", "serve"]` + "\n",
			want: [][]string{{"sglang|=|3:13-3:21", "serve|=|3:23-3:30", "--tp|=|2:6-2:12", "2|=|2:14-2:17"}},
		},
		{
			name: "ENV substitution order, legacy ENV, ARG",
			dockerfile: "ARG GLOBAL=g\n" +
				"FROM img\n" +
				"ARG GLOBAL\n" +
				"ARG TP=2\n" +
				"ARG FROM_BUILD\n" +
				"ENV A=1\n" +
				"ENV A=2 B=$A C=${TP}x D=$GLOBAL E=$FROM_BUILD F=${NOPE:-d}\n" +
				"ENV LEGACY a \"b\" c\n" +
				"CMD run $A $B $C $D $E $F \"$LEGACY\" $TP\n",
			want: [][]string{
				{"/bin/sh|=|9:1-9:4", "-c|=|9:1-9:4", "run $A $B $C $D $E $F \"$LEGACY\" $TP|=|9:5-9:40"},
				{
					"run|=|9:5-9:8", "2|=|9:9-9:11", "1|=|9:12-9:14", "2x|=|9:15-9:17", "g|=|9:18-9:20",
					"$E|?|9:21-9:23", "$F|?|9:24-9:26", "a b c|=|9:27-9:36", "$TP|?|9:37-9:40",
				},
			},
		},
		{
			name: "multi-stage: only the final stage runs, and it inherits from its base stage",
			dockerfile: "FROM python:3.12 AS build\n" +
				`CMD ["python3", "-m", "build"]` + "\n" +
				"FROM lmsysorg/sglang:v0.5 AS serve\n" +
				"ENV PORT=30000\n" +
				"CMD python3 -m sglang.launch_server --port $PORT\n" +
				"FROM serve\n" +
				"ENV PORT=8000\n",
			want: [][]string{
				{"/bin/sh|=|5:1-5:4", "-c|=|5:1-5:4", "python3 -m sglang.launch_server --port $PORT|=|5:5-5:49"},
				{"python3|=|5:5-5:12", "-m|=|5:13-5:15", "sglang.launch_server|=|5:16-5:36", "--port|=|5:37-5:43", "8000|=|5:44-5:49"},
			},
		},
		{
			name: "SHELL changes the shell of the shell form",
			dockerfile: "FROM img\n" +
				`SHELL ["/bin/bash", "-o", "pipefail", "-c"]` + "\n" +
				"CMD sglang serve --tp 2\n",
			want: [][]string{
				{"/bin/bash|=|2:8-2:19", "-o|=|2:21-2:25", "pipefail|=|2:27-2:37", "-c|=|2:39-2:43", "sglang serve --tp 2|=|3:5-3:24"},
				{"sglang|=|3:5-3:11", "serve|=|3:12-3:17", "--tp|=|3:18-3:22", "2|=|3:23-3:24"},
			},
		},
		{
			name: "invalid JSON is shell form",
			dockerfile: "FROM img\n" +
				"CMD ['sglang', 'serve']\n",
			want: [][]string{
				{"/bin/sh|=|2:1-2:4", "-c|=|2:1-2:4", "['sglang', 'serve']|=|2:5-2:24"},
				{"[sglang,|=|2:5-2:15", "serve]|=|2:16-2:24"},
			},
		},
		{
			name: "escape directive and case-insensitive instructions",
			dockerfile: "# escape=`\n" +
				"from img\n" +
				"cmd python3 -m sglang.launch_server `\n" +
				"    --tp 2\n",
			want: [][]string{
				{"/bin/sh|=|3:1-3:4", "-c|=|3:1-3:4", "python3 -m sglang.launch_server     --tp 2|=|3:5-4:11"},
				{"python3|=|3:5-3:12", "-m|=|3:13-3:15", "sglang.launch_server|=|3:16-3:36", "--tp|=|4:5-4:9", "2|=|4:10-4:11"},
			},
		},
		{
			name: "heredocs are skipped and CRLF line endings",
			dockerfile: "FROM img\r\n" +
				"RUN <<EOF\r\n" +
				"CMD not an instruction\r\n" +
				"EOF\r\n" +
				"CMD [\"sglang\", \"serve\"]\r\n",
			want: [][]string{{"sglang|=|5:6-5:14", "serve|=|5:16-5:23"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.dockerfile)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("commands:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestImage(t *testing.T) {
	p, final := analyse("Dockerfile", []byte("ARG TAG=v0.5\nFROM lmsysorg/sglang:${TAG} AS base\nFROM base\n"))
	if len(p.errs) > 0 {
		t.Fatal(p.errs)
	}
	img := final.imageValue()
	if got := w(img); got != "lmsysorg/sglang:v0.5|=|2:6-2:28" {
		t.Errorf("image %s", got)
	}
	if len(img.Origin) != 2 || img.Origin[0].Span.Line != 1 || img.Origin[1].Span.Line != 3 {
		t.Errorf("via %v", img.Origin)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, dockerfile, want string
	}{
		{"leading -- words of a shell-form CMD", "FROM img\nCMD --model-path m\n",
			"Dockerfile:2:5: CMD: unknown flag: --model-path (BuildKit reads leading --words of an instruction as its own flags; write the command as a JSON array)"},
		{"JSON array of non-strings", "FROM img\nCMD [\"a\", 1]\n",
			"Dockerfile:2:5: CMD: when using JSON array syntax, arrays must be comprised of strings only"},
		{"unknown instruction", "FROM img\nCOMAND x\n", "Dockerfile:2:1: unknown instruction: COMAND"},
		{"instruction before FROM", "ENV A=1\nFROM img\n", "Dockerfile:1:1: ENV before the first FROM: no build stage in current context"},
		{"unterminated heredoc", "FROM img\nRUN <<EOF\necho\n", "Dockerfile:2:1: unterminated heredoc EOF"},
		{"ENV without =", "FROM img\nENV A=1 B\n", "Dockerfile:2:9: Syntax error - can't find = in \"B\". Must be of the form: name=value"},
		{"unterminated quote in ENV", "FROM img\nENV A=\"x\n", "Dockerfile:2:5: ENV: unexpected end of statement while looking for matching double-quote"},
		{"FROM arguments", "FROM a b\n", "Dockerfile:1:1: FROM requires either one or three arguments"},
		{"bad escape directive", "# escape=x\nFROM img\n", "Dockerfile:1:1: invalid escape token 'x' does not match ` or \\"},
		{"SHELL not JSON", "FROM img\nSHELL /bin/bash -c\n", "Dockerfile:2:7: SHELL requires the arguments to be in JSON form"},
		{"shell syntax error in the command", "FROM img\nCMD sglang serve \\\n  --tp \"2\n", "Dockerfile:3:8: shell syntax error: reached EOF without closing quote `\"`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, final := analyse("Dockerfile", []byte(tt.dockerfile))
			if final != nil {
				p.commands(final)
			}
			if len(p.errs) != 1 {
				t.Fatalf("errors %v", p.errs)
			}
			if got := p.errs[0].Error(); got != tt.want {
				t.Errorf("error\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestExecFormSpansMatchText(t *testing.T) {
	// Each element's span must cover exactly the quoted string in the file.
	df := "FROM img\nCMD   [\"a\",\"\\u00e9\\n\", \"\\ud83d\\ude00\",\"\"]\n"
	p, final := analyse("Dockerfile", []byte(df))
	if len(p.errs) > 0 {
		t.Fatal(p.errs)
	}
	lines := strings.Split(df, "\n")
	var got []string
	cmds, _ := p.commands(final)
	for _, v := range cmds[0].Words {
		got = append(got, lines[v.Span.Line-1][v.Span.Col-1:v.Span.EndCol-1]+"="+v.Raw)
	}
	want := []string{`"a"=a`, "\"\\u00e9\\n\"=é\n", "\"\\ud83d\\ude00\"=😀", `""=`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// analyse is analyseLines with an index of its own.
func analyse(name string, data []byte) (*parser, *stage) {
	return analyseLines(name, data, source.NewIndex(data, source.LF))
}

// A chain of ENVs that each double the one before stops at the budget with
// an error at the word that crossed it, instead of allocating 2^n bytes.
func TestDoublingEnvBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("FROM lmsysorg/sglang:latest\nENV A0=xxxxxxxxxxxxxxxx\n")
	for i := 1; i < 60; i++ {
		fmt.Fprintf(&b, "ENV A%d=${A%d}${A%d}\n", i, i-1, i-1)
	}
	b.WriteString("CMD [\"python3\", \"-m\", \"sglang.launch_server\", \"--model-path\", \"m\"]\n")
	p, final := analyse("Dockerfile", []byte(b.String()))
	if final == nil {
		t.Fatal("no final stage")
	}
	if len(p.errs) == 0 {
		t.Fatal("no error for a doubling chain")
	}
	e := p.errs[0]
	// 16 bytes doubled 20 times is 16 MiB: A20 (line 22) is the first
	// value that does not fit once A1..A19 are paid for.
	if !strings.Contains(e.Message, "expand to more than") || e.Span.Line < 20 || e.Span.Line > 23 {
		t.Fatalf("error %s at %d:%d", e.Message, e.Span.Line, e.Span.Col)
	}
}

// TestEmptyDockerfile checks that a Dockerfile with no instruction (empty,
// or comments alone) yields neither a server nor an error.
func TestEmptyDockerfile(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n\n", "\n\n"} {
		p, final := analyse("Dockerfile", []byte(in))
		if final != nil {
			p.commands(final)
		}
		if len(p.errs) != 0 || final != nil {
			t.Errorf("%q: errors %v, final stage %v, want neither", in, p.errs, final)
		}
	}
}
