package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// testEngine is built once for the package's tests, the way the CLI builds it.
var testEngine = sync.OnceValues(func() (*Engine, error) { return New(context.Background()) })

func engine(t testing.TB) *Engine {
	t.Helper()
	e, err := testEngine()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// span is a one-line span of text starting at line:col.
func span(file string, line, col int, text string) deploy.Span {
	return deploy.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + len(text)}
}

// arg is a known flag value written at line:col. It has no typed value:
// tests of rules that read one use typedArg or parse with the engine.
func arg(file string, line, col int, raw string) deploy.Value {
	return deploy.Known(raw, span(file, line, col, raw))
}

// typedArg is a known flag value with the typed value the engine gives it.
func typedArg(file string, line, col int, raw string, typed deploy.Typed) deploy.Value {
	v := arg(file, line, col, raw)
	v.Typed = typed
	return v
}

// incidentDecode is the decode server of examples/incident: a 131,072-token
// context over a pool capped at 65,536 tokens, with 64-token pages, on a GPU
// kvlint was not told about.
func incidentDecode() (*deploy.Server, capacity.Estimate) {
	const f = "examples/incident/decode.yaml"
	srv := &deploy.Server{
		Engine: deploy.EngineSGLang,
		Role:   deploy.RoleDecode,
		Name:   "llama70b-decode",
		Span:   span(f, 22, 44, "sglang.launch_server"),
		Args: map[string]deploy.Value{
			"--model-path":           arg(f, 25, 17, "meta-llama/Llama-3.1-70B-Instruct"),
			"--tp-size":              arg(f, 27, 17, "8"),
			"--context-length":       arg(f, 29, 17, "131072"),
			"--max-total-tokens":     arg(f, 31, 17, "65536"),
			"--max-running-requests": arg(f, 33, 17, "64"),
			"--page-size":            arg(f, 39, 17, "64"),
		},
		Model:    arg(f, 25, 17, "meta-llama/Llama-3.1-70B-Instruct"),
		Replicas: arg(f, 8, 13, "2"),
	}
	est := capacity.Estimate{
		Engine: deploy.EngineSGLang, Model: "meta-llama/Llama-3.1-70B-Instruct", GPUCount: 8, TP: 8, DP: 1, PP: 1,
		KVDtype: "bfloat16", PageSize: 64,
		PoolUpperBound: ptr[int64](65536), ContextLength: ptr[int64](131072), ContextSource: "flag",
		MaxRunningRequests: ptr[int64](64),
		Missing:            []string{"gpu"},
	}
	return srv, est
}

func TestNewLoadsEveryRuleWithMetadata(t *testing.T) {
	e := engine(t)
	var ids []string
	for _, r := range e.Rules() {
		ids = append(ids, r.ID)
		if _, err := diag.ParseSeverity(r.Severity); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if r.Title == "" || r.Description == "" || r.Remediation == "" {
			t.Errorf("%s: title %q, description %q, remediation %q: all are required", r.ID, r.Title, r.Description, r.Remediation)
		}
		if len(r.References) == 0 {
			t.Errorf("%s: no related_resources", r.ID)
		}
		for _, ref := range r.References {
			if !strings.HasPrefix(ref, "https://") {
				t.Errorf("%s: reference %q is not an https link", r.ID, ref)
			}
		}
		if !strings.HasPrefix(r.Package, rulePackagePrefix) && !strings.HasPrefix(r.Package, suppressionPackagePrefix) &&
			!strings.HasPrefix(r.Package, coveragePackagePrefix) {
			t.Errorf("%s: package %s", r.ID, r.Package)
		}
		if got, ok := e.Rule(r.ID); !ok || got.ID != r.ID {
			t.Errorf("Rule(%q) = %v, %v", r.ID, got.ID, ok)
		}
	}
	want := []string{"KV001", "KV002", "KV003", "KV004", "KV101", "KV102", "KV103", "KV104", "KV105", "KV106",
		"KV201", "KV202", "KV203", "KV204", "KV205", "KV206", "KV207", "KV208", "KV209", "KV210",
		"KV301", "KV302", "KV303", "KV304",
		"KV401", "KV402", "KV403", "KV404", "KV405", "KV406",
		"KV501", "KV502"}
	if !slices.Equal(ids, want) {
		t.Errorf("rules %v, want %v (sorted by ID)", ids, want)
	}
	if _, ok := e.Rule("KV999"); ok {
		t.Error("Rule(KV999) found a rule")
	}
}

