package capacity

import (
	"encoding/json"
	"fmt"
	"math"
)

// Parameter counting from config.json shapes.
//
// A config.json states no parameter count, but the tensors a model class
// allocates follow from its shapes. countParams adds them up per layout,
// counting only what the serving module allocates: biases where the class
// creates them, norms (a LayerNorm with a bias counts two vectors), and the
// lm_head only when it is not the embedding matrix. The layouts were read
// from SGLang's model classes (sgl-project/sglang main, mirrored at
// modal-projects/sglang@8905cbd42f4a27dbecad6487cd3904278756fef8,
// python/sglang/srt/models/<file>.py, the __init__ of each module), because
// SGLang is what loads the weights whose memory kvlint budgets; each case
// below names its file.
//
// A model_type not listed, or a shape the layout needs that the config does
// not give, leaves the count unknown: weights are then not guessed. The
// older and rarer layouts are in modelconfig_params_more.go (GPT-NeoX,
// Falcon, BLOOM and MPT read from vLLM's classes, which SGLang lacks).
//
// Multimodal checkpoints (a text sub-config) are counted for the language
// model only; the vision tower's own weights are not counted, and the
// source says so.

// maxCountedParams bounds a count: every term is an exact integer in a
// float64 as long as the total stays below 2^53; a config giving more than
// this is not a real model.
const maxCountedParams = 1e15

// paramCount is what countParams found.
type paramCount struct {
	total, attention, experts int64
	// tied says the logits use the embedding matrix (no lm_head tensor).
	tied bool
	// note says what was left out (a vision tower), or "".
	note string
	// layout is the model_type whose tensors were counted.
	layout string
}

// shapeReader reads the integer shapes of one config object, remembering the
// first key a layout needs that the config does not give.
type shapeReader struct {
	r       *configReader
	missing string
}

// int reads a non-negative integer shape without judging the config: a
// value of another type (MiniMax's per-layer moe_layer_freq list) is not a
// shape this count can use, so it makes the count unknown rather than the
// config invalid.
func (s *shapeReader) int(key string) (float64, bool) {
	raw, present := s.r.obj[key]
	if !present || raw == nil {
		return 0, false
	}
	n, isNum := raw.(json.Number)
	i, err := n.Int64()
	if !isNum || err != nil || i < 0 || i > maxDim {
		if s.missing == "" {
			s.missing = key
		}
		return 0, false
	}
	return float64(i), true
}

// need reads a required shape: absent or 0 makes the count unknown.
func (s *shapeReader) need(key string) float64 {
	v, ok := s.int(key)
	if !ok || v == 0 {
		if s.missing == "" {
			s.missing = key
		}
		return 0
	}
	return v
}

// opt reads a shape that the model class defaults when absent.
func (s *shapeReader) opt(key string, def int64) float64 {
	if v, ok := s.int(key); ok {
		return v
	}
	return float64(def)
}

// flag reads a boolean with the class's default when absent; another type
// makes the count unknown.
func (s *shapeReader) flag(key string, def bool) bool {
	raw, present := s.r.obj[key]
	if !present || raw == nil {
		return def
	}
	b, isBool := raw.(bool)
	if !isBool && s.missing == "" {
		s.missing = key
	}
	return b
}

