package capacity

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/kvlint/kvlint/engine"
)

// startupLog is one row of testdata/startup_logs.json: what a public startup
// log says an engine allocated, and the inputs it was started with.
type startupLog struct {
	Engine     string   `json:"engine"`
	Source     string   `json:"source"`
	Model      string   `json:"model"`
	Catalog    string   `json:"catalog"`
	GPU        string   `json:"gpu"`
	Args       []string `json:"args"`
	Release    string   `json:"release"`
	KVGiB      *float64 `json:"logged_kv_gib"`
	Tokens     *int64   `json:"logged_tokens"`
	PoolTokens *int64   `json:"logged_pool_tokens"`
}

// Tolerances of the estimate against the engines' logs: 10% of SGLang's
// pool, 15% of vLLM's KV memory. A vLLM log whose KV memory is below 2 GiB
// (or negative: the server did not start) is judged on the absolute error,
// at most 1.5 GiB, since a relative error of a near-zero figure says nothing.
const (
	sglangTolerance  = 0.10
	vllmTolerance    = 0.15
	vllmAbsTolerance = 1.5
)

// vllmKnownMisses are the rows the model does not reach, each with the reason:
// the test fails if one of them comes within tolerance (then it is no longer
// a miss and must leave this list) or if any other row misses.
var vllmKnownMisses = map[int]string{
	// gpt-oss-120b on an H100: the log's "Model loading took 65.97 GiB" is
	// about 6 GiB above the catalog's MXFP4 parameter bytes (the Hopper MoE
	// kernels keep the experts in a padded layout), so kvlint's budget is
	// that much too large.
	4: "gpt-oss-120b weights on Hopper: 65.97 GiB logged, about 60 GiB counted",
	// The same model with --max-num-batched-tokens 1024: the log leaves 1.71
	// GiB, about 5.8 GiB less than the weights gap explains; the profiled
	// peak of that release is not proportional to the batched tokens.
	5: "gpt-oss-120b weights and a profiled peak not proportional to the batched tokens",
}

func TestStartupLogs(t *testing.T) {
	raw, err := os.ReadFile("testdata/startup_logs.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Logs []startupLog `json:"logs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var sglangN, vllmN int
	for i, l := range doc.Logs {
		if l.Source == "" || l.GPU == "" || l.Model == "" {
			t.Errorf("row %d: every log must cite its source and state GPU and model", i)
			continue
		}
		prog := engine.SGLangServer
		if l.Engine == "vllm" {
			prog = engine.VLLMServer
		}
		s := parsedServer(prog, l.Model, l.GPU, l.Args...)
		opt := Options{}
		if l.Catalog != l.Model {
			opt.ModelConfigs = map[string]string{l.Model: l.Catalog}
		}
		est := EstimateServer(s, opt)
		switch l.Engine {
		case "sglang":
			sglangN++
			if est.PoolTokens == nil || l.PoolTokens == nil {
				t.Errorf("row %d (%s): pool not estimated: missing %v", i, l.Source, est.Missing)
				continue
			}
			rel := float64(*est.PoolTokens-*l.PoolTokens) / float64(*l.PoolTokens)
			t.Logf("SGLang %s %s on %s: logged %d tokens, estimated %d (%+.1f%%)", l.Source, l.Model, l.GPU, *l.PoolTokens, *est.PoolTokens, rel*100)
			if math.Abs(rel) > sglangTolerance {
				t.Errorf("row %d (%s): SGLang pool off by %+.1f%%, beyond %.0f%%", i, l.Source, rel*100, sglangTolerance*100)
			}
		case "vllm":
			vllmN++
			if est.KVBudgetBytes == nil || l.KVGiB == nil {
				t.Errorf("row %d (%s): KV memory not estimated: missing %v", i, l.Source, est.Missing)
				continue
			}
			got := float64(*est.KVBudgetBytes) / (1 << 30)
			diff := got - *l.KVGiB
			ok := math.Abs(diff) <= vllmAbsTolerance
			rel := math.NaN()
			if *l.KVGiB >= 2 {
				rel = diff / *l.KVGiB
				ok = math.Abs(rel) <= vllmTolerance
			}
			t.Logf("vLLM %s %s on %s: logged %.2f GiB, estimated %.2f GiB (%+.2f GiB, %+.1f%%)", l.Source, l.Model, l.GPU, *l.KVGiB, got, diff, rel*100)
			why, known := vllmKnownMisses[i]
			switch {
			case !ok && !known:
				t.Errorf("row %d (%s): vLLM KV memory off by %+.2f GiB (%+.1f%%), beyond tolerance", i, l.Source, diff, rel*100)
			case ok && known:
				t.Errorf("row %d (%s) is listed as a known miss (%s) but is within tolerance: remove it from vllmKnownMisses", i, l.Source, why)
			case known:
				t.Logf("  known miss: %s", why)
			}
		default:
			t.Errorf("row %d: unknown engine %q", i, l.Engine)
		}
	}
	if sglangN == 0 || vllmN == 0 {
		t.Errorf("need logs of both engines, have %d SGLang and %d vLLM", sglangN, vllmN)
	}
}
