package capacity

import (
	"slices"
	"testing"
)

// Cell sizes pinned to values derived by hand from SGLang's formulas
// (modal-projects/sglang 8905cbd4):
//
//	MHA/GQA: max(1, kv_heads // attn_tp) × (head_dim + v_head_dim) × L × kv_size
//	         (model_executor/pool_configurator.py DefaultPoolConfigurator._compute_cell_size L259-267,
//	          configs/model_config.py get_num_kv_heads L1073-1080)
//	MLA:     (kv_lora_rank + qk_rope_head_dim) × L × kv_size, not divided by TP (L185-190)
//	DSA:     MLA + (index_head_dim + index_head_dim/128 × 4) × L × 1 (L203-214)
//	FP4:     MHA cell/2 + n·hd·L·2·kv/16 + n·hd·2·kv; MLA cell/2 + (latent/16)·L·kv (L191-200, L269-278)
//	mxfp8:   MHA cell + n·(hd+vhd)·L/32 (L279-284)
//	hybrid SWA: full_per_tok × n_full + ratio × swa_per_tok × n_swa (HybridSWAPoolConfigurator L308-399)
//	PP: each stage counts its own layers; the last (L mod pp) stages get one more
//	    (distributed/utils.py get_pp_indices L95-132)
func TestCellSizeFromSGLangFormula(t *testing.T) {
	tests := []struct {
		name  string
		model string
		args  []string
		want  int64
	}{
		// 8 heads × (128+128) × 32 × 2 (sglang.md §2.2's worked example).
		{"Llama-3.1-8B bf16 TP1", "meta-llama/Llama-3.1-8B-Instruct", nil, 131072},
		{"Llama-3.1-8B fp8 KV", "meta-llama/Llama-3.1-8B-Instruct", []string{"--kv-cache-dtype", "fp8_e4m3"}, 65536},
		{"Llama-3.1-8B fp8_e5m2 KV", "meta-llama/Llama-3.1-8B-Instruct", []string{"--kv-cache-dtype", "fp8_e5m2"}, 65536},
		// 65536 + 8×256×32/32 scale bytes.
		{"Llama-3.1-8B mxfp8 KV", "meta-llama/Llama-3.1-8B-Instruct", []string{"--kv-cache-dtype", "mxfp8"}, 67584},
		// 65536/2 + 8×128×32×2/16 + 8×128×2.
		{"Llama-3.1-8B nvfp4 KV", "meta-llama/Llama-3.1-8B-Instruct", []string{"--kv-cache-dtype", "nvfp4"}, 38912},
		// --dtype float32: 4-byte KV.
		{"Llama-3.1-8B float32", "meta-llama/Llama-3.1-8B-Instruct", []string{"--dtype", "float32"}, 262144},
		// GQA split: 8 KV heads over 2, 8 and 16 ranks → 4, 1, and 1 (replicated).
		{"Llama-3.1-70B TP2", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "2"}, 4 * 256 * 80 * 2},
		{"Llama-3.1-70B TP8", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "8"}, 40960},
		{"Llama-3.1-70B TP16 replicates a head", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "16"}, 40960},
		// The ModelOpt checkpoint's kv_cache_quant_algo FP8 turns auto into fp8_e4m3.
		{"Llama-3.1-70B-FP8 TP8 auto→fp8", "nvidia/Llama-3.1-70B-Instruct-FP8", []string{"--tp-size", "8"}, 20480},
		{"Llama-3.1-70B-FP8 bf16 forced", "nvidia/Llama-3.1-70B-Instruct-FP8", []string{"--tp-size", "8", "--kv-cache-dtype", "bfloat16"}, 40960},
		// Qwen3-235B-A22B: 4 KV heads, 94 layers.
		{"Qwen3-235B TP1", "Qwen/Qwen3-235B-A22B", nil, 4 * 256 * 94 * 2},
		{"Qwen3-235B TP8", "Qwen/Qwen3-235B-A22B", []string{"--tp-size", "8"}, 256 * 94 * 2},
		// DP attention: attn_tp = tp / dp, so fewer ranks share the KV heads.
		{"Qwen3-235B TP8 DP8 DP-attention", "Qwen/Qwen3-235B-A22B", []string{"--tp-size", "8", "--dp-size", "8", "--enable-dp-attention", ""}, 4 * 256 * 94 * 2},
		{"Llama-3.1-70B TP8 DP2 DP-attention", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "8", "--dp-size", "2", "--enable-dp-attention", ""}, 2 * 256 * 80 * 2},
		// DP without DP attention leaves attn_tp = tp.
		{"Llama-3.1-70B TP8 DP2 replicas", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "8", "--dp-size", "2"}, 40960},
		// --enable-dp-attention with dp 1 is reset (overrides.py _data_parallelism_defaults).
		{"DP attention reset at dp 1", "meta-llama/Llama-3.1-70B-Instruct", []string{"--tp-size", "8", "--enable-dp-attention", ""}, 40960},
		// MLA: (512+64) × 61 × 2, whatever the TP.
		{"DeepSeek-V3 TP1", "deepseek-ai/DeepSeek-V3", nil, 70272},
		{"DeepSeek-V3 TP8", "deepseek-ai/DeepSeek-V3", []string{"--tp-size", "8"}, 70272},
		{"DeepSeek-V3 TP16 DP-attention", "deepseek-ai/DeepSeek-V3", []string{"--tp-size", "16", "--dp-size", "16", "--enable-dp-attention", ""}, 70272},
		{"DeepSeek-V3 fp8 KV", "deepseek-ai/DeepSeek-V3", []string{"--tp-size", "8", "--kv-cache-dtype", "fp8_e4m3"}, 35136},
		// 35136/2 + (576/16) × 61 × 1.
		{"DeepSeek-V3 fp4 KV", "deepseek-ai/DeepSeek-V3", []string{"--kv-cache-dtype", "fp4_mx_block16"}, 19764},
		{"DeepSeek-R1 TP8", "deepseek-ai/DeepSeek-R1", []string{"--tp-size", "8"}, 70272},
		{"Kimi-K2 TP8", "moonshotai/Kimi-K2-Instruct", []string{"--tp-size", "8"}, 70272},
		// GLM-4.7-Flash MLA: (512+64) × 47 × 2.
		{"GLM-4.7-Flash", "zai-org/GLM-4.7-Flash", nil, 54144},
		// DSA on a Hopper GPU (bf16 default): 70272 + (128 + 4) × 61.
		{"DeepSeek-V3.2 DSA H200", "deepseek-ai/DeepSeek-V3.2", []string{"--tp-size", "8"}, 78324},
		// MLA + PP: 61 layers over 2 stages = 30 + 31; the larger stage limits.
		{"DeepSeek-V3 PP2", "deepseek-ai/DeepSeek-V3", []string{"--pp-size", "2"}, 576 * 31 * 2},
		// GQA + PP: 32 layers over 3 stages = 10, 11, 11.
		{"Llama-3.1-8B PP3", "meta-llama/Llama-3.1-8B-Instruct", []string{"--pp-size", "3"}, 8 * 256 * 11 * 2},
		// 126 layers over 4 stages = 31, 31, 32, 32; TP8 leaves one head.
		{"Llama-3.1-405B TP8 PP4", "meta-llama/Llama-3.1-405B", []string{"--tp-size", "8", "--pp-size", "4"}, 256 * 32 * 2},
		// Gemma 2/3 keep every layer in full: SGLang forces
		// --disable-hybrid-swa-memory for them (overrides.py _gemma2_gemma3_overrides).
		{"gemma-2-9b", "google/gemma-2-9b", nil, 8 * 512 * 42 * 2},
		{"gemma-2-27b TP2", "google/gemma-2-27b", []string{"--tp-size", "2"}, 8 * 256 * 46 * 2},
		{"gemma-3-1b-it", "google/gemma-3-1b-it", nil, 1 * 512 * 26 * 2},
		// gpt-oss hybrid SWA: 8×(64+64)×2 = 2048 B per layer per token;
		// 2048×18 + 0.8×2048×18 = 66355.2, reported floored.
		{"gpt-oss-120b TP1", "openai/gpt-oss-120b", nil, 66355},
		// TP8: 256 B per layer: 256×18 + 0.8×256×18 = 8294.4.
		{"gpt-oss-120b TP8", "openai/gpt-oss-120b", []string{"--tp-size", "8"}, 8294},
		// ratio 0.5: 2048×18 + 0.5×2048×18.
		{"gpt-oss-120b ratio 0.5", "openai/gpt-oss-120b", []string{"--swa-full-tokens-ratio", "0.5"}, 55296},
		{"gpt-oss-120b hybrid memory off", "openai/gpt-oss-120b", []string{"--disable-hybrid-swa-memory", ""}, 2048 * 36},
		// gpt-oss-20b: 2048×12 + 0.8×2048×12 = 44236.8.
		{"gpt-oss-20b TP1", "openai/gpt-oss-20b", nil, 44236},
		{"Mixtral-8x7B TP2", "mistralai/Mixtral-8x7B-v0.1", []string{"--tp-size", "2"}, 4 * 256 * 32 * 2},
		{"Mistral-7B", "mistralai/Mistral-7B-v0.3", nil, 131072},
		// Phi-3.5-mini is MHA: 32 KV heads × (96+96) × 32 × 2.
		{"Phi-3.5-mini", "microsoft/Phi-3.5-mini-instruct", nil, 32 * 192 * 32 * 2},
		// Generated rows (configs.jsonl), one per family they add.
		// Qwen2.5-0.5B: 2 KV heads × (64+64) × 24 layers × 2 B.
		{"Qwen2.5-0.5B", "Qwen/Qwen2.5-0.5B", nil, 2 * 128 * 24 * 2},
		// gemma-3-27b-it states head_dim 128 and 16 KV heads: all 62 layers full.
		{"gemma-3-27b-it", "google/gemma-3-27b-it", nil, 16 * 256 * 62 * 2},
		// MiniCPM3 is MLA: latent kv_lora_rank 256 + qk_rope_head_dim 32, 62 layers.
		{"MiniCPM3-4B MLA", "openbmb/MiniCPM3-4B", nil, 288 * 62 * 2},
		// Command R v01 is MHA: 64 KV heads × (128+128) × 40 layers, split by TP 4.
		{"c4ai-command-r-v01 TP4", "CohereForAI/c4ai-command-r-v01", []string{"--tp-size", "4"}, 16 * 256 * 40 * 2},
		// Llama 2 7B is MHA: 32 × (128+128) × 32.
		{"Llama-2-7b", "meta-llama/Llama-2-7b-hf", nil, 32 * 256 * 32 * 2},
		// EXAONE 3.5 reads num_layers (32) through SGLang's ExaoneConfig map;
		// its float32 checkpoint runs in float16 under --dtype auto.
		{"EXAONE-3.5-7.8B-Instruct", "LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", nil, 8 * 256 * 32 * 2},
		// GPT-J reads n_head 16 and n_embd 4096 (head_dim 256) and n_layer 28.
		{"gpt-j-6b", "EleutherAI/gpt-j-6b", nil, 16 * 512 * 28 * 2},
		// LLaVA 1.5's text_config takes LlamaConfig's 32 layers and 32 heads.
		{"llava-1.5-7b-hf", "llava-hf/llava-1.5-7b-hf", nil, 32 * 256 * 32 * 2},
		// StarCoder2-7B: 4 KV heads of 4608/36 = 128 dims, 32 layers.
		{"starcoder2-7b", "bigcode/starcoder2-7b", nil, 4 * 256 * 32 * 2},
		// Aya 23 8B (Cohere): 8 KV heads × (128+128) × 32 layers.
		{"aya-23-8B", "CohereForAI/aya-23-8B", nil, 8 * 256 * 32 * 2},
		// SmolLM2-1.7B-Instruct is MHA: 32 × (64+64) × 24 layers.
		{"SmolLM2-1.7B-Instruct", "HuggingFaceTB/SmolLM2-1.7B-Instruct", nil, 32 * 128 * 24 * 2},
		// phi-4 (Phi3ForCausalLM with GQA): 10 KV heads × (128+128) × 40 layers.
		{"phi-4", "microsoft/phi-4", nil, 10 * 256 * 40 * 2},
		// Qwen3-Coder-30B-A3B (Qwen3 MoE): 4 KV heads × (128+128) × 48 layers.
		{"Qwen3-Coder-30B-A3B", "Qwen/Qwen3-Coder-30B-A3B-Instruct", nil, 4 * 256 * 48 * 2},
		// Devstral 2 (Ministral3): 8 KV heads over TP 8 → 1 × (128+128) × 88 layers.
		{"Devstral-2-123B TP8", "mistralai/Devstral-2-123B-Instruct-2512", []string{"--tp-size", "8"}, 1 * 256 * 88 * 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, "H200", tt.args...), Options{})
			if est.CellBytesPerToken == nil {
				t.Fatalf("no cell size; assumptions: %q", est.Assumptions)
			}
			if got := *est.CellBytesPerToken; got != tt.want {
				t.Errorf("cell = %d B/token, want %d\nderivation: %q", got, tt.want, est.Derivation)
			}
		})
	}
}

