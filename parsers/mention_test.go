package parsers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

func TestUnlaunchedInSkipsCommentsAndKeepsOnePerKind(t *testing.T) {
	text := "#!/bin/bash\n" +
		"# vllm serve x (a comment)\n" +
		"run() { \"$@\"; }  # python -m sglang.launch_server\n" +
		"echo 'vllm serve x'\n" +
		"echo 'vllm serve y'\n" +
		"run python3 -m sglang.launch_server --tp 2\n"
	got := unlaunchedIn(source.NewFile("s.sh", []byte(text), source.SyntaxShell), nil)
	if len(got) != 2 {
		t.Fatalf("unlaunched %+v, want the first serve command and the first module", got)
	}
	if m := got[0]; m.Mention.Kind != engine.MentionCommand || m.Span.Line != 4 || m.Span.Col != 7 || !m.Quoted {
		t.Errorf("first %+v, want the quoted vllm serve at 4:7", m)
	}
	if m := got[1]; m.Mention.Kind != engine.MentionModule || m.Span.Line != 6 || m.Span.Col != 16 || m.Quoted {
		t.Errorf("second %+v, want the module at 6:16, not quoted", m)
	}
}

// A serverless file that names an engine is kept in the set (its note is
// quoted); one that names none is let go.
func TestParseKeepsFilesWithUnlaunchedMentions(t *testing.T) {
	dir := t.TempDir()
	named := filepath.Join(dir, "named.sh")
	plain := filepath.Join(dir, "plain.sh")
	os.WriteFile(named, []byte("#!/bin/sh\neval \"python -m vllm.entrypoints.openai.api_server $ARGS\"\n"), 0o644)
	os.WriteFile(plain, []byte("#!/bin/sh\n# vllm serve x\necho hi\n"), 0o644)
	p := ParseFileSetWith([]File{{Path: named, Kind: KindShell}, {Path: plain, Kind: KindShell}}, Options{})
	if len(p.Servers) != 0 || len(p.Unlaunched) != 1 || p.Unlaunched[0].Span.File != named {
		t.Fatalf("servers %d, unlaunched %+v: want one mention in named.sh", len(p.Servers), p.Unlaunched)
	}
	if p.Files.File(named) == nil || !p.Files.Passed(plain) {
		t.Errorf("named.sh held %v, plain.sh passed %v: want held and passed", p.Files.File(named) != nil, p.Files.Passed(plain))
	}
}

// A chart whose values switch its engine template off deploys nothing: it
// is noted at the template that names the engine, not passed in silence;
// switched on, it is a server and there is no note.
func TestChartThatDeploysNothingIsNoted(t *testing.T) {
	root := t.TempDir()
	tmpl := `{{- if .Values.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: s
spec:
  template:
    spec:
      containers:
        - name: s
          image: lmsysorg/sglang:v0.4.6
          command: ["python3", "-m", "sglang.launch_server", "--model-path", "m"]
{{- end }}
`
	for values, wantNote := range map[string]bool{"enabled: false\n": true, "enabled: true\n": false} {
		dir := filepath.Join(root, strings.TrimSpace(values)[9:])
		write(t, dir, map[string]string{
			"Chart.yaml":            "apiVersion: v2\nname: c\nversion: 0.1.0\n",
			"values.yaml":           values,
			"templates/server.yaml": tmpl,
		})
		p := ParseAllWith(File{Path: dir, Kind: KindHelm}, Options{})
		if got := len(p.Unlaunched) > 0; got != wantNote || (wantNote && len(p.Servers) != 0) || (!wantNote && len(p.Servers) != 1) {
			t.Errorf("%s: servers %d, notes %v", values, len(p.Servers), p.Unlaunched)
			continue
		}
		if wantNote && (p.Unlaunched[0].Span.File != filepath.Join(dir, "templates", "server.yaml") || p.Unlaunched[0].Span.Line != 11) {
			t.Errorf("note at %+v", p.Unlaunched[0].Span)
		}
	}
}
