package capacity

import (
	"strings"
	"testing"
)

// Config texts written from the shapes each publisher gives for a
// checkpoint whose config no catalog row keeps yet (keys kvlint reads
// only). The layouts' counts below are computed by hand from these shapes
// in each case's comment; the published figure is checked beside them.
const (
	// facebook/opt-125m and facebook/opt-350m (OPT paper, arXiv:2205.01068,
	// Table 1: 12 layers, 12 heads, width 768; 24, 16, 1024), with the
	// 512-wide word embedding and post-LayerNorm of the 350m checkpoint.
	opt125m = `{"architectures": ["OPTForCausalLM"], "model_type": "opt", "vocab_size": 50272,
 "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "ffn_dim": 3072,
 "max_position_embeddings": 2048, "word_embed_proj_dim": 768, "do_layer_norm_before": true,
 "enable_bias": true, "layer_norm_elementwise_affine": true, "torch_dtype": "float16"}`
	opt350m = `{"architectures": ["OPTForCausalLM"], "model_type": "opt", "vocab_size": 50272,
 "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "ffn_dim": 4096,
 "max_position_embeddings": 2048, "word_embed_proj_dim": 512, "do_layer_norm_before": false,
 "torch_dtype": "float16"}`
	// EleutherAI/pythia-12b (Pythia paper, arXiv:2304.01373, Table 1: 36
	// layers, width 5120, 40 heads), vocabulary padded to 50688.
	pythia12b = `{"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "vocab_size": 50688,
 "hidden_size": 5120, "intermediate_size": 20480, "num_hidden_layers": 36, "num_attention_heads": 40,
 "max_position_embeddings": 2048, "tie_word_embeddings": false, "torch_dtype": "float16"}`
	// tiiuae/falcon-7b (multi-query) and tiiuae/falcon-40b (grouped
	// "new decoder architecture", 8 KV heads).
	falcon7b = `{"architectures": ["FalconForCausalLM"], "model_type": "falcon", "vocab_size": 65024,
 "hidden_size": 4544, "num_hidden_layers": 32, "num_attention_heads": 71, "multi_query": true,
 "new_decoder_architecture": false, "parallel_attn": true, "bias": false, "alibi": false,
 "max_position_embeddings": 2048, "torch_dtype": "bfloat16"}`
	falcon40b = `{"architectures": ["FalconForCausalLM"], "model_type": "falcon", "vocab_size": 65024,
 "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128, "num_kv_heads": 8,
 "new_decoder_architecture": true, "parallel_attn": true, "bias": false, "alibi": false,
 "max_position_embeddings": 2048, "torch_dtype": "bfloat16"}`
	// bigscience/bloom-7b1: 30 layers, 32 heads, width 4096, BLOOM's
	// 250,880-entry vocabulary, under BloomConfig's own key names.
	bloom7b1 = `{"architectures": ["BloomForCausalLM"], "model_type": "bloom", "vocab_size": 250880,
 "hidden_size": 4096, "n_layer": 30, "n_head": 32, "seq_length": 2048}`
	// mosaicml/mpt-7b: d_model 4096, 32 heads, 32 layers, vocabulary 50432,
	// ALiBi, no biases, expansion ratio 4.
	mpt7b = `{"architectures": ["MPTForCausalLM"], "model_type": "mpt", "vocab_size": 50432,
 "d_model": 4096, "n_heads": 32, "n_layers": 32, "expansion_ratio": 4, "max_seq_len": 2048,
 "no_bias": true, "attn_config": {"alibi": true, "qk_ln": false, "clip_qkv": null}}`
	// THUDM/chatglm2-6b: 28 layers, 32 heads, 2 KV groups, FFN 13696,
	// padded vocabulary 65024, a bias on query_key_value only.
	chatglm2_6b = `{"architectures": ["ChatGLMModel"], "model_type": "chatglm", "num_layers": 28,
 "hidden_size": 4096, "num_attention_heads": 32, "kv_channels": 128, "ffn_hidden_size": 13696,
 "padded_vocab_size": 65024, "multi_query_attention": true, "multi_query_group_num": 2,
 "add_bias_linear": false, "add_qkv_bias": true, "rmsnorm": true, "post_layer_norm": true,
 "seq_length": 32768, "torch_dtype": "float16"}`
	// Qwen/Qwen-7B (Qwen technical report, arXiv:2309.16609, Table 1:
	// width 4096, 32 heads, 32 layers; vocabulary 151,851 padded to 151,936).
	qwen7b = `{"architectures": ["QWenLMHeadModel"], "model_type": "qwen", "vocab_size": 151936,
 "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32, "num_attention_heads": 32,
 "kv_channels": 128, "seq_length": 8192, "max_position_embeddings": 32768}`
	// ibm-granite/granite-3.0-8b-instruct and granite-3.0-3b-a800m-instruct.
	granite8b = `{"architectures": ["GraniteForCausalLM"], "model_type": "granite", "vocab_size": 49155,
 "hidden_size": 4096, "intermediate_size": 12800, "num_hidden_layers": 40, "num_attention_heads": 32,
 "num_key_value_heads": 8, "attention_bias": false, "mlp_bias": false, "tie_word_embeddings": true,
 "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`
	granitemoe3b = `{"architectures": ["GraniteMoeForCausalLM"], "model_type": "granitemoe", "vocab_size": 49155,
 "hidden_size": 1536, "intermediate_size": 512, "num_hidden_layers": 32, "num_attention_heads": 24,
 "num_key_value_heads": 8, "num_local_experts": 40, "num_experts_per_tok": 8, "attention_bias": false,
 "tie_word_embeddings": true, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`
	// openbmb/MiniCPM-2B-sft-bf16: width 2304, 40 layers, 36 heads, MLP
	// 5760, vocabulary 122753, tied embeddings.
	minicpm2b = `{"architectures": ["MiniCPMForCausalLM"], "model_type": "minicpm", "vocab_size": 122753,
 "hidden_size": 2304, "intermediate_size": 5760, "num_hidden_layers": 40, "num_attention_heads": 36,
 "num_key_value_heads": 36, "scale_emb": 12, "dim_model_base": 256, "scale_depth": 1.4,
 "tie_word_embeddings": true, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`
	// databricks/dbrx-instruct: d_model 6144, 48 heads (8 KV), 40 layers,
	// 16 experts of 10752, 4 active, vocabulary 100352.
	dbrx = `{"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "vocab_size": 100352,
 "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768,
 "attn_config": {"kv_n_heads": 8, "clip_qkv": 8, "rope_theta": 500000},
 "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4},
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`
)

