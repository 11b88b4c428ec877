package capacity

import "math"

// More layouts for countParams: the families whose checkpoints are still
// deployed (OPT, Phi-2, GPT-NeoX/Pythia, Falcon, BLOOM, MPT, Baichuan,
// ChatGLM, Qwen 1, Granite, OLMoE, Persimmon, Orion, XVERSE, MiniCPM 1/2,
// DBRX).
//
// Each case names the model class whose __init__ was read. Where SGLang
// serves the family, its class (modal-projects/sglang@8905cbd42f4a27dbecad6487cd3904278756fef8
// python/sglang/srt/models/<file>.py, as in modelconfig_params.go); GPT-NeoX,
// Falcon, BLOOM and MPT have no SGLang class, so vLLM's is read, at the
// commit named beside each.
//
// A switch whose class default was not checked, and that the published
// configs state, is required: a config without it leaves the count unknown
// rather than guessing.

// layoutDims are the shapes every layout reads, resolved by countParams.
type layoutDims struct {
	h, l, v, heads, kv, hd float64
}

// layoutTerms is what a layout adds up: one layer's parameters (and, of
// those, its attention and routed experts), what the model holds outside
// its layers beside the input embedding and the lm_head (extra), the final
// norm, the embedding matrix's shape, and whether the logits reuse it.
type layoutTerms struct {
	perLayer, attn, experts, extra, finalNorm float64
	vocabRows, embedDim                       float64
	tied                                      bool
}

// layerNorm is an nn.LayerNorm of width w: a weight and a bias.
func layerNorm(w float64) float64 { return 2 * w }

