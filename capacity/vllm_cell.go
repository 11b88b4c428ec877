package capacity

import (
	"fmt"
	"strings"
)

// dtypesVLLM resolves the model dtype (--dtype) and the KV cache dtype
// (--kv-cache-dtype) as vLLM does.
//
// Model dtype: vllm/config/model.py _get_and_verify_dtype and
// _resolve_auto_dtype — "auto" keeps a bfloat16 or float16 checkpoint's dtype
// and turns float32 (or no dtype) into the platform's preferred dtype,
// bfloat16 on CUDA GPUs of compute capability 8.0 and later.
// KV dtype: "auto" follows the model dtype unless the checkpoint's
// quantization config names a KV-cache algorithm
// (vllm/utils/torch_utils.py resolve_kv_cache_dtype_string); the element
// size is that of STR_DTYPE_TO_TORCH_DTYPE (every fp8 variant one byte).
func (e *vllmEstimator) dtypesVLLM() {
	m := e.model
	flag, st := e.r.str("--dtype")
	if st == argUnknown || m == nil {
		return
	}
	if st == argUnset {
		flag = "auto"
	}
	named := map[string]string{"half": "float16", "float16": "float16", "float": "float32", "float32": "float32", "bfloat16": "bfloat16"}
	switch flag = strings.ToLower(flag); {
	case flag != "auto":
		d, ok := named[flag]
		if !ok {
			e.est.assume("--dtype %q is not one of vLLM's choices", flag)
			return
		}
		e.modelDtype = d
		e.est.derive("model dtype %s (--dtype %s)", d, flag)
	default:
		switch d := named[strings.ToLower(m.Dtype)]; d {
		case "bfloat16", "float16":
			e.modelDtype = d
			e.est.derive("model dtype %s (the checkpoint's)", d)
		default:
			e.modelDtype = "bfloat16"
			e.est.derive("model dtype bfloat16: vLLM downcasts a float32 checkpoint (or one that states no dtype) to the platform's preferred dtype")
			if e.gpu == nil || e.gpu.ccMajor() < 8 {
				e.est.assume("bfloat16 assumed for %s: on GPUs before compute capability 8.0 vLLM uses float16", m.ID)
			}
		}
	}

	kv, st := e.r.str("--kv-cache-dtype")
	switch st {
	case argUnknown:
		return
	case argUnset:
		kv = "auto"
	}
	if kv == "auto" {
		if m.Quant != nil && strings.EqualFold(m.Quant.KVCacheQuantAlgo, "FP8") {
			kv = "fp8"
			e.est.derive("KV dtype fp8: --kv-cache-dtype auto and the checkpoint's kv_cache_quant_algo is FP8")
		} else {
			kv = e.modelDtype
			e.est.derive("KV dtype %s: --kv-cache-dtype auto follows the model dtype", kv)
		}
	}
	switch kv {
	case "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla", "int8_per_token_head", "fp8_per_token_head":
		e.kvDtype = kv
		e.est.KVDtype = kv
	case "float32":
		e.kvDtype, e.est.KVDtype = kv, kv
	default:
		e.est.notSized("--kv-cache-dtype %s: kvlint does not model this cache layout (packed 4-bit or TurboQuant pages), so the cache is not sized", kv)
	}
}

// vllmKVElementBytes is the size of one cached value.
func vllmKVElementBytes(dtype string) int64 {
	switch dtype {
	case "float32":
		return 4
	case "bfloat16", "float16":
		return 2
	}
	return 1
}

