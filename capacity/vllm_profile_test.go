package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func vllmAt(version, model, gpu string, args ...string) Estimate {
	s := vllmServer(model, gpu, args...)
	if version != "" {
		s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: version, Source: "test"}
	}
	return EstimateServer(s, Options{})
}

// A vLLM V0 release profiles one batch of max(max_model_len, 2048) tokens
// without chunked prefill. Llama-3.1-8B-Instruct on an RTX 3090, vLLM
// 0.6.4.post1, --max-model-len 20000, worked by hand:
//
//	CUDA total  = (24,576 MiB / 1,024 − 0.45) GiB    = 25,286,619,955 B
//	requested   = ceil(25,286,619,955 × 0.9)          = 22,757,957,960 B
//	weights     = 8.03B params × 2 B                   = 16,060,522,496 B
//	batch       = max(20,000, 2,048)                   = 20,000 tokens
//	runtime     = 20,000 × 0.16 MiB + 0.2 GiB non-torch, no CUDA graphs
//	            = 3.325 GiB                            =  3,570,191,564 B
//	KV          = 22,757,957,960 − 16,060,522,496 − 3,570,191,564
//	            = 3,127,243,900 B
//	blocks      = 3,127,243,900 // (16 × 4,096 B) // 32 layers = 1,491
//	tokens      = 1,491 × 16 = 23,856
//
// V1's 2,048-token batch at 0.75 MiB and 0.1 GiB of graphs (the code before
// V0 was modelled) gives 4,764,700,181 B, 2,271 blocks.
func TestVLLMV0ProfileBatch(t *testing.T) {
	est := vllmAt("0.6.4.post1", "meta-llama/Llama-3.1-8B-Instruct", "RTX-3090", "--max-model-len", "20000")
	if est.KVBudgetBytes == nil || *est.KVBudgetBytes != 3127243900 {
		t.Fatalf("KV budget %v, want 3,127,243,900 B", est.KVBudgetBytes)
	}
	if est.KVBlocks == nil || *est.KVBlocks != 1491 || est.PoolTokens == nil || *est.PoolTokens != 23856 {
		t.Fatalf("blocks %v tokens %v, want 1,491 and 23,856", est.KVBlocks, est.PoolTokens)
	}
	if !strings.Contains(strings.Join(est.Assumptions, "\n"), "max_num_batched_tokens = 20,000 tokens") {
		t.Errorf("the V0 batch is not explained: %q", est.Assumptions)
	}

	// At --max-model-len 29000 the profile takes 29,000 × 0.16 MiB =
	// 4.53125 GiB: KV 22,757,957,960 − 16,060,522,496 − 5,080,196,300 =
	// 1,617,239,164 B, 771 blocks, 12,336 tokens, fewer than one request:
	// V0 refuses to start, as the log of vllm#10517 did (with 23,648).
	est = vllmAt("0.6.4.post1", "meta-llama/Llama-3.1-8B-Instruct", "RTX-3090", "--max-model-len", "29000")
	want := vllmV0ShortOfMemory(29000, 12336)
	if est.StartupError != want {
		t.Errorf("startup error %q, want %q", est.StartupError, want)
	}
}

// The twins keep V1's batch: a V1 release, a release kvlint does not know,
// and a V0 release given --max-num-batched-tokens. v0.8.3 captures its
// CUDA graphs (0.1 GiB here) outside the utilization, as every release
// before v0.21.0 does; the unknown release is sized as main, which counts
// them: 1,932,735,283 − 1,825,361,100 = 107,374,183 B apart.
func TestVLLMV0ProfileBatchQuiet(t *testing.T) {
	for version, want := range map[string]int64{"0.8.3": 4764700181 + 107374183, "": 4764700181} {
		est := vllmAt(version, "meta-llama/Llama-3.1-8B-Instruct", "RTX-3090", "--max-model-len", "20000", "--gpu-memory-utilization", "0.9")
		if est.KVBudgetBytes == nil || *est.KVBudgetBytes != want {
			t.Errorf("v%q: KV budget %v, want V1's %d B", version, deref(est.KVBudgetBytes), want)
		}
		said := strings.Join(est.Assumptions, "\n")
		if strings.Contains(said, "V0 engine") {
			t.Errorf("v%q is not V0: %q", version, est.Assumptions)
		}
		// Only the unknown release says that it is taken as V1.
		if got := strings.Contains(said, "the vLLM release is unknown: kvlint takes V1's profiling batch of 2,048 tokens"); got != (version == "") {
			t.Errorf("v%q: unknown-release assumption %v: %q", version, got, est.Assumptions)
		}
	}
	// 2,048 × 0.16 MiB = 0.32 GiB, + 0.2: 558,345,748 B of runtime.
	est := vllmAt("0.6.4.post1", "meta-llama/Llama-3.1-8B-Instruct", "RTX-3090", "--max-model-len", "20000", "--max-num-batched-tokens", "2048")
	if want := int64(22757957960 - 16060522496 - 558345748); est.KVBudgetBytes == nil || *est.KVBudgetBytes != want {
		t.Errorf("explicit batch: KV budget %v, want %d", est.KVBudgetBytes, want)
	}
}

