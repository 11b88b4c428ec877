package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// Worked examples of vLLM's hybrid KV cache manager, one per shape, each
// with the memory pinned by --kv-cache-memory-bytes so that the numbers
// follow from vllm/v1/core/kv_cache_utils.py and kv_cache_interface.py at
// 9aaf83ef502f alone (cdiv is ceiling division, // floor division):
//
//	page      = block_size 16 × KV heads × (head_size + head_size_v) × 2 B
//	blocks    = memory // page // group_size        (get_num_blocks)
//	full      = cdiv(max_model_len, 16)              (FullAttentionSpec)
//	sliding   = cdiv(min(window − 1 + batched, max_model_len), 16) + 1
//	request   = full groups × full + sliding groups × sliding
//	logged    = int(blocks / request × max_model_len) (v0.21.0 on)
//	logged    = blocks // groups × 16                (v0.9.1 to v0.20.x)
//
// gpt-oss-20b (24 layers alternating window 128 and full, 8 KV heads of
// 64): page = 16 × 8 × 128 × 2 = 32,768 B; groups of 12, one of each kind;
// 40 GiB = 42,949,672,960 B // 32,768 // 12 = 109,226 blocks; at 131,072
// tokens and 8,192 batched tokens (the H100 default): full 8,192, sliding
// cdiv(8,319, 16) + 1 = 521, request 8,713; logged int(109,226 / 8,713 ×
// 131,072) = 1,643,116 tokens, 12 full-length requests (12.54x); the old
// log 109,226 // 2 × 16 = 873,808, which is also what the cache holds with
// the manager off (42,949,672,960 // 32,768 // 24 × 16).
//
// Gemma-3-27B (62 layers, 5 sliding of window 1024 : 1 full, 16 KV heads of
// 128): page = 16 × 16 × 256 × 2 = 131,072 B; groups of 10: 1 full and
// cdiv(52, 10) = 6 sliding (8 padding slots); 40 GiB // 131,072 // 10 =
// 32,768 blocks; request 8,192 + 6 × (cdiv(9,215, 16) + 1) = 8,192 + 6 ×
// 577 = 11,654; logged int(32,768 / 11,654 × 131,072) = 368,540; 2
// full-length requests; old log 32,768 // 7 × 16 = 74,896.
//
// Gemma-2-9B (42 layers alternating window 4096 and full, 8 KV heads of
// 256) on an L4 (2,048 batched tokens): page = 16 × 8 × 512 × 2 = 131,072
// B; groups of 21; 8 GiB // 131,072 // 21 = 3,120 blocks; at 8,192 tokens:
// full 512, sliding cdiv(min(6,143, 8,192), 16) + 1 = 385, request 897;
// logged int(3,120 / 897 × 8,192) = 28,493; 3 full-length requests.
func TestVLLMHybridPool(t *testing.T) {
	tests := []struct {
		name    string
		model   string
		gpu     string
		release string
		args    []string
		blocks  int64
		request int64
		pool    int64
		logged  int64
		full    int64
	}{
		{name: "gpt-oss-20b", model: "openai/gpt-oss-20b", gpu: "H100-SXM-80GB", args: []string{"--kv-cache-memory-bytes", "40G"},
			blocks: 109226, request: 8713, pool: 1643116, logged: 1643116, full: 12},
		{name: "gpt-oss-20b on v0.10.1 logs blocks per group", model: "openai/gpt-oss-20b", gpu: "H100-SXM-80GB", release: "0.10.1", args: []string{"--kv-cache-memory-bytes", "40G"},
			blocks: 109226, request: 8713, pool: 1643116, logged: 873808, full: 12},
		{name: "gemma-3-27b", model: "google/gemma-3-27b-it", gpu: "H100-SXM-80GB", args: []string{"--kv-cache-memory-bytes", "40G"},
			blocks: 32768, request: 11654, pool: 368540, logged: 368540, full: 2},
		{name: "gemma-3-27b on v0.20.0", model: "google/gemma-3-27b-it", gpu: "H100-SXM-80GB", release: "0.20.0", args: []string{"--kv-cache-memory-bytes", "40G"},
			blocks: 32768, request: 11654, pool: 368540, logged: 74896, full: 2},
		{name: "gemma-2-9b", model: "google/gemma-2-9b", gpu: "L4", args: []string{"--kv-cache-memory-bytes", "8G"},
			blocks: 3120, request: 897, pool: 28493, logged: 28493, full: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := vllmServer(tc.model, tc.gpu, tc.args...)
			if tc.release != "" {
				s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: tc.release, Source: "test"}
			}
			est := EstimateServer(s, Options{})
			if est.StartupError != "" {
				t.Fatalf("startup error %q\n%s", est.StartupError, strings.Join(est.Derivation, "\n"))
			}
			got := []any{deref(est.KVBlocks), deref(est.RequestBlocks), deref(est.PoolTokens), deref(est.LoggedKVTokens), deref(est.FullContextRequests)}
			want := []any{tc.blocks, tc.request, tc.pool, tc.logged, tc.full}
			for i, name := range []string{"blocks", "request blocks", "pool tokens", "logged tokens", "full-context requests"} {
				if got[i] != want[i] {
					t.Errorf("%s = %v, want %d\n%s", name, got[i], want[i], strings.Join(est.Derivation, "\n"))
				}
			}
		})
	}
}

