package capacity

import "strings"

// Model holds what kvlint needs to know about a model to size SGLang's KV
// pool: the attention shapes (cell size), the context-length keys (the
// default --context-length), the checkpoint dtype and quantization (KV dtype
// and weight bytes) and the parameter counts (weights per GPU). The catalog
// stores models in this form (capacity/data/models.json); ReadModelConfig
// builds one from a Hugging Face config.json. Zero means "not stated".
type Model struct {
	// ID is the Hugging Face id for catalog models, the path for local configs.
	ID string `json:"id"`
	// Aliases are other ids of the same checkpoint configuration (renamed
	// repositories, re-releases with an identical config.json).
	Aliases []string `json:"aliases,omitempty"`

	Architectures []string `json:"architectures"`
	ModelType     string   `json:"model_type,omitempty"`

	Layers     int `json:"num_hidden_layers"`
	HiddenSize int `json:"hidden_size"`
	Heads      int `json:"num_attention_heads"`
	// KVHeads is the total number of KV heads, resolved the way SGLang's
	// ModelConfig.get_total_num_kv_heads does (num_key_value_heads, …, else
	// num_attention_heads).
	KVHeads int `json:"num_key_value_heads"`
	// HeadDim and VHeadDim are the config's explicit head_dim / v_head_dim;
	// 0 means absent (then hidden_size // heads, and v = head_dim).
	HeadDim  int `json:"head_dim,omitempty"`
	VHeadDim int `json:"v_head_dim,omitempty"`

	// MLA latent-cache fields (DeepSeek V2/V3/R1, Kimi K2, GLM-4.7-Flash, GLM-5).
	KVLoraRank    int `json:"kv_lora_rank,omitempty"`
	QKRopeHeadDim int `json:"qk_rope_head_dim,omitempty"`
	// DSA (DeepSeek sparse attention) indexer: index_head_dim, and index_topk
	// whose presence marks a DSA model.
	IndexHeadDim int `json:"index_head_dim,omitempty"`
	IndexTopK    int `json:"index_topk,omitempty"`

	// SlidingWindow is the window of sliding-window layers (sliding_window_size,
	// sliding_window or window_size, in SGLang's order of preference).
	SlidingWindow int `json:"sliding_window,omitempty"`
	// SWALayers and FullLayers count sliding-window and full-attention layers
	// when the config says which is which (layer_types, sliding_window_pattern,
	// hybrid_layer_pattern); both 0 when it doesn't.
	SWALayers  int `json:"swa_layers,omitempty"`
	FullLayers int `json:"full_layers,omitempty"`
	// SWA-layer head shapes where they differ (swa_num_key_value_heads, …).
	SWAKVHeads  int `json:"swa_num_key_value_heads,omitempty"`
	SWAHeadDim  int `json:"swa_head_dim,omitempty"`
	SWAVHeadDim int `json:"swa_v_head_dim,omitempty"`
	// HybridSWAOptIn is the config's own is_hybrid_swa flag.
	HybridSWAOptIn bool `json:"is_hybrid_swa,omitempty"`
	// AttentionChunkSize is Llama 4's attention_chunk_size and ChunkedLayers
	// the layers that attend within a chunk (its RoPE layers, the rest being
	// NoPE layers of full attention); both 0 for other models
	// (readChunkedAttention).
	AttentionChunkSize int `json:"attention_chunk_size,omitempty"`
	ChunkedLayers      int `json:"chunked_layers,omitempty"`

	// ContextKey/ContextValue are the first of SGLang's CONTEXT_LENGTH_KEYS
	// present in the config (max_sequence_length, seq_length, max_seq_len,
	// model_max_length, max_position_embeddings); "" when none is.
	ContextKey string `json:"context_key,omitempty"`
	// ContextUnstated marks a catalog model whose source is not a config.json
	// and does not state these keys: its default context length is unknown.
	ContextUnstated bool         `json:"context_unstated,omitempty"`
	ContextValue    int64        `json:"context_value,omitempty"`
	RopeScaling     *RopeScaling `json:"rope_scaling,omitempty"`

	// Dtype is the checkpoint's torch_dtype / dtype ("" = not stated, which
	// SGLang reads as float32).
	Dtype string `json:"torch_dtype,omitempty"`
	// Quant is the checkpoint's quantization (quantization_config or
	// hf_quant_config.json); nil for an unquantized checkpoint.
	Quant *Quantization `json:"quantization,omitempty"`

	// Parameter counts of the main model (MTP/NextN layers excluded, as SGLang
	// does not load them without speculative decoding): total, attention
	// (all layers), routed experts. 0 = unknown.
	Params          int64  `json:"params,omitempty"`
	AttentionParams int64  `json:"attention_params,omitempty"`
	ExpertParams    int64  `json:"expert_params,omitempty"`
	ParamsSource    string `json:"params_source,omitempty"`
	// WeightsBytes is the checkpoint's total tensor bytes
	// (model.safetensors.index.json metadata.total_size); 0 = unknown.
	WeightsBytes int64 `json:"weights_bytes,omitempty"`

	VocabSize         int  `json:"vocab_size,omitempty"`
	TieWordEmbeddings bool `json:"tie_word_embeddings,omitempty"`
	Experts           int  `json:"num_experts,omitempty"`
	ExpertsPerToken   int  `json:"experts_per_token,omitempty"`
	NextNLayers       int  `json:"num_nextn_predict_layers,omitempty"`

	// HasVisionConfig says the config has a vision_config; VisionLayers and
	// VisionHidden are its num_hidden_layers and hidden_size (0 = absent, which
	// SGLang reads as 24 and 1024). SGLang lowers the default
	// --mem-fraction-static of multimodal models by the vision tower's size.
	HasVisionConfig bool `json:"vision_config,omitempty"`
	VisionLayers    int  `json:"vision_num_hidden_layers,omitempty"`
	VisionHidden    int  `json:"vision_hidden_size,omitempty"`

	// Unsupported says why kvlint cannot size this model's pool the way the
	// engine does (a pool layout it does not model); "" when it can.
	Unsupported string `json:"unsupported,omitempty"`

	// Source cites where the facts came from; Confidence is "config-read"
	// (from a config.json copy) or "inferred" (from a framework's model
	// arguments), as in the reference table.
	Source     string `json:"source"`
	Confidence string `json:"confidence,omitempty"`

	// Inferred lists the variant rules (capacity/variant.go) that made this
	// model from a catalog row; each is reported as an inference.
	Inferred []string `json:"-"`
}

