package capacity

// Architecture lists copied from SGLang's model config, so kvlint classifies
// a model exactly as the engine does. Source for every list: sgl-project/sglang
// main as mirrored at modal-projects/sglang 8905cbd4,
// python/sglang/srt/configs/model_config.py.

// mlaArchs are the architectures _derive_model_shapes (L763-925) gives
// AttentionArch.MLA: their KV cell is the compressed latent, not K and V.
var mlaArchs = []string{
	"DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM",
	"DeepseekV3ForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
	"GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "LongcatFlashForCausalLM",
	"LongcatFlashForCausalLMNextN", "DotsVLMForCausalLM", "MistralLarge3ForCausalLM",
	"MistralLarge3ForCausalLMEagle", "KimiK25ForConditionalGeneration",
	"Eagle3DeepseekV2ForCausalLM", "MiniCPM3ForCausalLM", "DeepseekVL2ForCausalLM",
	"KimiVLForConditionalGeneration", "BailingMoeV2_5ForCausalLM", "SarvamMLAForCausalLM",
}

// isMLA mirrors the MLA branch of _derive_model_shapes; Pixtral counts only
// when its text config has kv_lora_rank.
func (m *Model) isMLA() bool {
	if m.hasArch(mlaArchs...) {
		return true
	}
	return m.hasArch("PixtralForConditionalGeneration") && m.KVLoraRank > 0
}

// dsaArchs are is_deepseek_dsa's architectures (L105-121): with index_topk in
// the config the MLA cell also holds the sparse-attention indexer keys.
var dsaArchs = []string{
	"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN",
	"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
	"GlmMoeDsaForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
}

// isDSA mirrors is_deepseek_dsa: architectures[0] in the list and index_topk set.
func (m *Model) isDSA() bool {
	if m.IndexTopK == 0 {
		return false
	}
	a := m.arch0()
	for _, n := range dsaArchs {
		if a == n {
			return true
		}
	}
	return false
}

// deepseekFamilyArchs is overrides.py _DEEPSEEK_FAMILY_ARCHS (L1317-1328),
// the architectures whose DSA KV dtype default and SM100 MLA backend default
// apply (_deepseek_family_overrides is registered for the same list, L323-333).
var deepseekFamilyArchs = []string{
	"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration",
	"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
	"LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
}

func (m *Model) isDeepseekFamily() bool {
	a := m.arch0()
	for _, n := range deepseekFamilyArchs {
		if a == n {
			return true
		}
	}
	return false
}

// hybridSWAArchs is is_hybrid_swa_model's allowlist (L1903-1941).
var hybridSWAArchs = []string{
	"Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
	"DeepseekV4ForCausalLMDSpark", "GptOssForCausalLM", "MiMoV2ForCausalLM",
	"MiMoV2FlashForCausalLM", "MiMoV2MTP", "Step3p5ForCausalLM", "Step3p5MTP",
	"Step3p7ForConditionalGeneration", "Gemma4ForCausalLM", "Gemma4ForConditionalGeneration",
	"Gemma4UnifiedForConditionalGeneration", "LagunaForCausalLM", "MellumForCausalLM",
	"InklingForConditionalGeneration", "InklingForConditionalGenerationMTP",
	"UnlimitedOCRForCausalLM",
}

// isHybridSWAModel mirrors is_hybrid_swa_model: the allowlist (Laguna only
// with a sliding window), or a config that opts in with is_hybrid_swa.
// Gemma 2 and Gemma 3 are NOT in the list: SGLang forces
// --disable-hybrid-swa-memory for them (arg_groups/overrides.py
// _gemma2_gemma3_overrides L551-564), so their pool holds every layer in full.
func (m *Model) isHybridSWAModel() bool {
	if m.hasArch(hybridSWAArchs...) {
		if m.hasArch("LagunaForCausalLM") && m.SlidingWindow == 0 {
			return false
		}
		return true
	}
	return m.HybridSWAOptIn
}