// Tolerances follow TestCountParamsPublished: exact where the publisher
// gives the count to the unit, 1% for three significant digits, the
// figure's own rounding (±0.5B) for a whole number of billions. exact is
// the hand count of the comment, so dropping any term (one bias or norm
// vector) fails.
func TestCountParamsMoreLayouts(t *testing.T) {
	tests := []struct {
		id, config string // config "" = the configs.jsonl copy
		layout     string
		exact      int64
		experts    int64
		checks     []check
	}{
		// 50272×768 embedding (tied) + (2048+2)×768 positions + 12 ×
		// (4×768² + 4×768 attention, 2×768×3072 + 3072 + 768 MLP, 2 ×
		// 2×768 LayerNorms) + 2×768 final LayerNorm = 125,239,296; OPT
		// paper Table 1: 125M.
		{id: "facebook/opt-125m", config: opt125m, layout: "opt", exact: 125239296, checks: []check{
			{"total (125M)", 0.125, 0.01, total},
		}},
		// 50272×512 embedding + 2050×1024 positions + 2×1024×512
		// project_in/out + 24 × (4×1024² + 4×1024, 2×1024×4096 + 4096 +
		// 1024, 4×1024), no final LayerNorm (post-LN) = 331,196,416; the
		// paper's "350M" is a size class, so only the hand count is pinned.
		{id: "facebook/opt-350m", config: opt350m, layout: "opt", exact: 331196416},
		// microsoft/phi-2 (configs.jsonl): 2 × 51200×2560 + 51200 lm_head
		// bias + 32 × (4×2560² + 4×2560, 2×2560×10240 + 10240 + 2560,
		// 2×2560) + 2×2560 = 2,779,683,840; model card: 2.7 billion.
		{id: "microsoft/phi-2", layout: "phi", exact: 2779683840, checks: []check{
			{"total (2.7B)", 2.7, 0.05, total},
		}},
		// Pythia paper Table 1: 12B has 11,846,072,320 parameters; the
		// hand count 2 × 50688×5120 + 36 × (4×5120² + 4×5120, 2×5120×20480
		// + 20480 + 5120, 4×5120) + 2×5120 is that figure exactly.
		{id: "EleutherAI/pythia-12b", config: pythia12b, layout: "gpt_neox", exact: 11846072320, checks: []check{
			{"total (11,846,072,320)", 11.84607232, 0, total},
		}},
		// databricks/dolly-v2-12b (configs.jsonl) is Pythia-12B with a
		// 50280-row vocabulary: 408 × 5120 × 2 fewer; model card: 12B.
		{id: "databricks/dolly-v2-12b", layout: "gpt_neox", exact: 11846072320 - 408*5120*2, checks: []check{
			{"total (12B)", 12, 0.5, total},
		}},
		// 65024×4544 (tied) + 32 × (4544×(71+2)×64 + 4544², 8×4544², one
		// 2×4544 LayerNorm) + 2×4544 = 6,921,720,704; model card: 7B.
		{id: "tiiuae/falcon-7b", config: falcon7b, layout: "falcon", exact: 6921720704, checks: []check{
			{"total (7B)", 7, 0.5, total},
		}},
		// 65024×8192 + 60 × (8192×(128+16)×64 + 8192², 8×8192², two
		// LayerNorms) + 2×8192 = 41,303,293,952 (the hand count only).
		{id: "tiiuae/falcon-40b", config: falcon40b, layout: "falcon", exact: 41303293952},
		// bigscience/bloom-7b1 model card: 7,069,016,064 parameters.
		{id: "bigscience/bloom-7b1", config: bloom7b1, layout: "bloom", exact: 7069016064, checks: []check{
			{"total (7,069,016,064)", 7.069016064, 0, total},
		}},
		// 50432×4096 (tied) + 32 × (4×4096², 8×4096², two bias-free
		// LayerNorms) + 4096 = 6,649,286,656; model card: 6.7B.
		{id: "mosaicml/mpt-7b", config: mpt7b, layout: "mpt", exact: 6649286656, checks: []check{
			{"total (6.7B)", 6.7, 0.01, total},
		}},
		// Baichuan2-7B-Base (configs.jsonl): 2 × 125696×4096 + 32 ×
		// (4×4096², 3×4096×11008, 2×4096) + 4096 = 7,505,973,248; the
		// Baichuan 2 report names it 7B, the model card lists 7.5B.
		{id: "baichuan-inc/Baichuan2-7B-Base", layout: "baichuan", exact: 7505973248, checks: []check{
			{"total (7.5B)", 7.5, 0.01, total},
		}},
		// Baichuan-13B-Base (configs.jsonl, ALiBi): 2 × 64000×5120 + 40 ×
		// (4×5120², 3×5120×13696, 2×5120) + 5120 = 13,264,901,120; model
		// card: 13B.
		{id: "baichuan-inc/Baichuan-13B-Base", layout: "baichuan", exact: 13264901120, checks: []check{
			{"total (13B)", 13, 0.5, total},
		}},
		// 2 × 65024×4096 + 28 × (4096×(32+4)×128 + 4608 bias + 4096²,
		// 3×4096×13696, 2×4096) + 4096 = 6,243,584,000; model card: 6B
		// (6.2B in the GLM reports).
		{id: "THUDM/chatglm2-6b", config: chatglm2_6b, layout: "chatglm", exact: 6243584000, checks: []check{
			{"total (6.2B)", 6.2, 0.01, total},
		}},
		// 2 × 151936×4096 + 32 × (4×4096² + 3×4096, 3×4096×11008, 2×4096)
		// + 4096 = 7,721,324,544; model card: 7.7B.
		{id: "Qwen/Qwen-7B", config: qwen7b, layout: "qwen", exact: 7721324544, checks: []check{
			{"total (7.7B)", 7.7, 0.01, total},
		}},
		// 49155×4096 (tied) + 40 × (2×4096² + 2×4096×1024, 3×4096×12800,
		// 2×4096) + 4096 = 8,170,848,256; model card: 8B.
		{id: "ibm-granite/granite-3.0-8b-instruct", config: granite8b, layout: "granite", exact: 8170848256, checks: []check{
			{"total (8B)", 8, 0.5, total},
		}},
		// 49155×1536 (tied) + 32 × (2×1536² + 2×1536×512, 40×3×1536×512,
		// 1536×40 gate, 2×1536) + 1536 = 3,298,793,472; model card: 3.3B
		// total, 800M active.
		{id: "ibm-granite/granite-3.0-3b-a800m-instruct", config: granitemoe3b, layout: "granitemoe", exact: 3298793472, experts: 32 * 40 * 3 * 1536 * 512, checks: []check{
			{"total (3.3B)", 3.3, 0.05, total},
			{"active less the embedding (800M)", 0.8, 0.05, activeLessEmbed},
		}},
		// OLMoE (configs.jsonl): 2 × 50304×2048 + 16 × (4×2048² + 2×2048
		// q/k norms, 64×3×2048×1024, 2048×64, 2×2048) + 2048 =
		// 6,919,161,856; OLMoE paper (arXiv:2409.02060): 6.9B total.
		{id: "allenai/OLMoE-1B-7B-0924-SFT", layout: "olmoe", exact: 6919161856, experts: 16 * 64 * 3 * 2048 * 1024, checks: []check{
			{"total (6.9B)", 6.9, 0.01, total},
		}},
		// Persimmon (configs.jsonl): 2 × 262144×4096 + 36 × (4×4096² +
		// 4×4096, 2 × 2×64 q/k LayerNorms, 2×4096×16384 + 16384 + 4096,
		// 4×4096) + 2×4096 = 9,397,175,296; Adept's release post says only
		// "fewer than 10 billion" (with 70k unused embedding rows).
		{id: "adept/persimmon-8b-base", layout: "persimmon", exact: 9397175296, checks: []check{
			{"below 10B", 9.5, 0.5, total},
		}},
		// internlm2-chat-7b's early config (model_type internlm, the
		// InternLM2ForCausalLM class) counts as internlm2-7b: 7.74B.
		{id: "internlm/internlm2-chat-7b", layout: "internlm2", exact: 7737708544, checks: []check{
			{"total (7.74B)", 7.74, 0.01, total},
		}},
		// 122753×2304 (tied) + 40 × (4×2304², 3×2304×5760, 2×2304) + 2304
		// = 2,724,880,896; MiniCPM paper (arXiv:2404.06395): 2.4B
		// non-embedding parameters.
		{id: "openbmb/MiniCPM-2B-sft-bf16", config: minicpm2b, layout: "minicpm", exact: 2724880896, checks: []check{
			{"non-embedding (2.4B)", 2.4, 0.05 / 2.4, func(m *Model) float64 {
				return float64(m.Params-int64(m.VocabSize)*int64(m.HiddenSize)) / 1e9
			}},
		}},
		// liuhaotian/llava-v1.5-7b (configs.jsonl): its language model is
		// Vicuna-7B, Llama 2 7B's shapes, 6,738,415,616 parameters (2 ×
		// 32000×4096 + 32 × (4×4096², 3×4096×11008, 2×4096) + 4096; Llama 2
		// paper: 7B); the CLIP tower and projector are not counted.
		{id: "liuhaotian/llava-v1.5-7b", layout: "llama", exact: 6738415616, checks: []check{
			{"language model (7B)", 7, 0.5, total},
		}},
		// mistralai/Devstral-Small-2-24B-Instruct-2512 (configs.jsonl, a
		// text_config of model_type ministral3): 2 × 131072×5120 + 40 ×
		// (2×5120×4096 + 2×5120×1024, 3×5120×32768, 2×5120) + 5120 =
		// 23,572,403,200; the name's 24B.
		{id: "mistralai/Devstral-Small-2-24B-Instruct-2512", layout: "ministral3", exact: 23572403200, checks: []check{
			{"language model (24B)", 24, 0.5, total},
		}},
		// mistralai/Devstral-2-123B-Instruct-2512 (configs.jsonl): Mistral
		// Large 2's 88 layers of width 12288 (123B with its 32,768-entry
		// vocabulary) over a 131,072-entry one: 2 × 131072×12288 + 88 ×
		// (2×12288² + 2×12288×1024, 3×12288×28672, 2×12288) + 12288 =
		// 125,025,988,608, the hand count pinned.
		{id: "mistralai/Devstral-2-123B-Instruct-2512", layout: "ministral3", exact: 125025988608},
		// 2 × 100352×6144 + 40 × (6144×(48+16)×128 + 6144², 16 × 3 ×
		// 6144×10752, 6144×16 router, 2×6144) + 6144 = 131,596,523,520;
		// model card: 132B total, 36B active.
		{id: "databricks/dbrx-instruct", config: dbrx, layout: "dbrx", exact: 131596523520, experts: 40 * 16 * 3 * 6144 * 10752, checks: []check{
			{"total (132B)", 132, 0.5, total},
			{"active (36B)", 36, 0.5, func(m *Model) float64 {
				return (float64(m.Params) - float64(m.ExpertParams)*12/16) / 1e9
			}},
		}},
	}
	for _, tt := range tests {
		m := countedModel(t, tt.id, tt.config, tt.exact)
		if m.ExpertParams != tt.experts {
			t.Errorf("%s: %d expert params, want %d", tt.id, m.ExpertParams, tt.experts)
		}
		if !strings.Contains(m.ParamsSource, "; "+tt.layout+" layout") {
			t.Errorf("%s: params source %q", tt.id, m.ParamsSource)
		}
		checkPublished(t, tt.id, m, tt.checks)
	}
}