// RopeScaling holds the rope_scaling fields the context-length derivation reads.
type RopeScaling struct {
	Type     string  `json:"type,omitempty"`      // "type" key (transformers v4)
	RopeType string  `json:"rope_type,omitempty"` // "rope_type" key
	Factor   float64 `json:"factor,omitempty"`    // 0 = absent (counts as 1)
	// OriginalMax is original_max_position_embeddings; its presence alone
	// makes SGLang ignore the factor.
	OriginalMax    int64 `json:"original_max_position_embeddings,omitempty"`
	HasOriginalMax bool  `json:"has_original_max,omitempty"`
}

// Quantization is a checkpoint's weight (and KV) quantization.
type Quantization struct {
	// Method is quant_method (fp8, mxfp4, compressed-tensors, modelopt, …) or,
	// for ModelOpt checkpoints, the quant_algo (FP8, NVFP4).
	Method string `json:"method"`
	// KVCacheQuantAlgo is ModelOpt's kv_cache_quant_algo (FP8 makes SGLang's
	// --kv-cache-dtype auto resolve to fp8_e4m3).
	KVCacheQuantAlgo string `json:"kv_cache_quant_algo,omitempty"`
	// Scope says which weights are quantized: "linear" (every linear layer but
	// the embeddings and lm_head), "mlp" (MLP and experts, not attention),
	// "experts" (routed experts only).
	Scope string `json:"scope,omitempty"`
	// BitsPerWeight is the storage cost of one quantized weight including its
	// scales (8 for FP8 blocks, 4.25 for MXFP4, 4.5 for NVFP4 and int4 g32).
	BitsPerWeight float64 `json:"bits_per_weight,omitempty"`
}

// hasArch reports whether the model's architectures include any of names.
func (m *Model) hasArch(names ...string) bool {
	for _, a := range m.Architectures {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// arch0 is architectures[0], the class SGLang dispatches on.
func (m *Model) arch0() string {
	if len(m.Architectures) == 0 {
		return ""
	}
	return m.Architectures[0]
}

// headDim is SGLang's ModelConfig.head_dim for non-MLA models: the config's
// head_dim, else hidden_size // num_attention_heads
// (configs/model_config.py _derive_model_shapes L763-776).
func (m *Model) headDim() int {
	if m.HeadDim > 0 {
		return m.HeadDim
	}
	if m.Heads > 0 {
		return m.HiddenSize / m.Heads
	}
	return 0
}

// vHeadDim defaults to head_dim (same function).
func (m *Model) vHeadDim() int {
	if m.VHeadDim > 0 {
		return m.VHeadDim
	}
	return m.headDim()
}

// lastPathComponent is the final element of an id or path ("org/name" → "name").
func lastPathComponent(s string) string {
	s = strings.TrimRight(s, "/\\")
	if i := strings.LastIndexAny(s, "/\\"); i >= 0 {
		return s[i+1:]
	}
	return s
}