func TestRuleSeverities(t *testing.T) {
	// The defaults the METADATA declares; a finding can raise them (KV402
	// ambiguous, KV404 removed).
	want := map[string]string{
		"KV001": "medium", "KV002": "low", "KV003": "low", "KV004": "medium",
		"KV101": "high", "KV102": "medium", "KV103": "critical", "KV104": "high", "KV105": "info", "KV106": "low",
		"KV201": "high", "KV202": "high", "KV203": "high", "KV204": "medium", "KV205": "high",
		"KV206": "high", "KV207": "high", "KV208": "medium", "KV209": "high", "KV210": "high",
		"KV301": "high", "KV302": "high", "KV303": "high", "KV304": "high",
		"KV401": "high", "KV402": "low", "KV403": "low", "KV404": "low", "KV405": "high", "KV406": "low",
		"KV501": "info", "KV502": "info",
	}
	for _, r := range engine(t).Rules() {
		if r.Severity != want[r.ID] {
			t.Errorf("%s severity %s, want %s", r.ID, r.Severity, want[r.ID])
		}
	}
}

func TestEvaluateIncidentPointsAtTheFlagsToChange(t *testing.T) {
	srv, est := incidentDecode()
	findings, err := engine(t).Evaluate(context.Background(), []*deploy.Server{srv}, []capacity.Estimate{est}, Settings{Tenancy: deploy.TenancyMulti})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]diag.Diagnostic{}
	for _, f := range findings {
		got[f.Rule] = f
	}
	if len(got) != 2 {
		t.Fatalf("findings %+v, want KV101 and KV104 only", findings)
	}
	kv101 := got["KV101"]
	if kv101.Span != srv.Args["--max-total-tokens"].Span {
		t.Errorf("KV101 at %v, want the --max-total-tokens value at %v", kv101.Span, srv.Args["--max-total-tokens"].Span)
	}
	if kv101.Severity != "high" || kv101.Title != "KV pool smaller than the context window" || kv101.Server != 0 {
		t.Errorf("KV101 = %+v", kv101)
	}
	for _, want := range []string{"65,536 tokens", "131,072-token context window set by --context-length", "(sglang#30233)"} {
		if !strings.Contains(kv101.Message, want) {
			t.Errorf("KV101 message %q lacks %q", kv101.Message, want)
		}
	}
	if kv104 := got["KV104"]; kv104.Span != srv.Args["--page-size"].Span {
		t.Errorf("KV104 at %v, want the --page-size value at %v", kv104.Span, srv.Args["--page-size"].Span)
	}
}