func TestHybridSWACellKeepsTheFraction(t *testing.T) {
	m := catalogModel(t, "openai/gpt-oss-120b")
	c, err := computeCell(m, cellInput{KVDtype: "bfloat16", AttnTP: 1, Layers: 36, HybridSWA: true, SWARatio: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	// Python: 2048 * 18 + 0.8 * 2048 * 18
	if c.Bytes != 36864+0.8*2048*18 || c.FullPerToken != 2048 || c.SWAPerToken != 2048 || c.FullLayers != 18 || c.SWALayers != 18 {
		t.Errorf("cell = %+v", c)
	}
}

func TestPPLayerSplit(t *testing.T) {
	tests := []struct {
		layers, pp int
		want       []int
	}{
		{32, 1, []int{32}},
		{32, 3, []int{10, 11, 11}},
		{61, 2, []int{30, 31}},
		{126, 4, []int{31, 31, 32, 32}},
		{80, 8, []int{10, 10, 10, 10, 10, 10, 10, 10}},
		{5, 4, []int{1, 1, 1, 2}},
	}
	for _, tt := range tests {
		if got := ppLayerSplit(tt.layers, tt.pp); !slices.Equal(got, tt.want) {
			t.Errorf("ppLayerSplit(%d, %d) = %v, want %v", tt.layers, tt.pp, got, tt.want)
		}
	}
}

func TestPyFloorDiv(t *testing.T) {
	tests := []struct{ a, b, want float64 }{
		{7, 2, 3},
		{-7, 2, -4},
		{5791932062, 66355.2, 87286},
		{1, 0.1, 9}, // Python: 1 // 0.1 == 9.0
	}
	for _, tt := range tests {
		if got := pyFloorDiv(tt.a, tt.b); got != tt.want {
			t.Errorf("pyFloorDiv(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
