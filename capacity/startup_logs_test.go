package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// startupLog is one row of testdata/startup_logs.json: what a public startup
// log says an engine allocated, and the inputs it was started with.
type startupLog struct {
	Engine  string   `json:"engine"`
	Source  string   `json:"source"`
	Model   string   `json:"model"`
	Catalog string   `json:"catalog"`
	GPU     string   `json:"gpu"`
	Args    []string `json:"args"`
	Release string   `json:"release"`
	// Version is the engine release the log names, when it does: the
	// server is then sized with that release's defaults (the default
	// --mem-fraction-static of an SGLang release, vLLM's utilization),
	// as check.Run sizes a server whose image or pin names it. Release
	// above is free text for the reader.
	Version    string   `json:"version"`
	KVGiB      *float64 `json:"logged_kv_gib"`
	Tokens     *int64   `json:"logged_tokens"`
	PoolTokens *int64   `json:"logged_pool_tokens"`
	// PreloadGiB and WeightsGiB are SGLang's "Load weight begin. avail mem"
	// and "Load weight end. … mem usage", when the log has them: the inputs
	// of the pre-load gap and load overhead kvlint models.
	PreloadGiB *float64 `json:"logged_preload_gib"`
	WeightsGiB *float64 `json:"logged_weights_gib"`
	// KnownMiss is why the model does not reach this row. The test fails
	// when such a row comes within tolerance (it must then lose the field)
	// or when a row without it misses.
	KnownMiss string `json:"known_miss"`
}

// Tolerances of the estimate against the engines' logs: 10% of SGLang's
// pool, 15% of vLLM's KV memory (or of its token count, when the log gives
// only blocks or tokens). A vLLM log whose KV memory is below 2 GiB (or
// negative: the server did not start) is judged on the absolute error, at
// most 1.5 GiB, since a relative error of a near-zero figure says nothing.
const (
	sglangTolerance  = 0.10
	vllmTolerance    = 0.15
	vllmAbsTolerance = 1.5
)

func readStartupLogs(t *testing.T) []startupLog {
	t.Helper()
	raw, err := os.ReadFile("testdata/startup_logs.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		About string       `json:"about"`
		Logs  []startupLog `json:"logs"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Logs
}

// TestStartupLogs compares each row's estimate with what the engine logged
// and prints the error of every row, so a change to the model shows its
// effect on all of them.
func TestStartupLogs(t *testing.T) {
	var sglangN, vllmN int
	var table strings.Builder
	fmt.Fprintf(&table, "%-7s %-36s %-15s %-10s %12s %12s %8s\n", "engine", "model", "gpu", "parallel", "logged", "estimated", "error")
	for i, l := range readStartupLogs(t) {
		if l.Source == "" || l.GPU == "" || l.Model == "" {
			t.Errorf("row %d: every log must cite its source and state GPU and model", i)
			continue
		}
		est := l.estimate()
		parallel := parallelOf(l.Args)
		var ok bool
		var logged, got, errText string
		switch l.Engine {
		case "sglang":
			sglangN++
			if est.PoolTokens == nil || l.PoolTokens == nil {
				t.Errorf("row %d (%s): pool not estimated: missing %v", i, l.Source, est.Missing)
				continue
			}
			rel := float64(*est.PoolTokens-*l.PoolTokens) / float64(*l.PoolTokens)
			ok = math.Abs(rel) <= sglangTolerance
			logged, got, errText = Thousands(*l.PoolTokens)+" tok", Thousands(*est.PoolTokens)+" tok", fmt.Sprintf("%+.1f%%", rel*100)
		case "vllm":
			vllmN++
			switch {
			case l.KVGiB != nil && est.KVBudgetBytes != nil:
				gotGiB := float64(*est.KVBudgetBytes) / (1 << 30)
				diff := gotGiB - *l.KVGiB
				ok = math.Abs(diff) <= vllmAbsTolerance
				errText = fmt.Sprintf("%+.2f GiB", diff)
				if *l.KVGiB >= 2 {
					rel := diff / *l.KVGiB
					ok = math.Abs(rel) <= vllmTolerance
					errText = fmt.Sprintf("%+.1f%%", rel*100)
				}
				logged, got = fmt.Sprintf("%.2f GiB", *l.KVGiB), fmt.Sprintf("%.2f GiB", gotGiB)
			case l.KVGiB == nil && l.Tokens != nil && est.PoolTokens != nil:
				rel := float64(*est.PoolTokens-*l.Tokens) / float64(*l.Tokens)
				ok = math.Abs(rel) <= vllmTolerance
				logged, got, errText = Thousands(*l.Tokens)+" tok", Thousands(*est.PoolTokens)+" tok", fmt.Sprintf("%+.1f%%", rel*100)
			default:
				t.Errorf("row %d (%s): KV cache not estimated: missing %v", i, l.Source, est.Missing)
				continue
			}
		default:
			t.Errorf("row %d: unknown engine %q", i, l.Engine)
			continue
		}
		mark := ""
		switch {
		case !ok && l.KnownMiss == "":
			t.Errorf("row %d (%s, %s on %s %s): off by %s, beyond tolerance", i, l.Source, l.Model, l.GPU, parallel, errText)
			mark = "  MISS"
		case ok && l.KnownMiss != "":
			t.Errorf("row %d (%s) is marked as a known miss (%s) but is within tolerance: remove known_miss", i, l.Source, l.KnownMiss)
		case l.KnownMiss != "":
			mark = "  known miss"
		}
		fmt.Fprintf(&table, "%-7s %-36s %-15s %-10s %12s %12s %8s%s\n", l.Engine, l.Model, l.GPU, parallel, logged, got, errText, mark)
	}
	t.Logf("estimates against the logged pools:\n%s", table.String())
	if sglangN == 0 || vllmN == 0 {
		t.Errorf("need logs of both engines, have %d SGLang and %d vLLM", sglangN, vllmN)
	}
}

// estimate sizes the row's server as a parser would hand it over, the
// logged model id declared as the catalog row it resolves to.
func (l startupLog) estimate() Estimate {
	prog := engine.SGLangServer
	if l.Engine == "vllm" {
		prog = engine.VLLMServer
	}
	s := parsedServer(prog, l.Model, l.GPU, l.Args...)
	if l.Version != "" {
		s.Release = deploy.Release{Engine: s.Engine, Version: l.Version, Source: "startup log " + l.Source}
	}
	opt := Options{}
	if l.Catalog != l.Model {
		opt.ModelConfigs = map[string]string{l.Model: l.Catalog}
	}
	return EstimateServer(s, opt)
}

// parallelOf names the tensor-parallel size a row's arguments give.
func parallelOf(args []string) string {
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--tp-size", "--tp", "--tensor-parallel-size":
			return "TP" + args[i+1]
		}
	}
	return "TP1"
}
