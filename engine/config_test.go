package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

const serverYAML = `# serving config
model-path: meta-llama/Llama-3.1-8B-Instruct
tensor-parallel-size: 2
mem-fraction-static: 0.80
enable-metrics: yes
disable-radix-cache: false
context-length: 32k
page-size: 010
gc-threshold: [700, 10, 10]
mm-process-config:
  image:
    resize: 128
served-model-name: "llama 8b"
port: 30000
`

func TestConfigMerge(t *testing.T) {
	cmd := "--config server.yaml --port 31000 --host 0.0.0.0"
	res := Lookup(SGLangServer).Parse(line(cmd), files(map[string]string{"server.yaml": serverYAML}))
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %+v", res.Issues)
	}
	want := map[string]string{
		"--model-path":          "meta-llama/Llama-3.1-8B-Instruct",
		"--tp-size":             "2",   // the long alias, stored under the canonical name
		"--mem-fraction-static": "0.8", // Python's str(0.80)
		"--enable-metrics":      "true",
		"--context-length":      "32k",
		"--page-size":           "8", // YAML 1.1 octal, as PyYAML reads it
		"--gc-threshold":        "700 10 10",
		"--mm-process-config":   `{"image": {"resize": 128}}`,
		"--served-model-name":   "llama 8b",
		"--port":                "31000", // the command line wins
		"--host":                "0.0.0.0",
	}
	for k, v := range want {
		if got := res.Args[k]; got.Raw != v || !got.Known {
			t.Errorf("Args[%s] = %q, want %q", k, got.Raw, v)
		}
	}
	if _, ok := res.Args["--disable-radix-cache"]; ok {
		t.Errorf("a false store_true key must add nothing")
	}
	// Values from the file point into it.
	tp := res.Args["--tp-size"]
	if tp.Span != (deploy.Span{File: "cfg/server.yaml", Line: 3, Col: 23, EndLine: 3, EndCol: 24}) {
		t.Errorf("--tp-size span %+v, want cfg/server.yaml:3:23-24", tp.Span)
	}
	name := res.Args["--served-model-name"]
	if name.Span.Line != 13 || name.Span.Col != 20 || name.Span.EndCol != 30 {
		t.Errorf("quoted value span %+v, want 13:20-30 (with its quotes)", name.Span)
	}
	bs := res.Lists["--gc-threshold"]
	if len(bs) != 1 || len(bs[0]) != 3 || bs[0][1].Span.Line != 9 || bs[0][1].Span.Col != 21 || bs[0][1].Span.EndCol != 23 {
		t.Errorf("list items %+v, want each with its own span", bs)
	}
	port := res.Args["--port"]
	if port.Span.File != "run.sh" {
		t.Errorf("--port comes from the command line, span %+v", port.Span)
	}
}

func TestConfigIssues(t *testing.T) {
	tests := []struct {
		name     string
		cmd      string
		yaml     string
		issue    deploy.FlagIssueKind
		contains string
		line     int // the issue's line in the config file
		args     map[string]string
	}{
		{name: "underscore key is passed verbatim and unknown", cmd: "--config c.yaml",
			yaml: "tensor_parallel_size: 2\n", issue: deploy.FlagUnknown, contains: "keys must use dashes", line: 1},
		{name: "key of a deprecated alias's dest is refused", cmd: "--config c.yaml",
			yaml: "model-path: m\ncuda-graph-max-bs-decode: 64\n", issue: deploy.FlagInvalidValue, contains: "Unsupported config option 'cuda_graph_max_bs_decode'", line: 2},
		{name: "duplicate keys inside the file", cmd: "--config c.yaml",
			yaml: "tp-size: 2\ntensor-parallel-size: 4\n", issue: deploy.FlagDuplicate, contains: "given again", line: 1,
			args: map[string]string{"--tp-size": "4"}},
		{name: "null becomes the text None", cmd: "--config c.yaml",
			yaml: "context-length: null\n", issue: deploy.FlagInvalidValue, contains: "'None'", line: 1},
		{name: "a quoted true is not a boolean", cmd: "--config c.yaml",
			yaml: "enable-metrics: \"true\"\n", issue: deploy.FlagUnknown, contains: "unrecognized argument 'true'", line: 1},
		{name: "a negative infinity reads as an option to argparse", cmd: "--config c.yaml",
			yaml: "schedule-conservativeness: -.inf\n", issue: deploy.FlagMissingValue, contains: "expected one argument", line: 1},
		{name: "abbreviated key", cmd: "--config c.yaml",
			yaml: "tp: 4\n", issue: deploy.FlagAbbreviated, line: 1, args: map[string]string{"--tp-size": "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Lookup(SGLangServer).Parse(line(tt.cmd), files(map[string]string{"c.yaml": tt.yaml}))
			if len(res.Errors) != 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			found := false
			for _, is := range issuesOf(res, tt.issue) {
				if strings.Contains(is.Message, tt.contains) {
					found = true
					if is.Span.File != "cfg/c.yaml" || is.Span.Line != tt.line {
						t.Errorf("span %+v, want cfg/c.yaml line %d", is.Span, tt.line)
					}
				}
			}
			if !found {
				t.Errorf("no %s issue containing %q: %+v", tt.issue, tt.contains, res.Issues)
			}
			for k, v := range tt.args {
				if res.Args[k].Raw != v {
					t.Errorf("Args[%s] = %q, want %q", k, res.Args[k].Raw, v)
				}
			}
		})
	}
}

