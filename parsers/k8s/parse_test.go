package k8s

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

func parseFixture(t *testing.T, name string) ([]*deploy.Server, []*diag.Diagnostic) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Parse(name, data, noFiles)
}

func noFiles(p string) (string, []byte, error) { return p, nil, os.ErrNotExist }

func byName(t *testing.T, servers []*deploy.Server, name string) *deploy.Server {
	t.Helper()
	var names []string
	for _, s := range servers {
		if s.Name == name {
			return s
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	t.Fatalf("no server %q among %q", name, names)
	return nil
}

// pos is where a value is expected: line, column and end column on the same
// line.
type pos struct{ line, col, endCol int }

func checkSpan(t *testing.T, what string, got deploy.Span, file string, want pos) {
	t.Helper()
	w := deploy.Span{File: file, Line: want.line, Col: want.col, EndLine: want.line, EndCol: want.endCol}
	if got != w {
		t.Errorf("%s: span %+v, want %+v", what, got, w)
	}
}

func checkValue(t *testing.T, what string, got deploy.Value, raw string, known bool, file string, at pos) {
	t.Helper()
	if got.Raw != raw || got.Known != known {
		t.Errorf("%s = %q known=%v, want %q known=%v", what, got.Raw, got.Known, raw, known)
	}
	checkSpan(t, what, got.Span, file, at)
}

func noErrors(t *testing.T, errs []*diag.Diagnostic) {
	t.Helper()
	for _, e := range errs {
		t.Errorf("unexpected error: %v", e)
	}
}

func TestDeploymentWithCommandAndArgsLists(t *testing.T) {
	const f = "deployment.yaml"
	servers, errs := parseFixture(t, f)
	noErrors(t, errs)
	if len(servers) != 1 {
		t.Fatalf("%d servers, want 1 (the Service has no containers)", len(servers))
	}
	s := byName(t, servers, "llama-8b")
	if s.Source != "kubernetes" || s.Engine != deploy.EngineSGLang {
		t.Errorf("source %q engine %q", s.Source, s.Engine)
	}
	checkSpan(t, "server", s.Span, f, pos{34, 39, 59})
	checkValue(t, "--model-path", s.Args["--model-path"], "meta-llama/Llama-3.1-8B-Instruct", true, f, pos{37, 16, 48})
	checkValue(t, "--mem-fraction-static", s.Args["--mem-fraction-static"], "0.85", true, f, pos{41, 16, 20})
	checkValue(t, "replicas", s.Replicas, "2", true, f, pos{19, 13, 14})
	checkValue(t, "image", s.Image, "lmsysorg/sglang:v0.5.2-cu126", true, f, pos{33, 18, 46})
	// limits win over requests.
	checkValue(t, "gpu count", s.GPUCount, "1", true, f, pos{60, 32, 33})
	checkValue(t, "gpu", s.GPU, "NVIDIA-H100-80GB-HBM3", true, f, pos{30, 33, 54})
	if s.Labels["app"] != "llama-8b" || s.Labels["tier"] != "gpu" || len(s.Labels) != 2 {
		t.Errorf("labels %v", s.Labels)
	}
}

func TestDependentEnvVarsExpandInArgs(t *testing.T) {
	const f = "deployment.yaml"
	servers, _ := parseFixture(t, f)
	s := byName(t, servers, "llama-8b")
	// "$(TP)" is quoted: the span is inside the quotes; the value is the
	// env entry's, which its origin points at.
	tp := s.Args["--tp-size"]
	checkValue(t, "--tp-size", tp, "1", true, f, pos{39, 16, 21})
	if len(tp.Origin) != 1 || tp.Origin[0].Kind != deploy.StepEnv || tp.Origin[0].Span != (deploy.Span{File: f, Line: 49, Col: 23, EndLine: 49, EndCol: 24}) {
		t.Errorf("--tp-size via %+v, want the env value at 49:23", tp.Origin)
	}
	ctx := s.Args["--context-length"]
	checkValue(t, "--context-length", ctx, "131072", true, f, pos{43, 15, 25})
	if len(ctx.Origin) != 1 || ctx.Origin[0].Span.Line != 51 {
		t.Errorf("--context-length via %+v", ctx.Origin)
	}
}

func TestValueFromIsUnknown(t *testing.T) {
	servers, _ := parseFixture(t, "deployment.yaml")
	s := byName(t, servers, "llama-8b")
	host, ok := s.Args["--host"]
	if !ok {
		t.Fatalf("no --host in %v", s.ArgNames())
	}
	if host.Known || !strings.Contains(host.Raw, "$(POD_IP)") {
		t.Errorf("--host = %q known=%v, want the unresolved $(POD_IP)", host.Raw, host.Known)
	}
}

func TestLeaderWorkerSet(t *testing.T) {
	const f = "lws.yaml"
	servers, errs := parseFixture(t, f)
	noErrors(t, errs)
	if len(servers) != 2 {
		t.Fatalf("%d servers, want leader and worker", len(servers))
	}
	leader := byName(t, servers, "deepseek/leader")
	worker := byName(t, servers, "deepseek/worker")
	for _, s := range []*deploy.Server{leader, worker} {
		checkValue(t, s.Name+" replicas", s.Replicas, "1", true, f, pos{8, 13, 14})
		if s.GPU.Raw != "nvidia-h100-80gb" || !s.GPU.Known {
			t.Errorf("%s gpu %+v", s.Name, s.GPU)
		}
		if s.GPUCount.Raw != "8" {
			t.Errorf("%s gpu count %+v", s.Name, s.GPUCount)
		}
		// $(LWS_GROUP_SIZE) is the group size, which the template writes.
		nn := s.Args["--nnodes"]
		if nn.Raw != "2" || !nn.Known || len(nn.Origin) != 1 || nn.Origin[0].Span != (deploy.Span{File: f, Line: 10, Col: 11, EndLine: 10, EndCol: 12}) {
			t.Errorf("%s --nnodes %+v, want 2 via size at 10:11", s.Name, nn)
		}
		if a := s.Args["--dist-init-addr"]; a.Known || a.Raw != "$(LWS_LEADER_ADDRESS):20000" {
			t.Errorf("%s --dist-init-addr %+v", s.Name, a)
		}
	}
	checkValue(t, "leader --nnodes", leader.Args["--nnodes"], "2", true, f, pos{33, 17, 34})
	checkValue(t, "worker --tp-size", worker.Args["--tp-size"], "16", true, f, pos{54, 18, 20})
	if r := leader.Args["--node-rank"]; r.Raw != "0" || !r.Known {
		t.Errorf("leader --node-rank %+v, want 0", r)
	}
	if r := worker.Args["--node-rank"]; r.Known {
		t.Errorf("worker --node-rank %+v, want unknown", r)
	}
	if leader.Labels["role"] != "leader" || worker.Labels != nil {
		t.Errorf("labels %v / %v", leader.Labels, worker.Labels)
	}
}

func TestUnknownCRDPodTemplatesAreFound(t *testing.T) {
	const f = "crd.yaml"
	servers, errs := parseFixture(t, f)
	noErrors(t, errs)
	router := byName(t, servers, "pd/router")
	if router.Engine != deploy.EngineSGLangRouter {
		t.Errorf("router engine %q", router.Engine)
	}
	checkValue(t, "router replicas", router.Replicas, "1", true, f, pos{10, 17, 18})
	// Two containers in the prefill pod: the container name is added.
	prefill := byName(t, servers, "pd/prefill/engine")
	checkValue(t, "prefill replicas", prefill.Replicas, "2", true, f, pos{26, 17, 18})
	if prefill.Labels["pd_role"] != "prefill" || prefill.GPUCount.Raw != "2" {
		t.Errorf("prefill labels %v gpus %+v", prefill.Labels, prefill.GPUCount)
	}
	byName(t, servers, "pd/decode")
	dyn := byName(t, servers, "graph/decode-worker")
	checkValue(t, "dynamo replicas", dyn.Replicas, "4", true, f, pos{55, 17, 18})
	checkValue(t, "dynamo --page-size", dyn.Args["--page-size"], "16", true, f, pos{62, 97, 99})
	if len(servers) != 4 {
		t.Errorf("%d servers, want 4", len(servers))
	}
}

func TestBrokenDocumentDoesNotHideTheOthers(t *testing.T) {
	const f = "multidoc-broken.yaml"
	servers, errs := parseFixture(t, f)
	if len(errs) != 1 {
		t.Fatalf("errors %v, want one", errs)
	}
	// The flow sequence opened on line 21 is never closed.
	if e := errs[0]; e.Span.Line != 21 || e.Span.Col != 1 || e.Span.File != f {
		t.Errorf("error at %v, want %s:21", e.Span, f)
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "first,third" {
		t.Errorf("servers %q, want first and third", names)
	}
	third := byName(t, servers, "third")
	checkValue(t, "third --model-path", third.Args["--model-path"], "m3", true, f, pos{37, 70, 72})
}

func TestShellScriptInArgs(t *testing.T) {
	requireShellLaunches(t)
	const f = "statefulset-sh.yaml"
	servers, errs := parseFixture(t, f)
	noErrors(t, errs)
	s := byName(t, servers, "sglang-master")
	// The script is a double-quoted scalar folded over two lines; words
	// map to where they are written in the YAML file.
	checkSpan(t, "server", s.Span, f, pos{21, 27, 47})
	checkValue(t, "--tp-size", s.Args["--tp-size"], "16", true, f, pos{21, 76, 78})
	checkValue(t, "--nnodes", s.Args["--nnodes"], "2", true, f, pos{22, 24, 25})
	// $(POD_INDEX) comes from valueFrom: the kubelet cannot be predicted, and
	// the shell then sees $(...) as a command substitution.
	if r := s.Args["--node-rank"]; r.Known {
		t.Errorf("--node-rank %+v, want unknown", r)
	}
	checkValue(t, "gpus", s.GPUCount, "8", true, f, pos{30, 32, 33})
}

func TestBashLiteralBlockScript(t *testing.T) {
	requireShellLaunches(t)
	const f = "bash-literal.yaml"
	servers, errs := parseFixture(t, f)
	noErrors(t, errs)
	s := byName(t, servers, "sglang-tp16")
	checkSpan(t, "server", s.Span, f, pos{34, 26, 46})
	checkValue(t, "--model-path", s.Args["--model-path"], "/models/llama-70b", true, f, pos{35, 30, 47})
	checkValue(t, "--tp-size", s.Args["--tp-size"], "16", true, f, pos{36, 27, 29})
	// $MEM comes from the container env, which the shell sees.
	mem := s.Args["--mem-fraction-static"]
	if mem.Raw != "0.8" || !mem.Known {
		t.Errorf("--mem-fraction-static %+v, want 0.8 from env", mem)
	}
	if r := s.Args["--node-rank"]; r.Known {
		t.Errorf("--node-rank %+v, want unknown", r)
	}
	checkValue(t, "gpu", s.GPU, "h100", true, f, pos{26, 31, 35})
	checkValue(t, "replicas", s.Replicas, "2", true, f, pos{8, 13, 14})
}
