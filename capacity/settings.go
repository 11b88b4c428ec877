package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// pageSize resolves --page-size the way SGLang's resolution passes do:
// 1 on CUDA by default (arg_groups/overrides.py _page_size_default
// L1917-1936), 64 for DeepSeek DSA models (_deepseek_family_overrides), and
// the page sizes attention backends force (_mla_backend_page_constraints
// L1682-1745, _fa4_page_constraint L1837-1857) — including the backends SGLang
// picks by default on SM100 (Blackwell): trtllm_mla for the DeepSeek family
// (_deepseek_family_overrides L404-412) and trtllm_mha for other models
// without speculative decoding (server_args.py _get_default_attn_backend
// L4847-4916). A pinned release before main's SM100 defaults gets its own
// (sglangSM100Default).
func (e *estimator) pageSize() {
	v, st := e.r.int("--page-size")
	switch st {
	case argUnknown:
		e.est.PageSize = 0
		e.est.assume("the page size is unknown, so page alignment is not applied")
		return
	case argSet:
		if v < 1 || v > 1<<20 {
			e.est.assume("--page-size %d is not a valid page size", v)
			return
		}
	}
	page := int(v)
	how := "--page-size"
	explicit := st == argSet
	if !explicit {
		page, how = 1, "SGLang's default on CUDA"
	}
	backend, _ := e.r.str("--attention-backend")
	decodeBackend, _ := e.r.str("--decode-attention-backend")
	prefillBackend, _ := e.r.str("--prefill-attention-backend")
	noBackend := backend == "" && decodeBackend == "" && prefillBackend == ""
	m, g := e.model, e.gpu
	mla := m != nil && m.isMLA()
	if !explicit && m != nil && m.isDeepseekFamily() && m.isDSA() && (g == nil || g.isCUDA()) {
		page, how = 64, "SGLang sets 64 for DeepSeek DSA models"
	}
	releaseBackend, releaseWhy, byRelease := "", "", false
	if noBackend && g != nil && g.isSM100() && m != nil {
		releaseBackend, releaseWhy, byRelease = sglangSM100Default(e.s.Release, m)
	}
	if noBackend && g != nil && g.isSM100() && m != nil && sglangBeforeTRTLLM(e.s.Release) {
		e.est.assume("SGLang v%s has no TensorRT-LLM attention backends (from v%s on), so on %s it keeps the default page size", e.s.Release.Version, sglangTRTLLMRelease, g.Name)
	} else if byRelease {
		// A pinned release before main's SM100 defaults: its own default
		// (sglang_release.go sglangSM100Default).
		backend = releaseBackend
		if backend == "" {
			e.est.derive("%s, so on %s the page size stays the default", releaseWhy, g.Name)
		} else {
			e.est.derive("attention backend %s (%s)", backend, releaseWhy)
		}
	} else if noBackend && g != nil && g.isSM100() && m != nil {
		spec, _ := e.r.str("--speculative-algorithm")
		switch {
		case m.isDeepseekFamily() && !m.isDSA():
			backend = "trtllm_mla"
		case !mla && spec == "":
			backend = "trtllm_mha"
		}
	}
	if noBackend && g != nil && g.isCUDA() && g.ccMajor() == 12 && m != nil && sglangSM120MHARaises(e.s.Release, m) {
		if spec, _ := e.r.str("--speculative-algorithm"); spec == "" {
			e.est.derive("SGLang v%s picks trtllm_mha on %s (compute capability %s) and then raises ValueError \"TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)\": pass --attention-backend (fixed after v0.5.6.post2 by sglang#14842)", e.s.Release.Version, g.Name, g.ComputeCapability)
		}
	}
	has := func(name string) bool { return backend == name || decodeBackend == name || prefillBackend == name }
	snap := func(to int, allowed []int, why string) {
		for _, a := range allowed {
			if page == a {
				return
			}
		}
		page, how = to, why
	}
	switch {
	case backend == "flashmla" || decodeBackend == "flashmla":
		snap(64, nil, "FlashMLA supports only 64")
	case backend == "cutlass_mla" || decodeBackend == "cutlass_mla":
		snap(128, nil, "Cutlass MLA supports only 128")
	}
	if backend == "trtllm_mla" || decodeBackend == "trtllm_mla" {
		snap(64, []int{32, 64}, "TensorRT-LLM MLA supports 32 or 64")
	}
	if backend == "tokenspeed_mla" || decodeBackend == "tokenspeed_mla" {
		snap(64, []int{32, 64}, "tokenspeed_mla supports 32 or 64")
	}
	if has("cutedsl_mla") {
		snap(64, []int{32, 64}, "CuteDSL MLA supports 32 or 64")
	}
	if has("trtllm_mha") {
		snap(64, []int{16, 32, 64}, "TensorRT-LLM MHA (SGLang's default attention backend on SM100) supports 16, 32 or 64")
	}
	if has("fa4") && !mla && g != nil && g.isSM100() {
		page, how = 128, "FA4 on SM100 supports only 128 for non-MLA models"
	}
	e.page, e.pageKnown = page, true
	e.est.PageSize = page
	if g == nil && !explicit {
		e.est.assume("page size 1 assumed (the CUDA default); on Blackwell GPUs SGLang's default attention backends use 64")
	}
	e.est.derive("page size %d (%s)", page, how)
}