// countParams counts the parameters of the language model text describes;
// top is the whole config (the same reader for a plain causal LM). ok is
// false when the layout is not one listed here or a shape is missing.
func countParams(text, top *configReader, modelType string) (paramCount, bool) {
	s := &shapeReader{r: text}
	h := s.need("hidden_size")
	l := s.need("num_hidden_layers")
	v := s.need("vocab_size")
	heads := s.need("num_attention_heads")
	if s.missing != "" {
		return paramCount{}, false
	}
	kv := heads
	for _, key := range []string{"n_head_kv", "num_kv_heads", "num_key_value_heads"} { // totalKVHeads' order
		if text.has(key) {
			kv = s.need(key)
			break
		}
	}
	hd := s.opt("head_dim", 0)
	if hd == 0 {
		hd = math.Floor(h / heads)
	}
	// gqa is the q/k/v/o projection weights of grouped-query attention.
	gqa := h*heads*hd + 2*h*kv*hd + heads*hd*h
	// The config classes of these families default tie_word_embeddings to
	// False (transformers LlamaConfig, Qwen2Config, MistralConfig, …);
	// the families whose class ties regardless, or defaults otherwise, say
	// so below.
	tied := configTied(text, top, false)
	if modelType == "qwen3_vl_text" || modelType == "qwen3_vl_moe_text" {
		// qwen3_vl.py reads the parent config's tie_word_embeddings (and
		// copies it into the MoE text config): the parent's wins.
		tied = configTied(top, text, false)
	}

	// perLayer is one layer's parameters; experts one layer's routed
	// experts (all layers' for Llama 4, whose layers differ); extra what
	// the model holds outside its layers beside embeddings and final norm.
	var perLayer, attn, experts, extra float64
	var c paramCount
	h0 := h // the final norm's weight
	vocabRows, embedDim := v, h
	// The class is chosen by architectures[0]; the model_type names the
	// layout everywhere but in InternLM2's first uploads, whose config
	// still said model_type internlm over the InternLM2ForCausalLM class
	// (internlm/internlm2-chat-7b before its config was renamed).
	layout := modelType
	arch0 := ""
	if arch, _ := top.obj["architectures"].([]any); len(arch) > 0 {
		arch0, _ = arch[0].(string)
	}
	switch {
	case modelType == "internlm" && arch0 == "InternLM2ForCausalLM":
		layout = "internlm2"
	case modelType == "llava" && arch0 == "LlavaLlamaForCausalLM" && text == top:
		// LLaVA 1.5's own checkpoints (liuhaotian/llava-v1.5-*) keep the
		// Llama shapes at the top level: SGLang's LlavaLlamaForCausalLM
		// builds LlamaForCausalLM from them (models/llava.py), beside a
		// projector and a CLIP tower the config names but does not shape.
		layout = "llama"
	}
	c.layout = layout
	switch layout {
	case "llama", "mistral", "phi3", "qwen2", "qwen3", "qwen2_vl", "qwen2_5_vl", "qwen3_vl_text", "exaone", "mimo", "ministral3":
		// models/llama.py (LlamaAttention, LlamaMLP, LlamaDecoderLayer);
		// mistral.py, exaone.py (the same tensors under GPT-2-like names)
		// and phi3 (served by llama.py's Phi3ForCausalLM) keep the layout;
		// qwen2.py adds q/k/v biases (bias=True on qkv_proj), qwen3.py
		// per-head q_norm/k_norm RMSNorms. The Qwen2-VL, Qwen2.5-VL and
		// Qwen3-VL language models are qwen2.py's Qwen2Model and qwen3.py's
		// Qwen3Model (qwen2_vl.py, qwen2_5_vl.py, qwen3_vl.py);
		// ministral3.py's Ministral3ForCausalLM is LlamaForCausalLM with
		// Llama 4 attention scaling (a scalar, not a tensor); mimo.py's
		// MiMoModel is a Qwen2Model whose mtp_layers weights are skipped
		// at load (not counted).
		attn = gqa
		switch modelType {
		case "qwen2", "qwen2_vl", "qwen2_5_vl", "mimo":
			attn += heads*hd + 2*kv*hd
		case "qwen3", "qwen3_vl_text":
			attn += 2 * hd
		default:
			if s.flag("attention_bias", false) || s.flag("mlp_bias", false) {
				return paramCount{}, false // biases on a Llama layout: not a published checkpoint kvlint has checked
			}
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + 2*h
	case "mixtral", "qwen2_moe", "qwen3_moe", "qwen3_vl_moe_text":
		// models/mixtral.py (MixtralMoE: gate h→E, E experts of w1/w2/w3),
		// qwen2_moe.py (plus a shared expert and its 1-wide gate, q/k/v
		// biases), qwen3_moe.py (q_norm/k_norm). Layers whose MLP is dense
		// (decoder_sparse_step > 1, mlp_only_layers) are not counted here.
		if s.opt("decoder_sparse_step", 1) > 1 {
			return paramCount{}, false
		}
		if list, isList := text.obj["mlp_only_layers"].([]any); isList && len(list) > 0 {
			return paramCount{}, false
		}
		attn = gqa
		var e, i float64
		if modelType == "mixtral" {
			if s.flag("attention_bias", false) {
				return paramCount{}, false
			}
			e, i = s.need("num_local_experts"), s.need("intermediate_size")
		} else {
			e, i = s.need("num_experts"), s.need("moe_intermediate_size")
		}
		experts = e * 3 * h * i
		mlp := experts + h*e
		switch modelType {
		case "qwen2_moe":
			attn += heads*hd + 2*kv*hd
			mlp += 3*h*s.opt("shared_expert_intermediate_size", 0) + h
		case "qwen3_moe", "qwen3_vl_moe_text":
			attn += 2 * hd // qwen3_vl_moe.py's language model is Qwen3MoeModel
		}
		perLayer = attn + mlp + 2*h
	case "gemma", "gemma2":
		// models/gemma.py and gemma2.py: GemmaForCausalLM and
		// Gemma2ForCausalLM allocate no lm_head (the logits use
		// embed_tokens whatever tie_word_embeddings says); the MLP is
		// gate_up_proj + down_proj (GeGLU); Gemma has two RMSNorms per layer,
		// Gemma 2 four (input, post_attention, pre_feedforward,
		// post_feedforward).
		tied = true
		attn = gqa
		if s.flag("attention_bias", false) {
			attn += heads*hd + 2*kv*hd + h
		}
		norms := 2.0
		if modelType == "gemma2" {
			norms = 4
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + norms*h
	case "gemma3_text":
		// models/gemma3_causal.py: Gemma 2's layer plus per-head q_norm and
		// k_norm (Gemma3RMSNorm(head_dim)); Gemma3ForCausalLM allocates an
		// lm_head only when tie_word_embeddings is false.
		attn = gqa + 2*hd
		if s.flag("attention_bias", false) {
			attn += heads*hd + 2*kv*hd + h
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + 4*h
	case "cohere":
		// models/commandr.py: CohereForCausalLM has no lm_head (the logits use
		// embed_tokens); attention and MLP run in parallel after one
		// LayerNorm whose only parameter is its weight; use_qk_norm adds
		// q_norm (heads × head_dim) and k_norm (kv heads × head_dim).
		tied = true
		attn = gqa
		if s.flag("use_qk_norm", false) {
			attn += heads*hd + kv*hd
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + h
	case "internlm2":
		// models/internlm2.py: wqkv (one packed QKV projection, the same
		// count as separate q/k/v) and wo, bias=False; gate_up_proj + w2;
		// attention_norm and ffn_norm; an output head is always allocated.
		if s.flag("bias", false) {
			return paramCount{}, false
		}
		tied = false
		attn = gqa
		perLayer = attn + 3*h*s.need("intermediate_size") + 2*h
	case "llama4_text":
		// models/llama4.py: Llama4Attention (qkv_proj/o_proj, bias from
		// attention_bias; its qk_norm has no weight), Llama4DecoderLayer
		// (_is_moe_layer: every interleave_moe_layer_step-th layer is MoE,
		// the others a dense LlamaMLP of intermediate_size_mlp), Llama4MoE
		// (router h→E without bias, E experts and one shared expert of
		// intermediate_size).
		if s.flag("attention_bias", false) {
			return paramCount{}, false
		}
		attn = gqa
		step := s.opt("interleave_moe_layer_step", 1)
		e, i, iMLP := s.need("num_local_experts"), s.need("intermediate_size"), s.need("intermediate_size_mlp")
		var moeLayers float64
		switch {
		case step == 0:
			moeLayers = l
		default:
			moeLayers = math.Floor(l / step)
		}
		experts = moeLayers * e * 3 * h * i
		extra = experts + moeLayers*(h*e+3*h*i) + (l-moeLayers)*3*h*iMLP
		perLayer = attn + 2*h
	case "phimoe":
		// models/phimoe.py: qkv_proj/o_proj with attention_bias, a gate h→E
		// without bias, E experts, LayerNorms with weight and bias (two per
		// layer and a final one), and an lm_head created with bias=True.
		attn = gqa
		if s.flag("attention_bias", false) {
			attn += heads*hd + 2*kv*hd + h
		}
		e, i := s.need("num_local_experts"), s.need("intermediate_size")
		experts = e * 3 * h * i
		perLayer = attn + experts + h*e + 4*h
		extra = v + h // the lm_head's bias, the final LayerNorm's bias
	case "gpt_oss":
		// models/gpt_oss.py: qkv_proj/o_proj with attention_bias, one sink
		// per head, a router h→E with bias, E experts whose gate_up (2I)
		// and down projections carry biases (with_bias=True), two RMSNorms.
		if !s.flag("attention_bias", false) {
			return paramCount{}, false
		}
		attn = gqa + heads*hd + 2*kv*hd + h + heads
		e, i := s.need("num_local_experts"), s.need("intermediate_size")
		experts = e * (h*2*i + 2*i + i*h + h)
		perLayer = attn + experts + h*e + e + 2*h
	case "minimax_m2":
		// models/minimax_m2.py: qkv_proj/o_proj without bias; with
		// use_qk_norm (qk_norm_type per_layer) RMSNorms over all query heads
		// and all KV heads; MiniMaxM2MoE's gate h→E without bias,
		// e_score_correction_bias (E) when use_routing_bias, E experts of
		// intermediate_size and no shared expert; an lm_head. The config
		// class is the checkpoint's own code, so both switches must be
		// stated: an absent one leaves the count unknown. The MTP modules
		// are not counted (not loaded without speculative decoding).
		if !text.has("use_qk_norm") || !text.has("use_routing_bias") {
			return paramCount{}, false
		}
		attn = gqa
		if s.flag("use_qk_norm", false) {
			if t, _ := text.obj["qk_norm_type"].(string); t != "" && t != "per_layer" {
				return paramCount{}, false
			}
			attn += heads*hd + kv*hd
		}
		e, i := s.need("num_local_experts"), s.need("intermediate_size")
		experts = e * 3 * h * i
		perLayer = attn + experts + h*e + 2*h
		if s.flag("use_routing_bias", false) {
			perLayer += e
		}
		tied = false
	case "olmo", "olmo2":
		// models/olmo.py: qkv_proj/o_proj with attention_bias, a gated
		// MLP, and LayerNorms built with elementwise_affine=False (no
		// parameters at all). olmo2.py: RMSNorm q_norm over all query
		// heads and k_norm over all KV heads, post_attention and
		// post_feedforward RMSNorms and a final one.
		attn = gqa
		if s.flag("attention_bias", false) {
			attn += heads*hd + 2*kv*hd + h
		}
		norms := 0.0
		if modelType == "olmo2" {
			attn += heads*hd + kv*hd
			norms = 2 * h
		} else {
			h0 = 0 // OLMo's final norm has no parameters either
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + norms
		if !hasTie(text, top) {
			return paramCount{}, false // the class default is not checked: leave it unknown
		}
	case "stablelm":
		// models/stablelm.py: qkv_proj with a bias when use_qkv_bias,
		// o_proj without, a gated MLP, nn.LayerNorm (weight and bias) twice
		// per layer and once at the end, and an lm_head always allocated.
		// Its per-head qk_layernorm is not built by SGLang's class: a
		// config asking for it is left unknown.
		if s.flag("qk_layernorm", false) {
			return paramCount{}, false
		}
		attn = gqa
		if s.flag("use_qkv_bias", false) {
			attn += heads*hd + 2*kv*hd
		}
		perLayer = attn + 3*h*s.need("intermediate_size") + 4*h
		tied = false
		extra = h // the final LayerNorm's bias
	case "starcoder2":
		// models/starcoder2.py: qkv_proj/o_proj and an ungated c_fc/c_proj
		// MLP, all with biases when use_bias; nn.LayerNorm (weight and
		// bias) twice per layer and once at the end; an lm_head unless
		// tie_word_embeddings.
		attn = gqa
		i := s.need("intermediate_size")
		mlp := 2 * h * i
		if s.flag("use_bias", true) {
			attn += heads*hd + 2*kv*hd + h
			mlp += i + h
		}
		perLayer = attn + mlp + 4*h
		extra = h
		// Starcoder2Config takes no tie_word_embeddings argument, so
		// PretrainedConfig's True applies (transformers@77efc55c011c247cd8ff1e7047bd20a177edf012
		// models/starcoder2/configuration_starcoder2.py).
		tied = configTied(text, top, true)
	case "gpt2", "gptj":
		// models/gpt2.py: c_attn (packed QKV) and c_proj with biases, an
		// ungated c_fc/c_proj MLP with biases (n_inner, else 4 × width),
		// ln_1/ln_2 LayerNorms with biases, learned position embeddings
		// wpe, ln_f, and the logits on wte (lm_head = transformer.wte).
		// models/gpt_j.py: qkv_proj and out_proj without bias, fc_in/fc_out
		// with (the linear layers' default), one ln_1 per layer (attention
		// and MLP run in parallel), ln_f, and an lm_head with a bias (the
		// class asserts tie_word_embeddings is false). The keys are
		// GPT-2's (n_embd, n_layer, …), read through attributeMaps.
		i := s.opt("n_inner", 0)
		if i == 0 {
			i = 4 * h
		}
		mlp := h*i + i + i*h + h
		if modelType == "gpt2" {
			attn = 3*h*h + 3*h + h*h + h
			perLayer = attn + mlp + 4*h
			extra = s.need("max_position_embeddings")*h + h
			tied = true
		} else {
			attn = 4 * h * h
			perLayer = attn + mlp + 2*h
			extra = v + h
			tied = false
		}
	case "deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa":
		return countMLAMoE(s, text, top, modelType, h, l, v, heads)
	case "minicpm3":
		// models/minicpm3.py: MiniCPM3AttentionMLA (q_a_proj, q_a_layernorm,
		// q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj,
		// none with a bias; v_head_dim is hidden_size // heads), a dense
		// gated MLP, two RMSNorms; lm_head only when untied.
		// MiniCPM3's remote config class leaves tie_word_embeddings to
		// PretrainedConfig, whose default is True.
		tied = configTied(text, top, true)
		vhd := math.Floor(h / heads)
		attn = mlaAttention(s, h, heads, vhd)
		perLayer = attn + 3*h*s.need("intermediate_size") + 2*h
	default:
		t, ok := countMoreLayouts(s, text, top, layout, layoutDims{h: h, l: l, v: v, heads: heads, kv: kv, hd: hd})
		if !ok {
			return paramCount{}, false
		}
		perLayer, attn, experts, extra, h0, tied = t.perLayer, t.attn, t.experts, t.extra, t.finalNorm, t.tied
		vocabRows, embedDim = t.vocabRows, t.embedDim
	}
	if s.missing != "" {
		return paramCount{}, false
	}
	embed := vocabRows * embedDim
	lmHead := embed
	if tied {
		lmHead = 0
	}
	total := embed + lmHead + l*perLayer + extra + h0
	if total > maxCountedParams || total <= 0 {
		return paramCount{}, false
	}
	if modelType != "llama4_text" {
		experts *= l // the others counted one layer's experts
	}
	c.total, c.attention, c.experts, c.tied = int64(total), int64(l*attn), int64(experts), tied
	// A multimodal model: its vision (or audio) tower's shapes are not
	// among the keys kvlint reads, so its weights are left out.
	if top != text {
		c.note = "only the language model (" + text.prefix + ") is counted: the vision tower is not"
	} else if _, vision := top.obj["vision_config"].(map[string]any); vision {
		c.note = "only the language model is counted: the vision tower (vision_config) is not"
	} else if modelType == "llava" {
		c.note = "only the language model is counted: the vision tower and projector are not"
	}
	return c, true
}

// mlaAttention counts a multi-head latent attention block: the query
// through a low-rank q_a_proj/q_a_layernorm/q_b_proj (or one q_proj when
// q_lora_rank is absent), kv_a_proj_with_mqa to the latent and the rope key,
// kv_a_layernorm, kv_b_proj back to per-head keys and values, and o_proj.
func mlaAttention(s *shapeReader, h, heads, vhd float64) float64 {
	nope, rope := s.need("qk_nope_head_dim"), s.need("qk_rope_head_dim")
	kvRank := s.need("kv_lora_rank")
	qk := nope + rope
	var q float64
	if qRank := s.opt("q_lora_rank", 0); qRank > 0 {
		q = h*qRank + qRank + qRank*heads*qk
	} else {
		q = h * heads * qk
	}
	return q + h*(kvRank+rope) + kvRank + kvRank*heads*(nope+vhd) + heads*vhd*h
}

// countMLAMoE counts DeepSeek-V2/V3-style models (models/deepseek_v2.py:
// DeepseekV2AttentionMLA, DeepseekV2MLP, DeepseekV2MoE and MoEGate;
// Kimi K2 and GLM-5 are served by the same classes). The first
// first_k_dense_replace layers (and those off moe_layer_freq) have a dense
// MLP of intermediate_size; the others n_routed_experts experts and
// n_shared_experts shared ones of moe_intermediate_size, and a gate h→E
// whose e_score_correction_bias exists under topk_method noaux_tc (the
// DeepseekV3Config default; DeepSeek-V2's configs use greedy routing).
// DSA models (index_topk set) add the indexer of
// layers/attention/dsa/dsa_indexer.py: wq_b, wk, weights_proj and a
// LayerNorm k_norm with weight and bias. The MTP (NextN) layers are not
// counted: SGLang loads them only as a speculative-decoding draft model
// (DeepseekV3ForCausalLMNextN), not with the main model.
func countMLAMoE(s *shapeReader, text, top *configReader, modelType string, h, l, v, heads float64) (paramCount, bool) {
	attn := mlaAttention(s, h, heads, s.need("v_head_dim"))
	if text.has("index_topk") {
		nh, ihd := s.need("index_n_heads"), s.need("index_head_dim")
		attn += s.need("q_lora_rank")*nh*ihd + h*ihd + h*nh + 2*ihd
	}
	dense := s.opt("first_k_dense_replace", 0)
	freq := s.opt("moe_layer_freq", 1)
	e, mi := s.need("n_routed_experts"), s.need("moe_intermediate_size")
	shared := s.opt("n_shared_experts", 0)
	bias := modelType != "deepseek_v2"
	if topk, isStr := text.obj["topk_method"].(string); isStr {
		bias = topk == "noaux_tc"
	}
	if s.missing != "" || freq == 0 || dense > l {
		return paramCount{}, false
	}
	var moeLayers float64
	for layer := 0; layer < int(l); layer++ {
		if float64(layer) >= dense && math.Mod(float64(layer), freq) == 0 {
			moeLayers++
		}
	}
	experts := moeLayers * e * 3 * h * mi
	gate := h * e
	if bias {
		gate += e
	}
	moe := experts + moeLayers*(shared*3*h*mi+gate)
	var denseMLP float64
	if moeLayers < l {
		denseMLP = (l - moeLayers) * 3 * h * s.need("intermediate_size")
	}
	if s.missing != "" {
		return paramCount{}, false
	}
	tied := configTied(text, top, false)
	embed := v * h
	lmHead := embed
	if tied {
		lmHead = 0
	}
	total := embed + lmHead + l*(attn+2*h) + moe + denseMLP + h
	if total > maxCountedParams {
		return paramCount{}, false
	}
	return paramCount{total: int64(total), attention: int64(l * attn), experts: int64(experts), tied: tied, layout: modelType}, true
}

// applyParamCount sets the model's parameter counts from the config shapes
// when countParams knows the layout.
func applyParamCount(text, top *configReader, m *Model) {
	c, ok := countParams(text, top, m.ModelType)
	if !ok {
		return
	}
	m.Params, m.AttentionParams, m.ExpertParams = c.total, c.attention, c.experts
	// The weights split puts the embedding and the lm_head on different
	// pipeline stages: say whether the class allocates the latter.
	m.TieWordEmbeddings = c.tied
	layout := c.layout
	if layout == "" {
		layout = m.ModelType
	}
	m.ParamsSource = "computed from the config.json shapes (embeddings, attention, MLP or experts, norms; " + layout + " layout)"
	if c.note != "" {
		m.ParamsSource += fmt.Sprintf("; %s", c.note)
	}
}

// hasTie says whether the config states tie_word_embeddings (in the text
// sub-config or the top level): for classes whose default kvlint has not
// checked, an absent key leaves the count unknown.
func hasTie(text, top *configReader) bool {
	return text.has("tie_word_embeddings") || top.has("tie_word_embeddings")
}

// configTied resolves tie_word_embeddings as parseModelConfig does: the
// text sub-config's own value, else the top-level one, else the class
// default def.
func configTied(text, top *configReader, def bool) bool {
	for _, r := range []*configReader{text, top} {
		if b, isBool := r.obj["tie_word_embeddings"].(bool); isBool {
			return b
		}
	}
	return def
}