// cellVLLM computes the bytes one token takes in one attention layer of one
// worker (the page size divided by the block size).
func (e *vllmEstimator) cellVLLM() {
	m := e.model
	if m == nil || m.Unsupported != "" || !e.parallelKnown || e.kvDtype == "" || e.dcp*e.pcp > 1 {
		if m != nil && m.Unsupported != "" {
			e.est.notSized("%s: %s, so the cache is not sized", m.ID, m.Unsupported)
		}
		return
	}
	if m.Layers <= 0 {
		e.est.assume("%s states no layer count", m.ID)
		return
	}
	hybSWA, hybFull, hybrid := m.hybridLayerCounts()
	hybrid = hybrid && hybSWA > 0 && hybFull > 0 && m.SlidingWindow > 0
	chunked := false
	if hybrid {
		switch e.hybridManager() {
		case hybridUnknown:
			return
		case hybridOff:
			hybrid = false
		}
	} else if m.hasArch("Llama4ForConditionalGeneration") || m.hasArch("Llama4ForCausalLM") {
		switch e.llama4Chunked(m) {
		case hybridUnknown:
			return
		case hybridOn:
			chunked = true
		}
	} else if w := int64(m.SlidingWindow); w > 0 && e.ctxKnown && w < e.ctx {
		e.est.assume("the config's sliding_window %d is below max_model_len: kvlint sizes every layer in full, as vLLM does for configs whose use_sliding_window is false; a model that really slides on every layer needs fewer blocks per request", w)
	}
	if spec, st := e.r.str("--speculative-config"); st == argSet && spec != "" {
		e.est.assume("speculative decoding: the draft model's KV cache and weights are not counted, so the real cache is smaller")
	}
	kv := vllmKVElementBytes(e.kvDtype)
	var per int64
	switch {
	case m.isMLA() && m.KVLoraRank > 0:
		if m.isDSA() {
			e.est.notSized("%s keeps a sparse-attention indexer cache beside its MLA cache in vLLM, which kvlint does not model, so the cache is not sized", m.ID)
			return
		}
		latent := int64(m.KVLoraRank + m.QKRopeHeadDim)
		per = latent * kv
		step := fmt.Sprintf("MLA page per token = (kv_lora_rank %d + qk_rope_head_dim %d) × %d B = %d B per layer (MLAAttentionSpec: one latent, not split over TP)", m.KVLoraRank, m.QKRopeHeadDim, kv, per)
		if e.kvDtype == "fp8_ds_mla" {
			per = 656
			step = "MLA page per token = 656 B per layer (fp8_ds_mla layout, MLAAttentionSpec.real_page_size_bytes)"
		}
		e.est.derive("%s", step)
	default:
		n := kvHeadsPerRank(m.KVHeads, e.tp)
		hd, vhd := int64(m.headDim()), int64(m.vHeadDim())
		per = n * (hd + vhd) * kv
		e.est.derive("page per token = max(1, %d KV heads // tp %d) = %d × (head_size %d + head_size_v %d) × %d B = %d B per layer (FullAttentionSpec: 2 × block_size × num_kv_heads × head_size × dtype per page)", m.KVHeads, e.tp, n, hd, vhd, kv, per)
		if strings.HasSuffix(e.kvDtype, "_per_token_head") {
			// AttentionSpec.page_size_bytes budgets a float32 scale per
			// token and head for K and for V.
			per += 2 * n * 4
			e.est.derive("%s: + 2 × %d heads × 4 B of scales = %d B per layer", e.kvDtype, n, per)
		}
	}
	if per <= 0 {
		e.est.assume("the config's attention shapes give an empty KV page")
		return
	}
	if hybrid || chunked {
		if m.isMLA() {
			e.est.notSized("%s: sliding-window MLA layers are grouped differently by vLLM, which kvlint does not model, so the cache is not sized", m.ID)
			return
		}
		var h *vllmHybrid
		ok := false
		if chunked {
			h, ok = e.chunkedGroups(m)
		} else {
			h, ok = e.hybridGroups(m, hybSWA, hybFull)
		}
		if !ok {
			return
		}
		e.hyb = h
		e.perLayer, e.cellKnown = per, true
		e.split = []int{m.Layers}
		// The cell of a full-length request is known once max_model_len
		// is final (poolHybridVLLM).
		return
	}
	e.perLayer, e.cellKnown = per, true
	e.split = vllmPPSplit(m.Layers, e.pp)
	most := 0
	for _, l := range e.split {
		most = max(most, l)
	}
	if len(e.split) > 1 {
		e.est.derive("pipeline stages hold %v layers (get_pp_indices)", e.split)
	}
	e.est.CellBytesPerToken = ptr(per * int64(most))
	e.est.derive("KV per token = %d B × %d layers = %s B per GPU", per, most, Thousands(per*int64(most)))
}

// weightsVLLM computes the weights each GPU of each pipeline stage holds,
// with vLLM's layer split, less --cpu-offload-gb (GiB of weights per GPU kept
// in CPU memory, UVAOffloadConfig.cpu_offload_gb).
func (e *vllmEstimator) weightsVLLM() {
	m := e.model
	if m == nil || m.Unsupported != "" || !e.parallelKnown || e.modelDtype == "" {
		return
	}
	quant := m.Quant
	if q, st := e.r.str("--quantization"); st == argSet && q != "" && q != "None" {
		quant = e.onlineQuant(m, strings.ToLower(q))
	} else if st == argUnknown {
		return
	}
	split := vllmPPSplit(m.Layers, e.pp)
	stages, ok := e.est.weightsPerStage(m, weightInput{TP: e.tp, PP: e.pp, AttnTP: e.tp, DtypeBytes: dtypeBytes(e.modelDtype), Quant: quant, Split: split})
	if !ok {
		return
	}
	switch gb, st := e.r.float("--cpu-offload-gb"); {
	case st == argUnknown:
		return
	case st == argSet && gb > 0:
		off := int64(gb * (1 << 30))
		for i := range stages {
			stages[i] = max(0, stages[i]-off)
		}
		e.est.derive("--cpu-offload-gb %g: %s B of weights per GPU stay in CPU memory", gb, Thousands(off))
	}
	e.weights, e.weightsKnown = stages, true
	e.est.WeightsBytesPerGPU = ptr(maxOf(stages))
}