// The KV cell of these layouts: the head count and layer count the pool
// is sized from, as SGLang's get_total_num_kv_heads and the config
// classes' attribute maps give them.
func TestKVShapesMoreLayouts(t *testing.T) {
	for _, tt := range []struct {
		name, config          string
		layers, heads, kv, hd int
	}{
		{"falcon-7b multi_query", falcon7b, 32, 71, 1, 64},
		// FalconConfig's multi_query default is True.
		{"falcon without multi_query", `{"model_type": "falcon", "vocab_size": 65024, "hidden_size": 4544,
 "num_hidden_layers": 32, "num_attention_heads": 71}`, 32, 71, 1, 64},
		{"falcon-40b new decoder", falcon40b, 60, 128, 8, 64},
		{"bloom n_layer/n_head", bloom7b1, 30, 32, 32, 128},
		{"mpt without kv_n_heads", mpt7b, 32, 32, 32, 128},
		{"mpt kv_n_heads", `{"model_type": "mpt", "vocab_size": 100, "d_model": 64, "n_heads": 8, "n_layers": 2,
 "attn_config": {"kv_n_heads": 2}}`, 2, 8, 2, 8},
		{"dbrx kv_n_heads", dbrx, 40, 48, 8, 128},
		// DbrxAttentionConfig defaults kv_n_heads to 1.
		{"dbrx without kv_n_heads", `{"model_type": "dbrx", "vocab_size": 100, "d_model": 64, "n_heads": 8,
 "n_layers": 2, "attn_config": {}, "ffn_config": {"ffn_hidden_size": 32, "moe_num_experts": 2}}`, 2, 8, 1, 8},
		{"chatglm2 groups, num_layers", chatglm2_6b, 28, 32, 2, 128},
		{"opt has no GQA", opt125m, 12, 12, 12, 64},
		{"gpt_neox", pythia12b, 36, 40, 40, 128},
		{"qwen", qwen7b, 32, 32, 32, 128},
	} {
		m, err := ParseModelConfig(tt.name, []byte(tt.config), nil)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if m.Layers != tt.layers || m.Heads != tt.heads || m.KVHeads != tt.kv || m.headDim() != tt.hd {
			t.Errorf("%s: layers %d heads %d kv %d head_dim %d, want %d %d %d %d", tt.name,
				m.Layers, m.Heads, m.KVHeads, m.headDim(), tt.layers, tt.heads, tt.kv, tt.hd)
		}
	}
}

