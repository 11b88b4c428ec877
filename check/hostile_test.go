package check

import (
	"bytes"
	"cmp"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/rules"
)

// hostileDir holds the checked-in bad inputs; the huge, binary and
// filesystem cases are made at test time in t.TempDir().
const hostileDir = "../testdata/hostile"

// goodNeighbour has one finding every hostile run must still report: a bad
// file never hides a finding in the file beside it. A case run as another
// user (runAsUser) gets a copy it can read.
var goodNeighbour = cmp.Or(os.Getenv(neighbourEnv), hostileDir+"/good/small.sh")

// neighbourEnv names, for a hostile case run as another user, the copy of
// the good neighbour it reads.
const neighbourEnv = "KVLINT_HOSTILE_NEIGHBOUR"

// runAsUser, where the platform can drop privileges, runs the current
// subtest again as an unprivileged user (hostile_unix_test.go).
var runAsUser func(t *testing.T)

var (
	hostileEngineOnce sync.Once
	hostileEngine     *rules.Engine
	hostileEngineErr  error
)

func engineForHostile(t *testing.T) *rules.Engine {
	t.Helper()
	hostileEngineOnce.Do(func() { hostileEngine, hostileEngineErr = rules.New(context.Background()) })
	if hostileEngineErr != nil {
		t.Fatal(hostileEngineErr)
	}
	return hostileEngine
}

// hostileCase is one bad input and the diagnostic it must produce.
type hostileCase struct {
	name string
	// setup returns the paths to check (besides goodNeighbour) and may
	// change the options; dir is a fresh temporary directory.
	setup func(t *testing.T, dir string, opt *Options) []string
	// asUser runs the case in a process without root's privileges
	// (runAsUser) when the tests run as root: the case cannot happen to root.
	asUser bool
	// file ends the path of the error's span; line is its line (0: none).
	file    string
	line    int
	message string // a substring of the message
}

func checkedIn(p string) func(*testing.T, string, *Options) []string {
	return func(*testing.T, string, *Options) []string { return []string{hostileDir + "/" + p} }
}

