package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// scoutNoWeights is the catalog's Llama-4-Scout row without its parameter
// counts, so that the weights are unknown and the GPU's memory bounds the
// cache with numbers that follow from vLLM's arithmetic alone.
const scoutNoWeights = `[{"id": "meta-llama/Llama-4-Scout-17B-16E-Instruct", "architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
	"num_hidden_layers": 48, "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
	"attention_chunk_size": 8192, "chunked_layers": 36, "context_key": "max_position_embeddings", "context_value": 10485760,
	"torch_dtype": "bfloat16", "vision_config": true,
	"source": "ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/model_configs/meta-llama--Llama-4-Scout-17B-16E-Instruct_config.json", "confidence": "config-read"}]`

func scoutOn(t *testing.T, release string, args ...string) Estimate {
	t.Helper()
	cat, err := NewCatalog([]byte(scoutNoWeights), gpusJSON)
	if err != nil {
		t.Fatal(err)
	}
	s := vllmServer("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H100-SXM-80GB", append([]string{"--tensor-parallel-size", "8", "--max-model-len", "1310720"}, args...)...)
	if release != "" {
		s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: release, Source: "test"}
	}
	return EstimateServer(s, Options{Catalog: cat})
}

// Llama-4-Scout on vLLM v0.10.0 (vllm-project/vllm 6d8d0a24c02b), the
// GKE sample's shape: 8 × H100, -tp 8, --max-model-len 1,310,720, bf16 KV.
// The hybrid manager keeps the 36 RoPE layers (every layer but each 4th,
// transformers' default no_rope_layers) as ChunkedLocalAttentionSpec with
// attention_chunk_size 8,192 and the 12 NoPE layers as FullAttentionSpec;
// vllm#21761 shows the same groups for Scout, "(FullAttention x 12)
// (ChunkedLocalAttention x 12) (ChunkedLocalAttention x 12)
// (ChunkedLocalAttention x 12)":
//
//	page       = 16 tokens × max(1, 8 KV heads // 8) × (128 + 128) × 2 B = 8,192 B
//	group size = min(12, 36) = 12: 1 full group, 3 chunked groups, no padding
//	memory     = int(memory.total 85,520,809,984 B × 0.9) = 76,968,728,985 B
//	             (gpu_memory_utilization 0.9 before v0.21.0; the weights are
//	             unknown, so this bounds the cache)
//	blocks     = 76,968,728,985 // 8,192 // 12 = 782,966
//	full       = cdiv(1,310,720, 16) = 81,920 blocks
//	chunked    = cdiv(min(8,192 + 8,192 batched tokens, 1,310,720), 16) = 1,024 blocks
//	request    = 81,920 + 3 × 1,024 = 84,992 blocks
//	bound      = int(782,966 / 84,992 × 1,310,720) = 12,074,656 tokens
//
// Every layer in full (any other release) gives 76,968,728,985 // 8,192 //
// 48 = 195,741 blocks, 3,131,856 tokens: 2 full-length requests where the
// groups hold 9. The old code left v0.10.0 unsized.
func TestVLLMLlama4ChunkedMemoryBound(t *testing.T) {
	est := scoutOn(t, "0.10.0")
	if est.PoolTokens != nil || deref(est.PoolUpperBound) != int64(12074656) || est.PoolBoundBasis != BoundMemory {
		t.Errorf("v0.10.0: pool %v bound %v (%s), want the bound 12,074,656\n%s\n%q", deref(est.PoolTokens), deref(est.PoolUpperBound), est.PoolBoundBasis, strings.Join(est.Derivation, "\n"), est.Assumptions)
	}
	for _, want := range []string{"36 chunked local attention (chunk 8192) layers in groups of 12: 1 full and 3 chunked groups", "782,966 blocks, 84,992 blocks per request"} {
		if !containsText(est.Derivation, want) {
			t.Errorf("derivation lacks %q\n%s", want, strings.Join(est.Derivation, "\n"))
		}
	}
	// An unknown release is judged as the newest, whose utilization is 0.92:
	// int(85,520,809,984 × 0.92) // 8,192 // 48 = 200,091 blocks, 3,201,456 tokens.
	for release, bound := range map[string]int64{"0.10.1": 3131856, "0.9.2": 3131856, "": 3201456} {
		est := scoutOn(t, release)
		if deref(est.PoolUpperBound) != bound || !containsText(est.Derivation, "chunked local attention layers keep full KV") {
			t.Errorf("release %q: bound %v, want every layer in full, %d\n%s", release, deref(est.PoolUpperBound), bound, strings.Join(est.Derivation, "\n"))
		}
	}
}