// dtypes resolves the model dtype (--dtype) and the KV pool dtype
// (--kv-cache-dtype).
func (e *estimator) dtypes() {
	dtypeFlag, st := e.r.str("--dtype")
	if st == argUnknown {
		return
	}
	if st == argUnset {
		dtypeFlag = "auto"
	}
	m := e.model
	if m == nil {
		return
	}
	if m.Dtype == "" && m.Confidence == "inferred" && strings.EqualFold(dtypeFlag, "auto") {
		// The source is not a config.json, so "no dtype" says nothing about
		// the checkpoint (SGLang would read a missing dtype as float32).
		mm := *m
		mm.Dtype = "bfloat16"
		m = &mm
		e.est.assume("the checkpoint dtype of %s is not stated by kvlint's source: bfloat16 assumed", m.ID)
	}
	dtype, how, ok := resolveModelDtype(m, strings.ToLower(dtypeFlag))
	if !ok {
		e.est.assume("--dtype %q is not one of SGLang's choices", dtypeFlag)
		return
	}
	e.modelDtype = dtype
	e.est.derive("model dtype %s (%s)", dtype, how)

	kvFlag, st := e.r.str("--kv-cache-dtype")
	if st == argUnknown {
		return
	}
	if st == argUnset {
		kvFlag = "auto"
	}
	kvFlag = strings.ToLower(kvFlag)
	// DeepSeek DSA: auto becomes fp8_e4m3 on SM100+ and bfloat16 below
	// (arg_groups/overrides.py _dsa_kv_cache_dtype_default L1204-1248).
	if kvFlag == "auto" && m.isDSA() && m.isDeepseekFamily() {
		switch {
		case e.gpu == nil || !e.gpu.isCUDA() || e.gpu.ccMajor() == 0:
			kvFlag = "bfloat16"
			e.est.assume("DeepSeek DSA KV dtype: bfloat16 assumed (SGLang picks fp8_e4m3 on compute capability 10+ and bfloat16 below; the GPU's is unknown)")
		case e.gpu.ccMajor() >= 10:
			kvFlag = "fp8_e4m3"
			e.est.derive("KV dtype fp8_e4m3: SGLang's DSA default on compute capability %s", e.gpu.ComputeCapability)
		default:
			kvFlag = "bfloat16"
			e.est.derive("KV dtype bfloat16: SGLang's DSA default on compute capability %s", e.gpu.ComputeCapability)
		}
	}
	// mem_cache/kv_cache_dtype.py configure_kv_cache_dtype L22-80.
	switch kvFlag {
	case "auto":
		if m.Quant != nil && strings.EqualFold(m.Quant.KVCacheQuantAlgo, "FP8") {
			e.kvDtype = "fp8_e4m3"
			e.est.derive("KV dtype fp8_e4m3: --kv-cache-dtype auto and the checkpoint's kv_cache_quant_algo is FP8")
		} else {
			e.kvDtype = dtype
			e.est.derive("KV dtype %s: --kv-cache-dtype auto follows the model dtype", dtype)
		}
	case "fp8_e4m3", "fp8_e5m2", "mxfp8":
		e.kvDtype = kvFlag
	case "bf16", "bfloat16":
		e.kvDtype = "bfloat16"
	case "nvfp4", "fp4_mx_block16":
		e.kvDtype = "fp4_e2m1"
		e.est.derive("KV dtype float4_e2m1fn_x2 (--kv-cache-dtype %s)", kvFlag)
	case "fp4_e2m1":
		e.est.StartupError = "--kv-cache-dtype fp4_e2m1 is deprecated and SGLang raises ValueError: use fp4_mx_block16"
		return
	default:
		e.est.assume("--kv-cache-dtype %q is not one of SGLang's choices", kvFlag)
		return
	}
	e.est.KVDtype = e.kvDtype
}