func TestEvaluateResolvesSpans(t *testing.T) {
	const f = "serve.sh"
	serverSpan := span(f, 9, 6, "python3")
	issueSpan := span(f, 11, 3, "--tp")
	pool := capacity.Estimate{PoolTokens: ptr[int64](61440), ContextLength: ptr[int64](131072), ContextSource: "model", PageSize: 1}

	tests := []struct {
		name string
		srv  *deploy.Server
		est  capacity.Estimate
		rule string
		want deploy.Span
	}{
		{
			name: "arg resolves to the flag's value",
			srv: &deploy.Server{Engine: deploy.EngineSGLang, Span: serverSpan,
				Args: map[string]deploy.Value{"--mem-fraction-static": arg(f, 12, 25, "0.5")}},
			est: pool, rule: "KV101", want: span(f, 12, 25, "0.5"),
		},
		{
			name: "no flag to point at resolves to the launch command",
			srv:  &deploy.Server{Engine: deploy.EngineSGLang, Span: serverSpan},
			est:  pool, rule: "KV101", want: serverSpan,
		},
		{
			name: "a flag without a span resolves to the launch command",
			srv: &deploy.Server{Engine: deploy.EngineSGLang, Span: serverSpan,
				Args: map[string]deploy.Value{"--mem-fraction-static": {Raw: "0.5", Known: true}}},
			est: pool, rule: "KV101", want: serverSpan,
		},
		{
			name: "issue resolves to the flag as written",
			srv: &deploy.Server{Engine: deploy.EngineSGLang, Span: serverSpan,
				Args: map[string]deploy.Value{"--tp-size": arg(f, 11, 8, "2")},
				FlagIssues: []deploy.FlagIssue{
					{Kind: deploy.FlagDuplicate, Flag: "--port", Written: "--port", Span: span(f, 10, 3, "--port")},
					{Kind: deploy.FlagAbbreviated, Flag: "--tp-size", Written: "--tp", Span: issueSpan},
				}},
			rule: "KV402", want: issueSpan,
		},
		{
			name: "at model resolves to vllm serve's positional model",
			srv: &deploy.Server{Engine: deploy.EngineVLLM, Span: span(f, 4, 1, "vllm"),
				Model: arg(f, 4, 12, "/models/private")},
			est:  capacity.Estimate{Engine: deploy.EngineVLLM, Missing: []string{"model"}},
			rule: "KV105", want: span(f, 4, 12, "/models/private"),
		},
		{
			name: "at model without a model resolves to the launch command",
			srv:  &deploy.Server{Engine: deploy.EngineVLLM, Span: span(f, 4, 1, "vllm")},
			est:  capacity.Estimate{Engine: deploy.EngineVLLM, Missing: []string{"model"}},
			rule: "KV105", want: span(f, 4, 1, "vllm"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			findings, err := engine(t).Evaluate(context.Background(), []*deploy.Server{tt.srv}, []capacity.Estimate{tt.est}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			var hit *diag.Diagnostic
			for i := range findings {
				if findings[i].Rule == tt.rule {
					hit = &findings[i]
				}
			}
			if hit == nil {
				t.Fatalf("no %s in %+v", tt.rule, findings)
			}
			if hit.Span != tt.want {
				t.Errorf("%s at %v, want %v", tt.rule, hit.Span, tt.want)
			}
		})
	}
}

func TestEvaluateSeverityOverride(t *testing.T) {
	srv := &deploy.Server{Engine: deploy.EngineSGLang, Span: span("a.sh", 1, 1, "sglang"), FlagIssues: []deploy.FlagIssue{
		{Kind: deploy.FlagAmbiguous, Flag: "--pp", Written: "--pp", Span: span("a.sh", 1, 20, "--pp")},
		{Kind: deploy.FlagRemoved, Flag: "--disaggregation-decode-tp", Written: "--disaggregation-decode-tp", Span: span("a.sh", 1, 30, "--disaggregation-decode-tp")},
		{Kind: deploy.FlagDeprecated, Flag: "--cuda-graph-max-bs", Written: "--cuda-graph-max-bs", Span: span("a.sh", 1, 60, "--cuda-graph-max-bs")},
	}}
	findings, err := engine(t).Evaluate(context.Background(), []*deploy.Server{srv}, make([]capacity.Estimate, 1), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%s %s %d", f.Rule, f.Severity, f.Span.Col))
	}
	// The removed disaggregation flag is KV209's, not KV404's.
	want := []string{"KV402 high 20", "KV209 high 30", "KV404 low 60"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// manyServers builds n servers spread over a few files, each with a pool
// below its context, an abbreviated flag and a duplicate flag, in an order
// unrelated to their positions.
func manyServers(n int) ([]*deploy.Server, []capacity.Estimate) {
	servers := make([]*deploy.Server, n)
	est := make([]capacity.Estimate, n)
	for i := range n {
		file := fmt.Sprintf("deploy/%c.yaml", 'a'+rune((i*7)%5))
		line := 1 + (n-i)*10
		servers[i] = &deploy.Server{
			Engine: deploy.EngineSGLang, Role: deploy.RoleColocated, Name: fmt.Sprint("server-", i),
			Span: span(file, line, 5, "sglang.launch_server"),
			Args: map[string]deploy.Value{
				"--model-path":          arg(file, line+1, 20, "meta-llama/Llama-3.1-8B-Instruct"),
				"--mem-fraction-static": arg(file, line+2, 30, "0.5"),
				"--tp-size":             arg(file, line+3, 10, "1"),
			},
			FlagIssues: []deploy.FlagIssue{
				{Kind: deploy.FlagAbbreviated, Flag: "--tp-size", Written: "--tp", Span: span(file, line+3, 5, "--tp")},
				{Kind: deploy.FlagDuplicate, Flag: "--tp-size", Written: "--tp-size", Span: span(file, line+4, 5, "--tp-size")},
			},
		}
		est[i] = capacity.Estimate{
			Engine: deploy.EngineSGLang, TP: 1, DP: 1, PP: 1, PageSize: 16, MemFractionStatic: ptr(0.5),
			PoolTokens: ptr[int64](61440), ContextLength: ptr[int64](131072), ContextSource: "model",
		}
	}
	return servers, est
}

func TestEvaluateSortsDeterministically(t *testing.T) {
	servers, est := manyServers(40)
	first, err := engine(t).Evaluate(context.Background(), servers, est, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 40*4 { // KV101, KV104, KV402, KV403 per server
		t.Fatalf("%d findings, want %d", len(first), 40*4)
	}
	ordered := slices.IsSortedFunc(first, func(a, b diag.Diagnostic) int {
		if a.Span.File != b.Span.File {
			return strings.Compare(a.Span.File, b.Span.File)
		}
		if a.Span.Line != b.Span.Line {
			return a.Span.Line - b.Span.Line
		}
		if a.Span.Col != b.Span.Col {
			return a.Span.Col - b.Span.Col
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	if !ordered {
		t.Error("findings are not sorted by file, line, column, rule")
	}
	for range 5 {
		again, err := engine(t).Evaluate(context.Background(), servers, est, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatal("two evaluations of the same input gave different findings or order")
		}
	}
}

func TestEvaluateRejectsBadArguments(t *testing.T) {
	srv, est := incidentDecode()
	ctx := context.Background()
	if _, err := engine(t).Evaluate(ctx, []*deploy.Server{srv}, nil, Settings{}); err == nil {
		t.Error("no error for a missing estimate")
	}
	if _, err := engine(t).Evaluate(ctx, []*deploy.Server{nil}, []capacity.Estimate{est}, Settings{}); err == nil {
		t.Error("no error for a nil server")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := engine(t).Evaluate(cancelled, []*deploy.Server{srv}, []capacity.Estimate{est}, Settings{}); err == nil {
		t.Error("no error for a cancelled context")
	}
	if f, err := engine(t).Evaluate(ctx, nil, nil, Settings{}); err != nil || len(f) != 0 {
		t.Errorf("no servers: %v, %v; want no findings and no error", f, err)
	}
}

func TestFindingRejectsMalformedDenyObjects(t *testing.T) {
	e := engine(t)
	rule := &Rule{ID: "KV999", Severity: "low", Title: "t"}
	servers := []*deploy.Server{{Span: span("f", 1, 1, "x"), FlagIssues: []deploy.FlagIssue{{Span: span("f", 1, 3, "--a")}}}}
	n := func(i int) json.Number { return json.Number(fmt.Sprint(i)) }
	bad := []any{
		"not an object",
		map[string]any{"server": n(0)},
		map[string]any{"msg": "  ", "server": n(0)},
		map[string]any{"msg": "m"},
		map[string]any{"msg": "m", "server": n(1)},
		map[string]any{"msg": "m", "server": json.Number("0.5")},
		map[string]any{"msg": "m", "server": n(0), "issue": n(1)},
		map[string]any{"msg": "m", "server": n(0), "issue": "0"},
		map[string]any{"msg": "m", "server": n(0), "severity": "urgent"},
	}
	for _, raw := range bad {
		if _, err := e.finding(rule, raw, servers); err == nil {
			t.Errorf("finding(%v) accepted a malformed deny object", raw)
		}
	}
	f, err := e.finding(rule, map[string]any{"msg": "m", "server": n(0), "issue": n(0), "severity": "CRITICAL"}, servers)
	if err != nil || f.Severity != "critical" || f.Span != servers[0].FlagIssues[0].Span {
		t.Errorf("finding = %+v, %v", f, err)
	}
}

func TestEvaluateConcurrently(t *testing.T) {
	servers, est := manyServers(10)
	want, err := engine(t).Evaluate(context.Background(), servers, est, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := engine(t).Evaluate(context.Background(), servers, est, Settings{})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("concurrent Evaluate differs: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestEvaluateDoesNotCompile checks that policies are compiled in New and
// never again: evaluating a small input must cost a small fraction of the
// allocations of building an Engine.
func TestEvaluateDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds several engines")
	}
	ctx := context.Background()
	srv, est := incidentDecode()
	servers, ests := []*deploy.Server{srv}, []capacity.Estimate{est}
	e := engine(t)
	newAllocs := testing.AllocsPerRun(2, func() {
		if _, err := New(ctx); err != nil {
			t.Fatal(err)
		}
	})
	evalAllocs := testing.AllocsPerRun(20, func() {
		if _, err := e.Evaluate(ctx, servers, ests, Settings{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations: New %.0f, Evaluate of one server %.0f", newAllocs, evalAllocs)
	if evalAllocs*10 > newAllocs {
		t.Errorf("Evaluate allocates %.0f times, New %.0f: Evaluate looks like it compiles", evalAllocs, newAllocs)
	}
}