// hybridLayerCounts mirrors get_hybrid_layer_ids (L1944-2055) for the
// architectures kvlint models: Llama 4 makes every fourth layer full, the
// others read layer_types or hybrid_layer_pattern. ok is false when the
// config does not say which layers slide.
func (m *Model) hybridLayerCounts() (swa, full int, ok bool) {
	if m.hasArch("Llama4ForConditionalGeneration") {
		full = m.Layers / 4
		return m.Layers - full, full, true
	}
	if m.hasArch("UnlimitedOCRForCausalLM") {
		return m.Layers, 0, true
	}
	if m.SWALayers+m.FullLayers > 0 {
		return m.SWALayers, m.FullLayers, true
	}
	return 0, 0, false
}

// hybridSWACompressArchs are the architectures whose sliding-window pools are
// compressed (is_hybrid_swa_compress, L696-704).
var hybridSWACompressArchs = []string{
	"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM", "MiMoV2MTP", "Gemma4ForCausalLM",
	"Gemma4ForConditionalGeneration", "InklingForConditionalGeneration",
	"InklingForConditionalGenerationMTP", "Gemma4UnifiedForConditionalGeneration",
}

func isHybridSWACompress(m *Model) bool {
	a := m.arch0()
	for _, n := range hybridSWACompressArchs {
		if a == n {
			return true
		}
	}
	return false
}

// multimodalArchs is multimodal_model_archs (L1692-1762).
var multimodalArchs = []string{
	"CLIPModel", "Cohere2VisionForConditionalGeneration", "DeepseekVL2ForCausalLM",
	"Ernie4_5_VLMoeForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
	"Gemma3ForConditionalGeneration", "Gemma3nForConditionalGeneration",
	"Gemma4ForConditionalGeneration", "Gemma4UnifiedForConditionalGeneration",
	"Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration",
	"GlmOcrForConditionalGeneration", "GlmAsrForConditionalGeneration",
	"GlmImageForConditionalGeneration", "Grok1VForCausalLM", "Grok1AForCausalLM",
	"LlavaLlamaForCausalLM", "Llama4ForConditionalGeneration", "LlavaMistralForCausalLM",
	"LlavaQwenForCausalLM", "LlavaForConditionalGeneration", "LlavaVidForCausalLM",
	"Lfm2VlForConditionalGeneration", "LightOnOCRForConditionalGeneration",
	"MiMoV2ForCausalLM", "MiMoV2ASRForCausalLM", "MiniCPMO", "MiniCPMV",
	"Mistral3ForConditionalGeneration", "MultiModalityCausalLM",
	"MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
	"NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
	"PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration",
	"Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
	"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
	"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
	"InternS2PreviewForConditionalGeneration", "Qwen3ASRForConditionalGeneration",
	"Qwen3OmniMoeForConditionalGeneration", "KimiVLForConditionalGeneration",
	"LocateAnythingForConditionalGeneration", "InternVLChatModel",
	"InternS1ForConditionalGeneration", "InternS1ProForConditionalGeneration",
	"Phi4MMForCausalLM", "VoxtralForConditionalGeneration", "WhisperForConditionalGeneration",
	"Step3VLForConditionalGeneration", "POINTSV15ChatModel", "DotsVLMForCausalLM",
	"DotsOCRForCausalLM", "Sarashina2VisionForCausalLM", "NVILAForConditionalGeneration",
	"NVILALiteForConditionalGeneration", "DeepseekOCRForCausalLM", "UnlimitedOCRForCausalLM",
	"JetVLMForConditionalGeneration", "PaddleOCRVLForConditionalGeneration",
	"MiDashengLMModel", "StepVLForConditionalGeneration", "Step3p7ForConditionalGeneration",
	"KimiK25ForConditionalGeneration",
}

func (m *Model) isMultimodal() bool { return m.hasArch(multimodalArchs...) }

// multimodalPiecewiseCGArchs and multimodalBreakableCGArchs are the
// multimodal architectures allowed to keep a prefill CUDA graph
// (L1773-1786).
var (
	multimodalPiecewiseCGArchs = []string{
		"Cohere2VisionForConditionalGeneration", "KimiK25ForConditionalGeneration",
		"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
	}
	multimodalBreakableCGArchs = []string{"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}
	// piecewiseCGDisabledArchs is piecewise_cuda_graph_disabled_model_archs (L1764-1771).
	piecewiseCGDisabledArchs = []string{
		"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
		"Qwen3NextForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM",
	}
)