// Configs outside the shapes these classes allocate, or missing a switch
// whose default was not checked, leave the count unknown.
func TestCountParamsMoreLayoutsUnknown(t *testing.T) {
	for name, text := range map[string]string{
		"opt without word_embed_proj_dim": `{"model_type": "opt", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
 "num_attention_heads": 4, "ffn_dim": 256, "max_position_embeddings": 128}`,
		"chatglm-6b v1 (no padded_vocab_size)": `{"model_type": "chatglm", "vocab_size": 130528, "hidden_size": 4096,
 "num_layers": 28, "num_attention_heads": 32, "inner_hidden_size": 16384}`,
		"falcon with a wider FFN": `{"model_type": "falcon", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
 "num_attention_heads": 4, "ffn_hidden_size": 512}`,
		"persimmon without qk_layernorm": `{"model_type": "persimmon", "vocab_size": 100, "hidden_size": 64,
 "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256, "tie_word_embeddings": false}`,
		"gpt_neox without tie_word_embeddings": `{"model_type": "gpt_neox", "vocab_size": 100, "hidden_size": 64,
 "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256}`,
		"phi with grouped KV heads": `{"model_type": "phi", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
 "num_attention_heads": 4, "num_key_value_heads": 2}`,
		"granite with biases": `{"model_type": "granite", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
 "num_attention_heads": 4, "intermediate_size": 128, "attention_bias": true, "tie_word_embeddings": true}`,
		"mpt untied": `{"model_type": "mpt", "vocab_size": 100, "d_model": 64, "n_heads": 4, "n_layers": 2,
 "tie_word_embeddings": false}`,
		"internlm v1 class": `{"architectures": ["InternLMForCausalLM"], "model_type": "internlm", "vocab_size": 100,
 "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "bias": true}`,
	} {
		wantParamsUnknown(t, name, text)
	}
}