func TestConfigDuplicateAcrossFileAndCLI(t *testing.T) {
	res := Lookup(SGLangServer).Parse(line("--tp-size 8 --config c.yaml"), files(map[string]string{"c.yaml": "tp-size: 2\n"}))
	if res.Args["--tp-size"].Raw != "8" || len(res.Issues) != 0 {
		t.Errorf("the command line overrides the file silently: %+v %+v", res.Args, res.Issues)
	}
}

func TestConfigErrors(t *testing.T) {
	fs := files(map[string]string{
		"bad.yaml":  "model-path: [unclosed\n",
		"list.yaml": "- a\n- b\n",
		"key.yaml":  "1: x\n",
	})
	tests := []struct {
		cmd      string
		contains string
		word     string // the error must point at this word of cmd
		file     string // or into this file
	}{
		{"--config missing.yaml", "cannot read config file missing.yaml", "missing.yaml", ""},
		{"--config bad.yaml", "not valid YAML", "bad.yaml", ""},
		{"--config list.yaml", "must hold a mapping", "list.yaml", ""},
		{"--config server.json", "must end in .yaml or .yml", "server.json", ""},
		{"--config a.yaml --config b.yaml", "more than one --config", "--config", ""},
		{"--tp-size 2 --config", "needs a file name", "--config", ""},
		{"--config key.yaml", "is not a string", "", "cfg/key.yaml"},
	}
	for _, tt := range tests {
		res := Lookup(SGLangServer).Parse(line(tt.cmd), fs)
		if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, tt.contains) {
			t.Errorf("%s: errors %v, want one containing %q", tt.cmd, res.Errors, tt.contains)
			continue
		}
		sp := res.Errors[0].Span
		if tt.word != "" {
			n := 0
			if tt.word == "--config" && strings.Count(tt.cmd, "--config") > 1 {
				n = 1
			}
			if sp.File != "run.sh" || sp.Col != colOf(t, tt.cmd, tt.word, n) {
				t.Errorf("%s: error at %v, want the word %s", tt.cmd, sp, tt.word)
			}
		} else if sp.File != tt.file || sp.Line != 1 {
			t.Errorf("%s: error at %v, want %s:1", tt.cmd, sp, tt.file)
		}
		if len(issuesOf(res, deploy.FlagInvalidValue)) != 0 {
			t.Errorf("%s: a consumed --config must not be reported as ignored: %+v", tt.cmd, res.Issues)
		}
	}
}

func TestConfigPlaceholderPath(t *testing.T) {
	res := Lookup(SGLangServer).Parse(line("--config $CONFIG --tp-size 2"), nil)
	if len(res.Opaque) != 1 || res.Opaque[0].Raw != "$CONFIG" || len(res.Errors) != 0 || len(res.Issues) != 0 {
		t.Errorf("opaque %+v errors %v issues %+v", res.Opaque, res.Errors, res.Issues)
	}
	if res.Args["--tp-size"].Raw != "2" {
		t.Errorf("args %+v", res.Args)
	}
}

func TestConfigEmptyFile(t *testing.T) {
	for _, data := range []string{"", "# nothing\n", "~\n"} {
		res := Lookup(SGLangServer).Parse(line("--config c.yml --tp-size 2"), files(map[string]string{"c.yml": data}))
		if len(res.Errors) != 0 || len(res.Issues) != 0 || res.Args["--tp-size"].Raw != "2" {
			t.Errorf("%q: errors %v issues %+v", data, res.Errors, res.Issues)
		}
	}
}

func TestPyYAMLScalars(t *testing.T) {
	tests := map[string]string{
		"a: yes":                 "true", // a boolean of a non-store_true flag: str(value).lower()
		"a: Off":                 "false",
		"a: ~":                   "None",
		"a: 0x1F":                "31",
		"a: 0b101":               "5",
		"a: 010":                 "8",
		"a: 1_000":               "1000",
		"a: 190:20:30":           "685230",
		"a: 1e3":                 "1e3", // no dot: a string in YAML 1.1
		"a: 1.0e+3":              "1000.0",
		"a: 0.00001":             "1e-05",
		"a: 1.5e-7":              "1.5e-07",
		"a: 1e16.0":              "1e16.0",
		"a: 12345678901234567.0": "1.2345678901234568e+16",
		"a: 1000000000000000.0":  "1000000000000000.0",
		"a: .inf":                "inf",
		"a: +.Inf":               "inf",
		"a: .NaN":                "nan",
		"a: 0.1":                 "0.1",
		"a: '010'":               "010",
		"a: !!str 5":             "5",
		"a: 32k":                 "32k",
		"a: 2024-01-01":          "2024-01-01",
	}
	for src, want := range tests {
		res := Lookup(SGLangServer).Parse(line("--config c.yaml"), files(map[string]string{"c.yaml": strings.Replace(src, "a:", "served-model-name:", 1)}))
		if got := res.Args["--served-model-name"].Raw; got != want {
			t.Errorf("%s → %q, want %q", src, got, want)
		}
	}
}