// With the blocks pinned by --num-gpu-blocks-override 500,000 (a flag
// v0.10.0 has), the rest of v0.10.0's arithmetic: one request 84,992
// blocks as above; int(500,000 / 84,992 × 1,310,720) = 7,710,843 tokens of
// full-length requests, 5 of them ("Maximum concurrency" 5.88x); and the
// release logs "GPU KV cache size" as 500,000 // 4 groups × 16 = 2,000,000
// tokens (_get_kv_cache_config_uniform_page_size at 6d8d0a24c02b).
func TestVLLMLlama4ChunkedPool(t *testing.T) {
	est := EstimateServer(withRelease(vllmServer("meta-llama/Llama-4-Scout-17B-16E-Instruct", "H100-SXM-80GB",
		"--tensor-parallel-size", "8", "--max-model-len", "1310720", "--num-gpu-blocks-override", "500000"), "0.10.0"), Options{})
	got := []any{deref(est.KVBlocks), deref(est.RequestBlocks), deref(est.PoolTokens), deref(est.LoggedKVTokens), deref(est.FullContextRequests)}
	want := []any{int64(500000), int64(84992), int64(7710843), int64(2000000), int64(5)}
	for i, name := range []string{"blocks", "request blocks", "pool tokens", "logged tokens", "full-context requests"} {
		if got[i] != want[i] {
			t.Errorf("%s = %v, want %v\n%s", name, got[i], want[i], strings.Join(est.Derivation, "\n"))
		}
	}
}

func withRelease(s *deploy.Server, v string) *deploy.Server {
	s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: v, Source: "test"}
	return s
}

// What turns v0.10.0's manager off for Llama 4 (VllmConfig.__post_init__
// at 6d8d0a24c02b), and what kvlint cannot decide.
func TestVLLMLlama4ChunkedManager(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		full bool   // every layer keeps full KV
		why  string // the assumption when unsized
	}{
		{"flag", []string{"--disable-hybrid-kv-cache-manager", ""}, true, ""},
		{"any KV connector", []string{"--kv-transfer-config", `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`}, true, ""},
		{"KV events", []string{"--kv-events-config", `{"enable_kv_cache_events":true}`}, true, ""},
		{"EAGLE", []string{"--speculative-config", `{"method":"eagle3","model":"some/eagle3-draft","num_speculative_tokens":3}`}, true, ""},
		{"n-gram keeps it", []string{"--speculative-config", `{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}`}, false, ""},
		{"method unread", []string{"--speculative-config", `{"model":"some/draft","num_speculative_tokens":3}`}, false, "names no method"},
		{"chunked prefill off", []string{"--no-enable-chunked-prefill", ""}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			est := scoutOn(t, "0.10.0", tc.args...)
			switch {
			case tc.why != "":
				if est.PoolUpperBound != nil || !containsText(est.Assumptions, tc.why) {
					t.Errorf("bound %v, assumptions %q", deref(est.PoolUpperBound), est.Assumptions)
				}
			case tc.full:
				if deref(est.PoolUpperBound) != int64(3131856) {
					t.Errorf("bound %v, want every layer in full, 3,131,856\n%s", deref(est.PoolUpperBound), strings.Join(est.Derivation, "\n"))
				}
			case tc.name == "chunked prefill off":
				// max_num_batched_tokens = max_model_len: a chunked
				// layer holds cdiv(min(8,192 + 1,310,720, 1,310,720), 16)
				// = 81,920 blocks, as many as a full one: 4 × 81,920 =
				// 327,680 blocks per request; int(782,966 / 327,680 ×
				// 1,310,720) = 3,131,864 tokens.
				if deref(est.PoolUpperBound) != int64(3131864) {
					t.Errorf("bound %v, want 3,131,864\n%s", deref(est.PoolUpperBound), strings.Join(est.Derivation, "\n"))
				}
			default:
				if deref(est.PoolUpperBound) != int64(12074656) {
					t.Errorf("bound %v, want the grouped 12,074,656\n%s", deref(est.PoolUpperBound), strings.Join(est.Derivation, "\n"))
				}
			}
		})
	}
}

// v0.10.0's startup check sums every layer's pages (check_enough_kv_cache_memory
// at 6d8d0a24c02b), which differs from the groups' sum by the padding slots:
// 11 full and 37 chunked layers make groups of 11, 1 full and 4 chunked
// (7 padding slots). At 65,536 tokens, 2,048 batched, block 16, page 1 B:
// full 4,096 blocks, chunked cdiv(8,192 + 2,048, 16) = 640; the layers
// need 11 × 4,096 + 37 × 640 = 68,736 B, the groups 11 × (4,096 + 4 × 640)
// = 73,216 B. With 70,000 B, the longest request the layers fit is the one
// whose full blocks fit 70,000 − 23,680 = 46,320 B: 46,320 // 11 = 4,210
// blocks, 67,360 tokens.
func TestVLLMChunkedStartupCheck(t *testing.T) {
	h := &vllmHybrid{full: 11, swa: 37, chunk: 8192, layerCheck: true, batched: 2048, groupSize: 11, fullGroups: 1, swaGroups: 4}
	if got := h.needed(65536, 1, 16); got != 68736 {
		t.Errorf("layers need %d B, want 68,736", got)
	}
	if got := h.groupSize * h.requestBlocks(65536, 16); got != 73216 {
		t.Errorf("groups need %d B, want 73,216", got)
	}
	if got := h.longest(70000, 1, 16, 1<<20); got != 67360 {
		t.Errorf("longest %d, want 67,360", got)
	}
}