// Orion and XVERSE have no publisher figure whose shapes kvlint keeps a
// copy of: their layouts are pinned on a small config, tensor by tensor as
// SGLang's classes allocate them (models/orion.py, xverse.py): width 8, 2
// heads of 4, MLP 16, vocabulary 10, 2 layers, untied.
func TestCountParamsOrionXverseTensors(t *testing.T) {
	const shapes = `"vocab_size": 10, "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2,
 "num_attention_heads": 2, "num_key_value_heads": 2, "tie_word_embeddings": false`
	attn := 4 * 8 * 8    // q_proj, k_proj, v_proj, o_proj, no biases
	mlp := 3 * 16 * 8    // gate_proj, up_proj, down_proj, no biases
	embeds := 2 * 10 * 8 // embed_tokens, lm_head
	// Orion: input and post-attention nn.LayerNorm (weight and bias), a
	// final one.
	orion := int64(2*(attn+mlp+2*2*8) + embeds + 2*8)
	// XVERSE: two RMSNorms per layer and a final one.
	xverse := int64(2*(attn+mlp+2*8) + embeds + 8)
	for typ, want := range map[string]int64{"orion": orion, "xverse": xverse} {
		m, err := ParseModelConfig(typ, []byte(`{"model_type": "`+typ+`", `+shapes+`}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, typ, m.Params, want)
	}
	// Orion ties its lm_head when the config says so.
	m, err := ParseModelConfig("orion tied", []byte(`{"model_type": "orion", "vocab_size": 10, "hidden_size": 8,
 "intermediate_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "tie_word_embeddings": true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "orion tied", m.Params, orion-10*8)
}