func writeFile(t *testing.T, p string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var hostileCases = []hostileCase{
	{name: "YAML alias bomb", setup: checkedIn("alias-bomb"), file: "alias-bomb/bomb.yaml", line: 3,
		message: `this Deployment "bomb" expands (through aliases) to more nodes than kvlint walks`},
	{name: "very deep nesting", file: "deep.yaml", line: 1, message: "invalid YAML: exceeded max depth of 10000",
		setup: func(t *testing.T, dir string, _ *Options) []string {
			deep := "a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\ncommand: [vllm, serve, m]\n"
			return []string{writeFile(t, filepath.Join(dir, "deep.yaml"), []byte(deep))}
		}},
	{name: "100 MB file", file: "huge.yaml", message: "file is larger than 16 MiB; not read",
		setup: func(t *testing.T, dir string, _ *Options) []string {
			p := writeFile(t, filepath.Join(dir, "huge.yaml"), []byte("apiVersion: v1\n"))
			if err := os.Truncate(p, 100<<20); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
			return []string{p}
		}},
	{name: "binary file", file: "blob.yaml", line: 1, message: "invalid YAML",
		setup: func(t *testing.T, dir string, _ *Options) []string {
			r := rand.New(rand.NewPCG(1, 2))
			data := make([]byte, 64<<10)
			for i := range data {
				data[i] = byte(r.UintN(256))
			}
			// A broken document is an error when it names an engine.
			data = append(data, "\ncommand: [vllm, serve, m]\n"...)
			return []string{writeFile(t, filepath.Join(dir, "blob.yaml"), data)}
		}},
	{name: "non-UTF-8 shell script", setup: checkedIn("non-utf8"), file: "non-utf8/latin1.sh", line: 2,
		message: "shell syntax error: invalid UTF-8 encoding"},
	{name: "non-UTF-8 YAML", file: "latin1.yaml", line: 3, message: "invalid YAML: incomplete UTF-8 octet sequence",
		setup: func(t *testing.T, dir string, _ *Options) []string {
			return []string{writeFile(t, filepath.Join(dir, "latin1.yaml"), []byte("kind: Pod\ncommand: [vllm, serve, m]\nname: caf\xe9\n"))}
		}},
	{name: "truncated YAML", setup: checkedIn("truncated-yaml"), file: "truncated-yaml/decode.yaml", line: 10,
		message: "invalid YAML: found unexpected end of stream"},
	{name: "truncated HCL", setup: checkedIn("truncated-hcl"), file: "truncated-hcl/main.tf", line: 6,
		message: "Unclosed configuration block"},
	{name: "Helm include that recurses without end", setup: checkedIn("helm-include-loop"),
		file: "helm-include-loop/templates/server.yaml", line: 7,
		message: `include "args" calls itself more than 1000 times, Helm's limit: the template recurses without end`},
	{name: "Helm template that recurses without end", setup: checkedIn("helm-template-loop"),
		file: "helm-template-loop/templates/server.yaml", line: 1, message: "exceeded maximum template depth (100000)"},
	{name: "Helm loop that runs without end", setup: checkedIn("helm-loop-bomb"),
		file: "helm-loop-bomb/templates/cm.yaml", line: 9,
		message: "the chart's templates ran more than 524288 actions or took more than"},
	{name: "Helm fail", setup: checkedIn("helm-fail"), file: "helm-fail/templates/server.yaml", line: 2,
		message: "sglang: tp larger than one node"},
	{name: "Helm required", setup: checkedIn("helm-required"), file: "helm-required/templates/server.yaml", line: 6,
		message: "sglang: .Values.model must be set"},
	{name: "shell array doubled on every line", setup: checkedIn("shell-growth"), file: "shell-growth/grow.sh", line: 20,
		message: "variables are expanded more than 1048576 times (counting each step of their origin) in this script; not expanded"},
	{name: "Terraform cyclic locals", setup: checkedIn("cyclic-locals"), file: "cyclic-locals/main.tf", line: 2,
		message: "local.pool depends on itself (local.pool → local.context → local.pool)"},
	{name: "Terraform huge count", setup: checkedIn("huge-count"), file: "huge-count/main.tf", line: 2,
		message: "count is 1000000000; kvlint reads the first 256 instances"},
	{name: "symlink loop", file: "loop-a.yaml", message: "too many levels of symbolic links",
		setup: func(t *testing.T, dir string, _ *Options) []string {
			a, b := filepath.Join(dir, "loop-a.yaml"), filepath.Join(dir, "loop-b.yaml")
			if os.Symlink(b, a) != nil || os.Symlink(a, b) != nil {
				t.Skip("symbolic links are not available here")
			}
			return []string{dir}
		}},
	{name: "directory given as --tf-var-file", file: "vars.tfvars", message: "is a directory, expected a file",
		setup: func(t *testing.T, dir string, opt *Options) []string {
			vars := filepath.Join(dir, "vars.tfvars")
			if err := os.Mkdir(vars, 0o755); err != nil {
				t.Fatal(err)
			}
			opt.TFVarFiles = []string{vars}
			return []string{hostileDir + "/tf-module"}
		}},
	{name: "directory given as a Helm values file", file: "values.d", message: "values file: is a directory",
		setup: func(t *testing.T, dir string, opt *Options) []string {
			values := filepath.Join(dir, "values.d")
			if err := os.Mkdir(values, 0o755); err != nil {
				t.Fatal(err)
			}
			opt.HelmValues = []string{values}
			return []string{hostileDir + "/helm-required"}
		}},
}

// TestHostileInput checks each bad input beside a good file: the bad one is
// reported where it is bad with a message that says what is wrong, and the
// good one's finding is still there. The CLI turns any error into exit 3
// (cmd/kvlint/testdata/script/hostile.txtar).
func TestHostileInput(t *testing.T) {
	engine := engineForHostile(t)
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.asUser && os.Geteuid() == 0 && runAsUser != nil {
				runAsUser(t)
				return
			}
			opt := Options{}
			paths := tc.setup(t, t.TempDir(), &opt)
			opt.Paths = append(paths, goodNeighbour)
			res, err := Run(context.Background(), engine, opt)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range res.Errors {
				if strings.Contains(e.Message, "internal error") {
					t.Errorf("a parser panicked: %s", e.Message)
				}
				if strings.HasSuffix(e.Span.File, tc.file) && e.Span.Line == tc.line && strings.Contains(e.Message, tc.message) {
					found = true
				}
			}
			if !found {
				var b bytes.Buffer
				for _, e := range res.Errors {
					b.WriteString("\n  " + e.Error())
				}
				t.Errorf("no error at %s:%d containing %q; errors:%s", tc.file, tc.line, tc.message, b.String())
			}
			if !hasFinding(res, "KV101", goodNeighbour, 4) {
				t.Errorf("the good neighbour's KV101 was lost: %+v", res.Findings)
			}
		})
	}
}

func hasFinding(res *analysis.Result, rule, file string, line int) bool {
	for _, f := range res.Findings {
		if f.Rule == rule && f.Span.File == file && f.Span.Line == line {
			return true
		}
	}
	return false
}

// TestHostileIndex keeps testdata/hostile/README.md, the index of the
// threat model's classes to their cases, true: every path in its cases
// column exists (a bare name is a case directory here), and every hostile
// script of the CLI is named in it.
func TestHostileIndex(t *testing.T) {
	index, err := os.ReadFile(hostileDir + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	rows := 0
	for _, line := range strings.Split(string(index), "\n") {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "class" {
			continue
		}
		rows++
		cases := cells[len(cells)-2]
		quoted := strings.Split(cases, "`")
		for i := 1; i < len(quoted); i += 2 { // the text between backquotes
			p := quoted[i]
			if p == "" || strings.ContainsAny(p, " ,") {
				continue
			}
			path := "../" + p
			if !strings.Contains(p, "/") {
				path = hostileDir + "/" + p
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("index names %s: %v", p, err)
			}
			named[p] = true
		}
	}
	if rows < 10 {
		t.Fatalf("the index has %d classes; its table did not parse", rows)
	}
	scripts, err := filepath.Glob("../cmd/kvlint/testdata/script/hostile*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no hostile scripts: %v", err)
	}
	for _, s := range scripts {
		if p := strings.TrimPrefix(s, "../"); !named[p] {
			t.Errorf("%s is not in testdata/hostile/README.md", p)
		}
	}
	dirs, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "good" && !named[d.Name()] {
			t.Errorf("case directory %s is not in testdata/hostile/README.md", d.Name())
		}
	}
}