// V0's chunked-prefill rules by release: on by itself above a 32K context
// from v0.5.3, with a 512-token batch until v0.6.5 and 2,048 after; an
// explicit --enable-chunked-prefill is obeyed either way.
func TestVLLMV0ChunkedBatch(t *testing.T) {
	const model = "meta-llama/Llama-3.1-8B-Instruct"
	for _, tc := range []struct {
		version string
		args    []string
		batch   string // as the assumption prints it; "" = not sized
	}{
		{"0.6.4.post1", []string{"--max-model-len", "35000"}, "= 512 tokens"},
		{"0.7.3", []string{"--max-model-len", "35000"}, "= 2,048 tokens"},
		{"0.5.2", []string{"--max-model-len", "35000"}, "= 35,000 tokens"},
		{"0.6.4.post1", []string{"--max-model-len", "32768"}, "= 32,768 tokens"},
		{"0.6.4.post1", []string{"--max-model-len", "8192", "--enable-chunked-prefill", "true"}, "= 512 tokens"},
		{"0.7.3", []string{"--max-model-len", "65536", "--no-enable-chunked-prefill", ""}, "= 65,536 tokens"},
		{"0.7.3", []string{"--max-model-len", "65536", "--enable-lora", ""}, "= 65,536 tokens"},
		{"0.7.3", []string{"--max-model-len", "${LEN}"}, ""},
	} {
		t.Run(tc.version+strings.Join(tc.args, " "), func(t *testing.T) {
			est := vllmAt(tc.version, model, "A100-SXM4-80GB", tc.args...)
			said := strings.Join(est.Assumptions, "\n")
			if tc.batch == "" {
				if est.KVBudgetBytes != nil {
					t.Errorf("sized with an unknown batch: %d", *est.KVBudgetBytes)
				}
				return
			}
			if !strings.Contains(said, "max_num_batched_tokens "+tc.batch) {
				t.Errorf("want batch %q in %q", tc.batch, said)
			}
		})
	}
	// Qwen2.5's base config names a 131,072 window and a 131,072 context:
	// whether V0 chunks depends on use_sliding_window, which the catalog
	// does not keep, so the server is not sized and says what to declare.
	est := vllmAt("0.6.4.post1", "Qwen/Qwen2.5-7B", "A100-SXM4-80GB")
	if est.KVBudgetBytes != nil {
		t.Errorf("sized although the chunked-prefill default is unknown: %d", *est.KVBudgetBytes)
	}
	if !strings.Contains(strings.Join(est.Assumptions, "\n"), "declare --enable-chunked-prefill or --max-num-batched-tokens") {
		t.Errorf("the declaration that would size it is not named: %q", est.Assumptions)
	}
}

// When the V0 batch cannot be known (whether Qwen2.5's sliding window is
// used decides whether V0 chunks a 64K context), the cache is not sized,
// and the estimate says so for KV105 to report.
func TestVLLMV0BatchUnknownSaysWhy(t *testing.T) {
	est := vllmAt("0.6.4.post1", "Qwen/Qwen2.5-7B", "H100", "--max-model-len", "65536")
	if est.PoolTokens != nil || len(est.Missing) != 0 || !strings.Contains(est.NotSized, "profiling batch of vLLM v0.6.4.post1's V0 engine is unknown") {
		t.Errorf("pool %v, missing %q, not sized %q\n%s", deref(est.PoolTokens), est.Missing, est.NotSized, strings.Join(est.Assumptions, "\n"))
	}
}

// A batch no launch runs (here near the int64 limit, which the window
// plus a batch would overflow) leaves the cache unsized and says why,
// for a plain and a Llama 4 chunked model alike.
func TestVLLMBatchedTokensBounded(t *testing.T) {
	for _, tc := range []struct{ version, model string }{
		{"", "meta-llama/Llama-3.1-8B-Instruct"},
		{"0.10.0", "meta-llama/Llama-4-Scout-17B-16E-Instruct"},
	} {
		est := vllmAt(tc.version, tc.model, "H100", "--tensor-parallel-size", "8", "--max-num-batched-tokens", "9223372036854775000")
		if est.PoolTokens != nil || est.KVBlocks != nil || est.RequestBlocks != nil || !strings.Contains(est.NotSized, "--max-num-batched-tokens 9223372036854775000 is outside") {
			t.Errorf("%s: pool %v blocks %v request %v, not sized %q", tc.model, deref(est.PoolTokens), deref(est.KVBlocks), deref(est.RequestBlocks), est.NotSized)
		}
	}
}