// resolveModelDtype is configs/model_config.py _get_and_verify_dtype
// (L1600-1661) on the text config: --dtype auto keeps a bf16/fp16 checkpoint's
// dtype and turns float32 (or no dtype at all) into float16, or bfloat16 for
// Gemma. gpt-oss MXFP4 checkpoints are forced to bfloat16
// (arg_groups/overrides.py _gpt_oss_overrides L606-615).
func resolveModelDtype(m *Model, flag string) (dtype, how string, ok bool) {
	if flag == "auto" && m.hasArch("GptOssForCausalLM") && m.Quant != nil && m.Quant.Method == "mxfp4" {
		return "bfloat16", "SGLang runs MXFP4 gpt-oss in bfloat16", true
	}
	named := map[string]string{"half": "float16", "float16": "float16", "float": "float32", "float32": "float32", "bfloat16": "bfloat16"}
	if flag != "auto" {
		d, known := named[flag]
		return d, "--dtype " + flag, known
	}
	cfg := named[strings.ToLower(m.Dtype)]
	switch cfg {
	case "bfloat16", "float16":
		return cfg, "the checkpoint's " + m.Dtype, true
	}
	stated := "the checkpoint states no dtype, which SGLang reads as float32"
	if m.Dtype != "" {
		stated = "the checkpoint's " + m.Dtype
	}
	if strings.HasPrefix(m.ModelType, "gemma") {
		return "bfloat16", stated + "; --dtype auto uses bfloat16 for Gemma", true
	}
	return "float16", stated + "; --dtype auto uses float16", true
}

// cell computes the per-token cell of each pipeline stage.
func (e *estimator) cell() {
	m := e.model
	if m == nil || m.Unsupported != "" || !e.parallelKnown || e.kvDtype == "" {
		return
	}
	disable, st := e.r.bool("--disable-hybrid-swa-memory")
	if st == argUnknown {
		return
	}
	ratio, st := e.r.float("--swa-full-tokens-ratio")
	switch st {
	case argUnknown:
		return
	case argUnset:
		ratio = 0.8
	}
	if ratio <= 0 || ratio > 1 {
		e.est.StartupError = fmt.Sprintf("--swa-full-tokens-ratio %g must be in (0, 1]", ratio)
		return
	}
	e.swaRatio = ratio
	e.hybridSWA = m.isHybridSWAModel() && !disable
	if m.hasArch("Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Gemma3nForCausalLM", "Gemma3nForConditionalGeneration") && m.SlidingWindow > 0 {
		e.est.derive("%s: SGLang disables hybrid SWA memory for Gemma 2/3 (arg_groups/overrides.py _gemma2_gemma3_overrides), so every layer keeps full KV", m.arch0())
	}
	if m.isHybridSWAModel() && disable {
		e.est.derive("--disable-hybrid-swa-memory: one full pool for every layer")
	}
	e.speculative()
	e.stageLayer = ppLayerSplit(m.Layers, e.pp)
	worst := -1.0
	for r, layers := range e.stageLayer {
		c, err := computeCell(m, cellInput{KVDtype: e.kvDtype, AttnTP: e.attnTP, Layers: layers, HybridSWA: e.hybridSWA, SWARatio: ratio})
		if err != nil {
			e.est.assume("cannot compute the cell size of %s: %v", m.ID, err)
			e.cells = nil
			return
		}
		if e.draftFrac > 0 && !e.hybridSWA {
			// pool_configurator.py DefaultPoolConfigurator.__init__: the
			// draft's KV layers share the pool, so each token's cell grows by
			// draft layers / target layers, truncated by int().
			before := c.Bytes
			c.Bytes = math.Floor(c.Bytes * (1 + e.draftFrac))
			c.Steps = append(c.Steps, fmt.Sprintf("cell with the draft's KV layers = int(%s × (1 + %.4g)) = %s B/token", formatBytesFloat(before), e.draftFrac, formatBytesFloat(c.Bytes)))
		}
		e.cells = append(e.cells, c)
		if c.Bytes > worst {
			worst = c.Bytes
			if len(e.stageLayer) > 1 {
				e.est.derive("pipeline stage %d has %d of %d layers (get_pp_indices: the last %d stages get one more)", r, layers, m.Layers, m.Layers%e.pp)
			}
		}
	}
	var largest cell
	for _, c := range e.cells {
		if c.Bytes >= largest.Bytes {
			largest = c
		}
	}
	for _, s := range largest.Steps {
		e.est.derive("%s", s)
	}
	e.est.CellBytesPerToken = ptr(int64(largest.Bytes))
}

