package main

import "encoding/json"

// params counts a checkpoint's parameters from its config shapes for the
// layouts whose tensors are known: Llama-style decoders (llama, mistral,
// qwen2, qwen3, phi3: q/k/v/o projections, gated MLP, two RMSNorms per
// layer, a final norm, embeddings and an untied lm_head) and their MoE
// forms (mixtral, qwen2_moe, qwen3_moe: routed experts with a router, and
// Qwen2-MoE's shared expert with its gate). Qwen2 adds q/k/v biases, Qwen3
// q/k RMSNorms. Any other model_type, or a missing shape, gives ok=false:
// the weights then stay unknown rather than guessed.
// (Tensor lists: transformers models/<type>/modeling_<type>.py __init__.)
func params(cfg map[string]any) (total, attention, experts int64, ok bool) {
	if _, isObj := cfg["text_config"].(map[string]any); isObj {
		return 0, 0, 0, false // multimodal: the vision tower is not counted here
	}
	typ, _ := cfg["model_type"].(string)
	get := func(k string) int64 {
		n, _ := cfg[k].(json.Number)
		v, err := n.Int64()
		if err != nil {
			return 0
		}
		return v
	}
	v, h, l := get("vocab_size"), get("hidden_size"), get("num_hidden_layers")
	heads, kv := get("num_attention_heads"), get("num_key_value_heads")
	if kv == 0 {
		kv = heads
	}
	hd := get("head_dim")
	if hd == 0 && heads > 0 {
		hd = h / heads
	}
	if v == 0 || h == 0 || l == 0 || heads == 0 || hd == 0 {
		return 0, 0, 0, false
	}
	attn := h*heads*hd + 2*h*kv*hd + heads*hd*h
	switch typ {
	case "qwen2", "qwen2_moe":
		attn += heads*hd + 2*kv*hd // q, k, v biases
	case "qwen3", "qwen3_moe":
		attn += 2 * hd // q_norm, k_norm
	case "llama", "mistral", "phi3", "mixtral":
		if b, _ := cfg["attention_bias"].(bool); b {
			return 0, 0, 0, false
		}
	default:
		return 0, 0, 0, false
	}
	var mlp, expert int64
	switch typ {
	case "llama", "mistral", "phi3", "qwen2", "qwen3":
		i := get("intermediate_size")
		if i == 0 {
			return 0, 0, 0, false
		}
		mlp = 3 * h * i
	case "mixtral":
		e, i := get("num_local_experts"), get("intermediate_size")
		if e == 0 || i == 0 {
			return 0, 0, 0, false
		}
		expert = e * 3 * h * i
		mlp = expert + h*e
	case "qwen3_moe", "qwen2_moe":
		e, i := get("num_experts"), get("moe_intermediate_size")
		if e == 0 || i == 0 || get("decoder_sparse_step") > 1 {
			return 0, 0, 0, false
		}
		if layers, isList := cfg["mlp_only_layers"].([]any); isList && len(layers) > 0 {
			return 0, 0, 0, false
		}
		expert = e * 3 * h * i
		mlp = expert + h*e
		if typ == "qwen2_moe" {
			s := get("shared_expert_intermediate_size")
			mlp += 3*h*s + h
		}
	}
	embed := v * h
	lmHead := embed
	if tied, _ := cfg["tie_word_embeddings"].(bool); tied {
		lmHead = 0
	}
	total = embed + lmHead + l*(attn+mlp+2*h) + h
	return total, l * attn, l * expert, true
}