// countMoreLayouts counts the layouts listed above; ok is false for any
// other model_type, and for a config whose switches put it outside the
// shapes read here.
func countMoreLayouts(s *shapeReader, text, top *configReader, layout string, d layoutDims) (layoutTerms, bool) {
	h, v, heads, kv, hd := d.h, d.v, d.heads, d.kv, d.hd
	t := layoutTerms{vocabRows: v, embedDim: h, finalNorm: h}
	// mha is a fused or separate q/k/v/o projection over every head.
	mha := 4 * h * h
	switch layout {
	case "phi":
		// models/phi.py: PhiAttention is multi-head over
		// num_attention_heads (head size hidden // heads) whatever
		// num_key_value_heads says: qkv_proj with a bias, dense with the
		// RowParallelLinear default bias; PhiMLP fc1/fc2 with biases, of
		// n_inner, else 4 × hidden (intermediate_size is not read); one
		// input_layernorm (attention and MLP run in parallel), a final
		// LayerNorm, and an lm_head created with bias=True.
		if kv != heads {
			return t, false
		}
		i := s.opt("n_inner", 0)
		if i == 0 {
			i = 4 * h
		}
		t.attn = mha + 4*h
		t.perLayer = t.attn + 2*h*i + i + h + layerNorm(h)
		t.finalNorm = layerNorm(h)
		t.extra = v // the lm_head's bias
	case "persimmon":
		// models/persimmon.py: query_key_value and dense with biases,
		// q_layernorm/k_layernorm (nn.LayerNorm(head_dim)) when
		// qk_layernorm, dense_h_to_4h/dense_4h_to_h with the default
		// biases, two LayerNorms per layer and a final one, and an lm_head
		// without bias always allocated.
		if kv != heads || !text.has("qk_layernorm") {
			return t, false // the class default is not checked: required
		}
		i := s.need("intermediate_size")
		t.attn = mha + 4*h
		if s.flag("qk_layernorm", false) {
			t.attn += 2 * layerNorm(hd)
		}
		t.perLayer = t.attn + 2*h*i + i + h + 2*layerNorm(h)
		t.finalNorm = layerNorm(h)
	case "baichuan":
		// models/baichuan.py: BaiChuanAttention is multi-head
		// (total_num_kv_heads = total_num_heads) through one W_pack without
		// bias and o_proj without bias, whether positions are rotary
		// (hidden 4096) or ALiBi (13B), which adds no parameter; a gated
		// MLP without biases; two RMSNorms; lm_head unless
		// tie_word_embeddings (the checkpoint's own config class: required).
		if !hasTie(text, top) {
			return t, false
		}
		t.attn = mha
		t.perLayer = t.attn + 3*h*s.need("intermediate_size") + 2*h
		t.tied = configTied(text, top, false)
	case "olmoe":
		// models/olmoe.py: qkv_proj/o_proj without bias, q_norm and k_norm
		// RMSNorms over hidden_size, a gate h→E without bias, E experts of
		// intermediate_size, two RMSNorms, and an lm_head always allocated.
		if s.flag("attention_bias", false) || kv != heads {
			return t, false
		}
		e, i := s.need("num_experts"), s.need("intermediate_size")
		t.attn = mha + 2*h
		t.experts = e * 3 * h * i
		t.perLayer = t.attn + t.experts + h*e + 2*h
	case "gpt_neox":
		// vllm-project/vllm@642d31b814b3dceab9636dcb3c1367ea5968699d
		// vllm/model_executor/models/gpt_neox.py: query_key_value and dense
		// with biases unless attention_bias is false, dense_h_to_4h and
		// dense_4h_to_h with biases, input and post-attention LayerNorms, a
		// final LayerNorm, and embed_out (shared with embed_in only when
		// tie_word_embeddings: Pythia's configs state it, so it is required).
		if !hasTie(text, top) {
			return t, false
		}
		i := s.need("intermediate_size")
		t.attn = mha
		if s.flag("attention_bias", true) {
			t.attn += 4 * h
		}
		t.perLayer = t.attn + 2*h*i + i + h + 2*layerNorm(h)
		t.finalNorm = layerNorm(h)
		t.tied = configTied(text, top, false)
	case "opt":
		// models/opt.py: embed_tokens of word_embed_proj_dim, learned
		// positions of max_position_embeddings + 2 (OPT's offset) at
		// hidden_size, project_in/project_out without bias when
		// word_embed_proj_dim differs from hidden_size; qkv_proj, out_proj,
		// fc1 (ffn_dim) and fc2 with biases when enable_bias, two
		// LayerNorms per layer (parameters only when
		// layer_norm_elementwise_affine), a final one when
		// do_layer_norm_before; an lm_head of word_embed_proj_dim unless
		// tie_word_embeddings. OPTConfig takes no tie_word_embeddings, so
		// PretrainedConfig's True applies
		// (huggingface/transformers@014674d38b61e5c7109e89d496bd699121a8aa4e
		// src/transformers/models/opt/configuration_opt.py OPTConfig.__init__);
		// enable_bias and layer_norm_elementwise_affine were added later,
		// defaulting to True for the checkpoints that predate them (every
		// facebook/opt-* checkpoint carries the biases). Every published OPT
		// config states ffn_dim and word_embed_proj_dim: both are required.
		if !text.has("word_embed_proj_dim") || s.flag("_remove_final_layer_norm", false) {
			return t, false
		}
		e, f, pos := s.need("word_embed_proj_dim"), s.need("ffn_dim"), s.need("max_position_embeddings")
		bias := s.flag("enable_bias", true)
		ln := 0.0
		if s.flag("layer_norm_elementwise_affine", true) {
			ln = layerNorm(h)
		}
		t.attn = mha
		mlp := 2 * h * f
		if bias {
			t.attn += 4 * h
			mlp += f + h
		}
		t.perLayer = t.attn + mlp + 2*ln
		t.embedDim = e
		t.extra = (pos + 2) * h
		if e != h {
			t.extra += 2 * h * e
		}
		t.finalNorm = 0
		if s.flag("do_layer_norm_before", true) {
			t.finalNorm = ln
		}
		t.tied = configTied(text, top, true)
	case "falcon":
		// vllm-project/vllm@00620f91ea186ca295a1eb69f4acba9d0efaaaaa
		// vllm/model_executor/models/falcon.py: query_key_value over
		// num_kv_heads (new_decoder_architecture), 1 (multi_query) or every
		// head, dense, and dense_h_to_4h/dense_4h_to_h of 4 × hidden, all
		// with biases only when bias; LayerNorms: input and post-attention
		// without parallel_attn, ln_attn and ln_mlp when
		// num_ln_in_parallel_attn is 2 (the default under
		// new_decoder_architecture), else one; ln_f; an lm_head only when
		// tie_word_embeddings is false (absent means tied). The switches
		// default as FalconConfig does (multi_query and parallel_attn True,
		// bias and new_decoder_architecture False:
		// huggingface/transformers@5fd8edad2a672d6a10d6352b62b823d56c3032bf
		// src/transformers/models/falcon/configuration_falcon.py
		// FalconConfig.__init__). A ffn_hidden_size other than 4 × hidden is
		// not what that class allocates: unknown.
		if f, ok := s.int("ffn_hidden_size"); ok && f != 4*h {
			return t, false
		}
		newDecoder := s.flag("new_decoder_architecture", false)
		kvHeads := heads
		switch {
		case newDecoder:
			kvHeads = kv
		case s.flag("multi_query", true):
			kvHeads = 1
		}
		bias := s.flag("bias", false)
		parallel := s.flag("parallel_attn", true)
		t.attn = h*(heads+2*kvHeads)*hd + h*h
		mlp := 8 * h * h
		if bias {
			t.attn += (heads+2*kvHeads)*hd + h
			mlp += 4*h + h
		}
		lns := 1.0
		nln, stated := s.int("num_ln_in_parallel_attn")
		switch {
		case !parallel:
			lns = 2
		case stated && nln == 2, !stated && newDecoder:
			lns = 2
		}
		t.perLayer = t.attn + mlp + lns*layerNorm(h)
		t.finalNorm = layerNorm(h)
		t.tied = configTied(text, top, true)
	case "bloom":
		// vllm-project/vllm@01dbb08195ca9c70ac9044786a906a353e07fcdf
		// vllm/model_executor/models/bloom.py: query_key_value and dense
		// with biases over every head (ALiBi: no position parameters),
		// dense_h_to_4h/dense_4h_to_h of 4 × hidden with biases,
		// input and post-attention LayerNorms, word_embeddings_layernorm
		// after the embedding, ln_f, and an lm_head unless
		// tie_word_embeddings. BloomConfig takes no tie_word_embeddings,
		// so PretrainedConfig's True applies
		// (huggingface/transformers@d94ee404add5208a61220111258cbafa50aaa297
		// src/transformers/models/bloom/configuration_bloom.py
		// BloomConfig.__init__).
		if kv != heads {
			return t, false
		}
		t.attn = mha + 4*h
		t.perLayer = t.attn + 8*h*h + 5*h + 2*layerNorm(h)
		t.extra = layerNorm(h)
		t.finalNorm = layerNorm(h)
		t.tied = configTied(text, top, true)
	case "mpt":
		// vllm-project/vllm@02d799bcfa7192d80c69329d6bbfc5189efeb87d
		// vllm/model_executor/models/mpt.py: Wqkv over attn_config's
		// kv_n_heads (else every head) and out_proj, up_proj/down_proj of
		// expansion_ratio × d_model, norm_1/norm_2 and norm_f LayerNorms,
		// q_ln/k_ln LayerNorms of d_model under attn_config.qk_ln; with
		// no_bias every Linear and LayerNorm bias is removed; the logits
		// use wte (MPTForCausalLM asserts tie_word_embeddings). MptConfig's
		// expansion_ratio defaults to 4 and no_bias to True
		// (huggingface/transformers@05699a763e76ee438fa65e6eeae4a294ea0026f5
		// src/transformers/models/mpt/configuration_mpt.py MptConfig.__init__).
		if !configTied(text, top, true) {
			return t, false
		}
		kv = float64(attnConfigKVHeads(text, layout, int(heads)))
		bias := !s.flag("no_bias", true)
		ratio := s.opt("expansion_ratio", 4)
		norm := h
		if bias {
			norm = 2 * h
		}
		t.attn = h*(heads+2*kv)*hd + h*h
		mlp := 2 * h * ratio * h
		if bias {
			t.attn += (heads+2*kv)*hd + h
			mlp += ratio*h + h
		}
		if ac, ok := text.obj["attn_config"].(map[string]any); ok {
			if qk, _ := ac["qk_ln"].(bool); qk {
				if kv != heads {
					return t, false
				}
				t.attn += 2 * norm
			}
		}
		t.perLayer = t.attn + mlp + 2*norm
		t.finalNorm = norm
		t.tied = true
	case "chatglm":
		// models/chatglm.py (ChatGLM2/3, GLM-4): embedding and
		// output_layer of padded_vocab_size rows (the output layer always
		// allocated); query_key_value over multi_query_group_num KV heads
		// when multi_query_attention (else every head), head size
		// hidden // heads, with a bias when add_bias_linear or
		// add_qkv_bias; dense and the gated dense_h_to_4h (2 ×
		// ffn_hidden_size)/dense_4h_to_h with biases only when
		// add_bias_linear; RMSNorm (rmsnorm) or LayerNorm twice per layer
		// and, with post_layer_norm, at the end. The switches default as
		// SGLang's ChatGLMConfig does (configs/chatglm.py: rmsnorm and
		// post_layer_norm True, the biases and multi_query_attention
		// False). ChatGLM-6B (v1) has neither padded_vocab_size nor
		// ffn_hidden_size: unknown.
		if !text.has("padded_vocab_size") {
			return t, false
		}
		t.vocabRows = s.need("padded_vocab_size")
		f := s.need("ffn_hidden_size")
		hd = math.Floor(h / heads)
		groups := heads
		if s.flag("multi_query_attention", false) {
			groups = s.opt("multi_query_group_num", 1)
		}
		biasLinear := s.flag("add_bias_linear", false)
		t.attn = h*(heads+2*groups)*hd + heads*hd*h
		if biasLinear || s.flag("add_qkv_bias", false) {
			t.attn += (heads + 2*groups) * hd
		}
		mlp := 3 * h * f
		if biasLinear {
			t.attn += h
			mlp += 2*f + h
		}
		norm := h
		if !s.flag("rmsnorm", true) {
			norm = layerNorm(h)
		}
		t.perLayer = t.attn + mlp + 2*norm
		t.finalNorm = 0
		if s.flag("post_layer_norm", true) {
			t.finalNorm = norm
		}
	case "qwen":
		// models/qwen.py (Qwen 1, QWenLMHeadModel): wte and lm_head of the
		// vocabulary padded to a multiple of 64, c_attn over every head
		// with a bias, c_proj without, a gated MLP whose gate and up halves
		// are intermediate_size // 2 wide each, ln_1/ln_2 and ln_f
		// RMSNorms; the lm_head is always allocated.
		if kv != heads {
			return t, false
		}
		t.vocabRows = math.Ceil(v/64) * 64
		t.attn = mha + 3*h
		t.perLayer = t.attn + 3*h*math.Floor(s.need("intermediate_size")/2) + 2*h
	case "granite", "xverse", "orion", "minicpm":
		// models/granite.py, xverse.py, orion.py, minicpm.py: Llama's
		// tensors with no bias (qkv_proj, o_proj, gate_up_proj and
		// down_proj all bias=False, whatever attention_bias says: a config
		// asking for biases is not one of these checkpoints); granite.py,
		// xverse.py and minicpm.py use two RMSNorms per layer, orion.py
		// nn.LayerNorm (weight and bias). Granite, Orion and MiniCPM tie
		// the lm_head to the embedding when tie_word_embeddings (required:
		// their configs state it); XVERSE always allocates its own.
		// MiniCPM's scale_emb and dim_model_base are scalars, not tensors;
		// its MoE configs (num_experts) are not this dense layout.
		if s.flag("attention_bias", false) || s.flag("mlp_bias", false) {
			return t, false
		}
		if layout == "minicpm" && s.opt("num_experts", 0) > 0 {
			return t, false
		}
		t.attn = h*heads*hd + 2*h*kv*hd + heads*hd*h
		norms := 2 * h
		if layout == "orion" {
			norms = 2 * layerNorm(h)
			t.finalNorm = layerNorm(h)
		}
		t.perLayer = t.attn + 3*h*s.need("intermediate_size") + norms
		if layout != "xverse" {
			if !hasTie(text, top) {
				return t, false
			}
			t.tied = configTied(text, top, false)
		}
	case "granitemoe":
		// models/granitemoe.py: qkv_proj/o_proj without bias, a gate h→E
		// without bias, E experts (num_local_experts) of
		// intermediate_size, two RMSNorms, an lm_head tied when
		// tie_word_embeddings (required, as for Granite).
		if s.flag("attention_bias", false) || !hasTie(text, top) {
			return t, false
		}
		e, i := s.need("num_local_experts"), s.need("intermediate_size")
		t.attn = h*heads*hd + 2*h*kv*hd + heads*hd*h
		t.experts = e * 3 * h * i
		t.perLayer = t.attn + t.experts + h*e + 2*h
		t.tied = configTied(text, top, false)
	case "dbrx":
		// models/dbrx.py: Wqkv over attn_config.kv_n_heads and out_proj
		// without bias; a router h→E without bias; E experts whose ws hold
		// w1 and v1 (2 × ffn_hidden_size × d_model) and w2s the down
		// projection; norm_1/norm_2 and norm_f LayerNorms whose biases
		// DbrxModel removes; an lm_head always allocated.
		ffn, ok := text.obj["ffn_config"].(map[string]any)
		if !ok {
			return t, false
		}
		fr := &shapeReader{r: &configReader{doc: text.doc, obj: ffn, prefix: text.path("ffn_config")}}
		e, f := fr.need("moe_num_experts"), fr.need("ffn_hidden_size")
		if fr.missing != "" {
			return t, false
		}
		kv = float64(attnConfigKVHeads(text, layout, int(heads)))
		t.attn = h*(heads+2*kv)*hd + h*h
		t.experts = e * 3 * h * f
		t.perLayer = t.attn + t.experts + h*e + 2*h
	default:
		return t, false
	}
	return t, s.missing == ""
}

// attnConfigKVHeads is the KV-head count of MPT and DBRX, which keep it in
// attn_config: SGLang's get_total_num_kv_heads reads attn_config.kv_n_heads
// for both, falling back to num_attention_heads for MPT and to
// DbrxAttentionConfig's default of 1 for DBRX
// (modal-projects/sglang@8905cbd42f4a27dbecad6487cd3904278756fef8
// python/sglang/srt/configs/model_config.py ModelConfig.get_total_num_kv_heads;
// python/sglang/srt/configs/dbrx.py DbrxAttentionConfig.__init__). Other
// layouts return heads.
func attnConfigKVHeads(r *configReader, modelType string, heads int) int {
	if modelType != "mpt" && modelType != "dbrx" {
		return heads
	}
	def := heads
	if modelType == "dbrx" {
		def = 1
	}
	ac, ok := r.obj["attn_config"].(map[string]any)
	if !ok {
		return def
	}
	sub := &configReader{doc: r.doc, obj: ac, prefix: r.path("attn_config")}
	if !sub.has("kv_n_heads") {
		return def
	}
	n, _ := sub.int("kv_n_heads", maxHeads)
	if sub.err != nil && r.err == nil {
		r.err = sub.err
	}
	return int(n)
}