// speculative folds speculative decoding's draft into the pool
// (modal-projects/sglang@8905cbd4): pool_configurator.py
// DefaultPoolConfigurator.__init__ scales the cell by 1 + draft layers /
// target layers for EAGLE, EAGLE3 and STANDALONE (is_eagle() also covers
// FROZEN_KV_MTP; NEXTN is normalized to EAGLE by the speculative hook), and
// kv_cache_configurator.py _profile_available_bytes measures the free memory
// after the draft weights are loaded. For DeepSeek-style MTP (NEXTN, or
// EAGLE with no separate draft) the draft is the model's own
// num_nextn_predict_layers (arg_groups/speculative_hook.py sets the draft
// path to the model path). A separate draft counts
// spec_aux_hidden_state.py _resolve_eagle_aux_hidden_state's layers: the
// draft config's num_nextn_predict_layers, else its num_hidden_layers; it is
// resolved like the served model (.kvlint.yaml models:, a config.json
// directory beside the launching file, the catalog and its variant rules).
// A draft kvlint cannot resolve is reported, not counted.
func (e *estimator) speculative() {
	spec, st := e.r.str("--speculative-algorithm")
	if st != argSet || spec == "" {
		return
	}
	m := e.model
	alg := strings.ToUpper(spec)
	draft, dst := e.r.str("--speculative-draft-model-path")
	selfDraft := dst == argUnset || draft == "" || draft == m.ID
	if (alg == "NEXTN" || alg == "EAGLE" || alg == "MTP") && selfDraft && m.NextNLayers > 0 && m.Layers > 0 {
		e.draftFrac, e.draftSelf = float64(m.NextNLayers)/float64(m.Layers), true
		e.est.derive("speculative decoding (%s) drafts with the model's %d MTP layer(s): the cell and the weights grow by %d/%d", spec, m.NextNLayers, m.NextNLayers, m.Layers)
		return
	}
	eagleFamily := alg == "EAGLE" || alg == "EAGLE3" || alg == "STANDALONE" || alg == "FROZEN_KV_MTP" || alg == "NEXTN"
	if eagleFamily && dst == argSet && !selfDraft && m.Layers > 0 && !e.hybridSWA {
		if d := e.resolveDraft(strings.TrimSpace(draft)); d != nil {
			layers, what := d.NextNLayers, "num_nextn_predict_layers"
			if layers <= 0 {
				layers, what = d.Layers, "num_hidden_layers"
			}
			if layers > 0 {
				e.draftFrac, e.draftModel = float64(layers)/float64(m.Layers), d
				e.est.derive("speculative decoding (%s) with draft %s: its %s %d adds KV layers to the pool, so the cell grows by %d/%d (pool_configurator.py DefaultPoolConfigurator, which assumes the draft's per-layer KV size is the target's)", spec, d.ID, what, layers, layers, m.Layers)
				return
			}
		}
	}
	e.est.assume("speculative decoding (%s): the draft model's KV cache and weights are not counted, so the real pool is smaller; declare the draft's config.json under models: in .kvlint.yaml to count them", spec)
}

// resolveDraft finds the configuration of a separate draft model
// (findDraft) once per server, as resolveModel finds the served one: the
// draft depends on its name, the server's file and the options alone, so
// an estimate With recomputes takes a draft of the same name, and the
// notes finding it wrote, from the estimate that first resolved it.
func (e *estimator) resolveDraft(name string) *Model {
	in := e.est.inputs
	if in == nil || in.model == nil {
		return e.findDraft(name)
	}
	if d := in.model.draft; d != nil && d.name == name {
		for _, a := range d.assumptions {
			e.est.assume("%s", a)
		}
		return d.model
	}
	a := len(e.est.Assumptions)
	m := e.findDraft(name)
	if e.ownsModel && in.model.draft == nil {
		// Only the estimate that made the resolution adds to it: the
		// estimates With makes share it and may run at once.
		in.model.draft = &draftResolution{name: name, model: m, assumptions: slices.Clone(e.est.Assumptions[a:])}
	}
	return m
}

// findDraft finds the configuration of a separate draft model by the
// served model's routes, without the hub cache: a .kvlint.yaml models:
// entry (mappedModel), a config.json directory beside the launching file
// (localModelDir), or a catalog id, alias or variant (Catalog.Identify).
// It returns nil when none applies.
func (e *estimator) findDraft(name string) *Model {
	if name == "" {
		return nil
	}
	if mapped, ok := e.opt.ModelConfigs[name]; ok {
		m, _, via, err := e.mappedModel(mapped)
		if err != nil {
			e.est.assume("the config declared for draft %q in .kvlint.yaml cannot be used: %v", name, err)
			return nil
		}
		if via == viaVariant {
			e.est.assume("draft %q is read as %s, as .kvlint.yaml declares; %q is not in kvlint's catalog and is resolved by the variant rules (inferred, not read from its own config.json)", name, mapped, mapped)
		}
		return m
	}
	if m, dir, found, err := e.localModelDir(name); found {
		if err != nil {
			e.est.assume("the draft's config.json at %s cannot be used: %v", dir, err)
			return nil
		}
		return m
	}
	if m, inferred, ok := e.cat.Identify(name); ok {
		if inferred {
			e.est.assume("draft %q is not in kvlint's catalog; it is resolved by the variant rules (inferred, not read from its own config.json)", name)
		}
		return m
	}
	return nil
}