// With the manager off, or on a release before it, every layer keeps full
// KV: gpt-oss-20b's 40 GiB hold 42,949,672,960 // 32,768 // 24 = 54,613
// blocks, 873,808 tokens, 6 requests of 131,072 (8,192 blocks each).
func TestVLLMHybridOff(t *testing.T) {
	for _, tc := range []struct {
		name    string
		release string
		args    []string
	}{
		{"flag", "", []string{"--disable-hybrid-kv-cache-manager", ""}},
		{"v0.9.0 predates the manager", "0.9.0", nil},
		{"a connector without HMA", "", []string{"--kv-transfer-config", `{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := vllmServer("openai/gpt-oss-20b", "H100-SXM-80GB", append([]string{"--kv-cache-memory-bytes", "40G"}, tc.args...)...)
			if tc.release != "" {
				s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: tc.release, Source: "test"}
			}
			est := EstimateServer(s, Options{})
			if deref(est.PoolTokens) != int64(873808) || deref(est.KVBlocks) != int64(54613) || deref(est.FullContextRequests) != int64(6) || deref(est.RequestBlocks) != int64(8192) {
				t.Errorf("pool %v blocks %v full %v request %v\n%s", deref(est.PoolTokens), deref(est.KVBlocks), deref(est.FullContextRequests), deref(est.RequestBlocks), strings.Join(est.Derivation, "\n"))
			}
		})
	}
	// A connector that supports HMA keeps the manager on.
	est := EstimateServer(vllmServer("openai/gpt-oss-20b", "H100-SXM-80GB", "--kv-cache-memory-bytes", "40G", "--kv-transfer-config", `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`), Options{})
	if deref(est.PoolTokens) != int64(1643116) {
		t.Errorf("NIXL: pool %v, want the hybrid 1,643,116\n%s", deref(est.PoolTokens), strings.Join(est.Derivation, "\n"))
	}
}

// vllm#27508 (gpt-oss-120b on an H100, --max-num-batched-tokens 1024,
// "Available KV cache memory: 1.71 GiB") logs the startup check's "(4.54
// GiB KV cache is needed": 18 × 32,768 B × (8,192 full blocks + cdiv(127 +
// 1,024, 16) + 1 = 73 sliding blocks) = 4,874,895,360 B = 4.54 GiB, where
// every layer in full would need 9.00 GiB. The longest request the 1.71
// GiB hold: 1,836,098,519 // 589,824 = 3,112 blocks, less 73 sliding, is
// 3,039 full blocks: 48,624 tokens.
func TestVLLMHybridStartupCheck(t *testing.T) {
	est := EstimateServer(vllmServer("openai/gpt-oss-120b", "H100-SXM-80GB", "--max-num-batched-tokens", "1024", "--kv-cache-memory-bytes", "1836098519"), Options{})
	for _, want := range []string{"max seq len (131072), (4.54 GiB KV cache is needed", "(1.71 GiB)", "estimated maximum model length is 48624."} {
		if !strings.Contains(est.StartupError, want) {
			t.Errorf("startup error %q, want %q", est.StartupError, want)
		}
	}
	if est.PoolTokens != nil || est.KVBlocks != nil {
		t.Errorf("a server that does not start has no cache: pool %v blocks %v", deref(est.PoolTokens), deref(est.KVBlocks))
	}
	// --max-model-len auto fits the length to the same memory.
	est = EstimateServer(vllmServer("openai/gpt-oss-120b", "H100-SXM-80GB", "--max-num-batched-tokens", "1024", "--kv-cache-memory-bytes", "1836098519", "--max-model-len", "auto"), Options{})
	if est.StartupError != "" || deref(est.ContextLength) != int64(48624) || deref(est.FullContextRequests) != int64(1) {
		t.Errorf("auto-fit: ctx %v full %v error %q", deref(est.ContextLength), deref(est.FullContextRequests), est.StartupError)
	}
}

// What kvlint does not follow stays unknown, with the reason.
func TestVLLMHybridUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, gpu, release, why string
		args                    []string
	}{
		{"pipeline parallel", "H100-SXM-80GB", "", "pipeline parallelism", []string{"--pipeline-parallel-size", "2"}},
		{"GPU unknown, default batch", "", "", "depends on the GPU", []string{"--kv-cache-memory-bytes", "40G"}},
		{"connector on a pinned release", "H100-SXM-80GB", "0.11.0", "does not know whether it does on v0.11.0", []string{"--kv-transfer-config", `{"kv_connector":"NixlConnector"}`}},
		{"flag a placeholder", "H100-SXM-80GB", "", "hybrid KV cache manager is on is unknown", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := vllmServer("openai/gpt-oss-20b", tc.gpu, tc.args...)
			if tc.args == nil {
				s.Args["--disable-hybrid-kv-cache-manager"] = deploy.Unknown("{{ .Values.hma }}", deploy.Span{File: "v.yaml", Line: 3, Col: 1, EndLine: 3, EndCol: 18})
			}
			if tc.release != "" {
				s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: tc.release, Source: "test"}
			}
			est := EstimateServer(s, Options{})
			if est.PoolTokens != nil || est.KVBlocks != nil || !containsText(est.Assumptions, tc.why) {
				t.Errorf("pool %v blocks %v, assumptions %q", deref(est.PoolTokens), deref(est.KVBlocks), est.Assumptions)
			}
		})
	}
}

// With the weights unknown, the GPU's memory bounds the cache: Gemma-3-27B
// on an H100 (memory.total 81,559 MiB = 85,520,809,984 B): int(× 0.92) =
// 78,679,145,185 B // 131,072 // 10 = 60,027 blocks, at most int(60,027 /
// 11,654 × 131,072) = 675,120 tokens of full-length requests.
func TestVLLMHybridMemoryBound(t *testing.T) {
	// The architecture of the catalog's row, without the parameter count
	// or checkpoint size that would make the weights known.
	const models = `[{"id": "google/gemma-3-27b-it", "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3_text",
		"num_hidden_layers": 62, "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128,
		"sliding_window": 1024, "swa_layers": 52, "full_layers": 10, "context_key": "max_position_embeddings", "context_value": 131072,
		"rope_scaling": {"rope_type": "linear", "factor": 8}, "torch_dtype": "bfloat16",
		"source": "sgl-project/ome@17b77edad23bae262e0c9adb7f12039397a5d33d:pkg/hfutil/modelconfig/testdata/gemma3.json", "confidence": "config-read"}]`
	cat, err := NewCatalog([]byte(models), gpusJSON)
	if err != nil {
		t.Fatal(err)
	}
	est := EstimateServer(vllmServer("google/gemma-3-27b-it", "H100-SXM-80GB"), Options{Catalog: cat})
	if est.PoolTokens != nil || deref(est.PoolUpperBound) != int64(675120) || est.PoolBoundBasis != BoundMemory {
		t.Errorf("pool %v bound %v (%s)\n%s", deref(est.PoolTokens), deref(est.PoolUpperBound), est.PoolBoundBasis, strings.Join(est.Derivation, "\n"))
	}
}
