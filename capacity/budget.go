package capacity

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// memFractionStatic takes --mem-fraction-static or computes SGLang's default
// (server_args.py _handle_gpu_memory_settings L3867-4062).
func (e *estimator) memFractionStatic() {
	if v, st := e.r.float("--mem-fraction-static"); st != argUnset {
		if st == argSet {
			if v <= 0 || v > 1 {
				e.est.assume("--mem-fraction-static %g is outside (0, 1]", v)
				return
			}
			e.memFraction, e.memFractionKnown = v, true
			e.est.MemFractionStatic = ptr(v)
			e.est.derive("mem_fraction_static %g (--mem-fraction-static)", v)
		}
		return
	}
	frac, steps, why := e.defaultFractionAt(e.s.Release.Version, true)
	if why != "" {
		e.est.assume("the default --mem-fraction-static %s, so it is not computed", why)
		return
	}
	for _, s := range steps {
		e.est.derive("%s", s)
	}
	e.memFraction, e.memFractionKnown = frac, true
	e.est.MemFractionStatic = ptr(frac)
	if r := e.s.Release; r.Upgrade && r.From != "" {
		// The fraction the launch got on the release it ran, for KV406:
		// a move that changes the default changes the pool.
		if from, _, why := e.defaultFractionAt(r.From, false); why == "" {
			e.est.MemFractionStaticFrom = ptr(from)
		}
	}
}

// defaultFractionAt computes SGLang's default mem_fraction_static with the
// rule of the release version ("" the newest, main's); why says what keeps
// it unknown. note adds what is assumed to the estimate (not for a release
// the server only ran before an --engine-release move).
func (e *estimator) defaultFractionAt(version string, note bool) (float64, []string, string) {
	rule := sglangFracRule(version)
	if rule != fracMain {
		if !e.parallelKnown {
			return 0, nil, "depends on the parallelism, which is unknown"
		}
		li := legacyFracInput{Version: version, TP: e.tp, PP: e.pp, CUDA: e.gpu == nil || e.gpu.isCUDA()}
		if e.gpu != nil {
			li.GPUMiB = e.gpu.MemoryMiB
		}
		spec, st := e.r.str("--speculative-algorithm")
		dpAttn, st2 := e.r.bool("--enable-dp-attention")
		if st == argUnknown || st2 == argUnknown {
			return 0, nil, "depends on a value kvlint does not know"
		}
		li.Spec, li.DPAttn = spec, dpAttn
		if m := e.model; m != nil {
			li.ModelKnown = true
			li.Multimodal = m.isMultimodal()
			li.Vision = memFractionInput{VisionLayers: m.VisionLayers, VisionHidden: m.VisionHidden, VisionConfigFound: m.HasVisionConfig}
		}
		frac, steps, why := legacyMemFraction(rule, li)
		if note && why == "" && li.Multimodal && !li.Vision.VisionConfigFound && deploy.CompareVersions(version, sglangVLMFormula) >= 0 {
			e.est.assume("%s is multimodal, but kvlint does not know its vision tower: SGLang lowers the default mem_fraction_static further for it", e.model.ID)
		}
		return frac, steps, why
	}
	in, ok := e.memFractionInputs()
	if !ok {
		return 0, nil, "depends on a value kvlint does not know"
	}
	frac, steps := defaultMemFraction(in)
	if note && in.VisionAdjustment && !in.VisionConfigFound {
		e.est.assume("%s is multimodal, but kvlint does not know its vision tower: SGLang lowers the default mem_fraction_static further for it", e.model.ID)
	}
	return frac, steps, ""
}

// memFractionInputs resolves every server argument the default depends on,
// as ServerArgs holds them when _handle_gpu_memory_settings runs (after
// _handle_cuda_graph_config, before _handle_data_parallelism divides the
// chunked prefill size).
func (e *estimator) memFractionInputs() (memFractionInput, bool) {
	ok := e.parallelKnown
	in := memFractionInput{TP: e.tp, PP: e.pp, DP: e.dp, DPAttention: e.dpAttention}
	if e.gpu != nil {
		in.GPUMiB = e.gpu.MemoryMiB
	} else {
		e.est.assume("GPU unknown: SGLang's defaults for an unknown GPU apply (mem_fraction_static 0.88, chunked prefill 4096, decode CUDA-graph max batch 160)")
	}
	m := e.model
	mla := m != nil && m.isMLA()
	in.MLA = mla

	mode, st := e.r.str("--disaggregation-mode")
	switch {
	case st == argUnknown:
		ok = false
	case st == argUnset || mode == "":
		mode = "null"
	}
	in.DisaggMode = mode

	defChunked, defMaxBS := memDefaults(in.GPUMiB, e.tp)
	chunked, st := e.r.int("--chunked-prefill-size")
	switch st {
	case argUnset:
		chunked = int64(defChunked)
	case argUnknown:
		ok = false
	}
	in.ChunkedPrefill = int(clamp(chunked, -1, 1<<30))
	maxPrefill, st := e.r.humanInt("--max-prefill-tokens")
	switch st {
	case argUnset:
		maxPrefill = 16384
	case argUnknown:
		ok = ok && (in.DisaggMode == "decode" || in.ChunkedPrefill > 0)
	}
	in.MaxPrefillTokens = maxPrefill
	if v, st := e.r.int("--max-running-requests"); st == argSet {
		in.MaxRunningReqs = max(v, 0)
	} else if st == argUnknown && in.DisaggMode == "decode" {
		ok = false
	}
	if v, st := e.r.int("--speculative-num-draft-tokens"); st == argSet {
		in.SpecDraftTokens = max(v, 0)
	}

	// CUDA-graph backends (server_args.py _parse_cuda_graph_config,
	// _apply_cuda_graph_compatibility, _apply_cuda_graph_disaggregation_roles
	// L3539-3660). Flags that name a phase's backend "lock" it against the
	// automatic rules.
	if v, st := e.r.str("--cuda-graph-config"); st != argUnset {
		e.est.assume("--cuda-graph-config %q is not read by kvlint: the default CUDA-graph settings are assumed", v)
	}
	disableAll, _ := e.r.bool("--disable-cuda-graph")
	disableDecode, _ := e.r.bool("--disable-decode-cuda-graph")
	disablePrefill, _ := e.r.bool("--disable-prefill-cuda-graph")
	decodeBackend, decodeLocked := e.r.str("--cuda-graph-backend-decode")
	prefillBackend, prefillLocked := e.r.str("--cuda-graph-backend-prefill")
	if decodeLocked == argUnknown || prefillLocked == argUnknown {
		ok = false
	}
	decodeOn := decodeBackend != "disabled" && !disableAll && !disableDecode
	if mode == "prefill" && decodeLocked == argUnset && !disableAll && !disableDecode {
		decodeOn = false
	}
	in.DecodeGraph = decodeOn
	prefillExplicit := prefillLocked == argSet || disableAll || disablePrefill
	prefillOn := false
	switch {
	case prefillLocked == argSet:
		prefillOn = prefillBackend != "disabled" && !disableAll && !disablePrefill
	case disableAll || disablePrefill:
		prefillOn = false
	default:
		prefillOn = e.defaultPrefillGraph(mla, mode)
	}
	if mode == "decode" && !prefillExplicit {
		prefillOn = false
	}
	in.PrefillGraph = prefillOn

	// Decode max batch size: --cuda-graph-bs-decode's largest, else
	// --cuda-graph-max-bs-decode, else the memory default.
	maxBS := defMaxBS
	if list, st := e.r.ints("--cuda-graph-bs-decode", "--cuda-graph-bs"); st == argSet {
		maxBS = 0
		for _, b := range list {
			maxBS = max(maxBS, b)
		}
	} else if st == argUnknown {
		ok = false
	} else if v, st := e.r.int("--cuda-graph-max-bs-decode", "--cuda-graph-max-bs"); st == argSet {
		maxBS = int(clamp(v, 0, 1<<20))
	} else if st == argUnknown {
		ok = false
	}
	in.DecodeMaxBS = maxBS

	// Prefill capture sizes: the list, else generated up to max_bs, which
	// defaults to chunked_prefill_size (2048 for MLA), capped by
	// --max-total-tokens, "llama-2" model paths and --context-length.
	if prefillOn {
		if list, st := e.r.ints("--cuda-graph-bs-prefill"); st == argSet {
			in.PrefillCaptures = len(list)
		} else if st == argUnknown {
			ok = false
		} else {
			pmax := int64(in.ChunkedPrefill)
			if mla {
				pmax = 2048
			}
			if v, st := e.r.int("--cuda-graph-max-bs-prefill"); st == argSet {
				pmax = v
			} else if st == argUnknown {
				ok = false
			} else {
				if e.maxTotalTokensSet {
					pmax = min(pmax, e.maxTotalTokens)
				}
				if strings.Contains(strings.ToLower(e.s.Model.Raw), "llama-2") {
					pmax = min(pmax, 4096)
				}
			}
			if e.contextFlag && e.est.ContextLength != nil {
				pmax = min(pmax, *e.est.ContextLength)
			}
			in.PrefillCaptures = len(prefillCaptureSizes(int(clamp(pmax, -1, 1<<30))))
		}
	}
	if v, _ := e.r.str("--moe-a2a-backend"); v == "deepep" {
		in.DeepEP = true
	}
	if m != nil && m.isMultimodal() {
		if langOnly, _ := e.r.bool("--language-only"); !langOnly {
			in.VisionAdjustment = true
			in.VisionConfigFound = m.HasVisionConfig
			in.VisionLayers, in.VisionHidden = m.VisionLayers, m.VisionHidden
		}
	}
	if m == nil {
		// MLA and multimodal models reserve differently; without the model
		// the default is a guess.
		ok = false
	}
	return in, ok
}

// defaultPrefillGraph says whether the default prefill CUDA graph survives
// SGLang's compatibility rules: breakable on CUDA (tc_piecewise for
// allowlisted multimodal models and on ROCm), each with its own list of
// incompatible settings (server_args.py _disable_breakable_cudagraph_if_incompatible
// L3730-3782, _disable_tc_piecewise_cudagraph_if_incompatible L3655-3728).
func (e *estimator) defaultPrefillGraph(mla bool, mode string) bool {
	m := e.model
	has := func(name string) bool { v, st := e.r.bool(name); return st == argSet && v }
	str := func(name string) string { v, _ := e.r.str(name); return v }
	lora := has("--enable-lora") || str("--lora-paths") != ""
	a2a := str("--moe-a2a-backend")
	moeA2A := a2a != "" && a2a != "none"
	dcp, _ := e.r.int("--dcp-size")
	multimodal := m != nil && m.isMultimodal()
	cuda := e.gpu == nil || e.gpu.isCUDA()
	piecewise := !cuda || (multimodal && m.hasArch(multimodalPiecewiseCGArchs...))
	if !piecewise {
		// Breakable.
		switch {
		case mla, m != nil && m.hasArch("DeepseekV4ForCausalLM"), e.attnCP > 1, dcp > 1, lora, moeA2A, e.dpAttention:
			return false
		case multimodal && !m.hasArch(multimodalBreakableCGArchs...):
			return false
		}
		return true
	}
	switch {
	case m != nil && m.hasArch(piecewiseCGDisabledArchs...), e.dpAttention, has("--enable-torch-compile"), e.pp > 1, !cuda,
		moeA2A, lora, has("--enable-deterministic-inference"), mode != "null", has("--enable-symm-mem"),
		has("--enable-eplb"), str("--expert-distribution-recorder-mode") != "", e.attnCP > 1, dcp > 1,
		has("--enable-hierarchical-cache"), str("--load-format") == "gguf", str("--quantization") == "gguf":
		return false
	case multimodal && !m.hasArch(multimodalPiecewiseCGArchs...):
		return false
	}
	if v, st := e.r.float("--cpu-offload-gb"); st == argSet && v > 0 {
		return false
	}
	return true
}

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// weightsPerGPU computes the bytes of weights each GPU of each pipeline stage
// holds.
func (e *estimator) weightsPerGPU() {
	m := e.model
	if m == nil || m.Unsupported != "" || !e.parallelKnown || e.modelDtype == "" {
		return
	}
	quant := m.Quant
	if q, st := e.r.str("--quantization"); st == argSet && q != "" {
		quant = e.onlineQuant(m, strings.ToLower(q))
	} else if st == argUnknown {
		return
	}
	w := weightInput{
		TP: e.tp, PP: e.pp, AttnTP: e.attnTP, DPAttention: e.dpAttention,
		DtypeBytes: dtypeBytes(e.modelDtype), Quant: quant,
	}
	if v, _ := e.r.bool("--enable-dp-lm-head"); v {
		w.DPLMHead = true
	}
	stages, ok := e.est.weightsPerStage(m, w)
	if !ok {
		return
	}
	e.weights, e.weightsKnown = stages, true
	heaviest := int64(0)
	for _, b := range stages {
		heaviest = max(heaviest, b)
	}
	e.est.WeightsBytesPerGPU = ptr(heaviest)
	e.draftWeightsPerGPU(w)
}

// draftWeightsPerGPU works out a separate draft model's weights per GPU: the
// draft worker shards it over the same TP ranks as the target, in its own
// checkpoint dtype and quantization (the target's dtype when it states none).
func (e *estimator) draftWeightsPerGPU(target weightInput) {
	d := e.draftModel
	if d == nil {
		return
	}
	w := target
	w.PP, w.Quant = 1, d.Quant
	if d.Dtype != "" && dtypeBytes(d.Dtype) > 0 {
		w.DtypeBytes = dtypeBytes(d.Dtype)
	}
	stages, steps, err := stageWeights(d, w)
	if err != nil {
		e.est.assume("the weights of draft %s are unknown (%v), so they are not counted: the real pool is smaller", d.ID, err)
		return
	}
	e.draftWeights, e.draftWeightsKnown = stages[0], true
	for _, s := range steps {
		e.est.derive("draft %s: %s", d.ID, s)
	}
}

// onlineQuant is the weight storage under --quantization. Online methods
// quantize a bf16 checkpoint's linear layers at load; for a checkpoint that
// is already quantized its own format is kept.
func (e *estimator) onlineQuant(m *Model, q string) *Quantization {
	if m.Quant != nil {
		e.est.assume("--quantization %s on a checkpoint already quantized with %s: the checkpoint's format is assumed for the weights", q, m.Quant.Method)
		return m.Quant
	}
	out := &Quantization{Method: q}
	setQuantStorage(out)
	if out.BitsPerWeight == 0 {
		e.est.assume("--quantization %s: kvlint does not know its storage size, so the weights are unknown", q)
	} else {
		e.est.derive("--quantization %s: linear layers stored at %g bits per weight", q, out.BitsPerWeight)
	}
	return out
}

func dtypeBytes(dtype string) float64 {
	if dtype == "float32" {
		return 4
	}
	return 2
}

// weightInput is how weights are laid out over GPUs.
type weightInput struct {
	TP, PP, AttnTP int
	DPAttention    bool
	DPLMHead       bool    // --enable-dp-lm-head
	DtypeBytes     float64 // bytes of an unquantized weight
	Quant          *Quantization
	// Split is the layers of each pipeline stage; nil means SGLang's
	// (ppLayerSplit).
	Split []int
}

// stageWeights splits the model's weights over the GPUs of each pipeline
// stage: transformer layers follow the stage's share of layers; the input
// embedding sits on the first stage and the lm_head on the last. Inside a
// stage, attention weights are split over the attention TP group (replicated
// across attention-DP ranks), the embedding likewise under DP attention
// (layers/vocab_parallel_embedding.py get_embedding_tp_kwargs L166-185), the
// lm_head over TP (over attention TP with --enable-dp-lm-head), and MLP and
// expert weights over all TP ranks — with expert parallelism the experts are
// spread over the same tp GPUs, so the per-GPU share is the same.
// weightsPerStage works out the weights per GPU of each
// pipeline stage and writes its steps into the derivation; when the
// weights are unknown it says what to declare instead and returns false.
// SGLang's and vLLM's estimators share it.
func (e *Estimate) weightsPerStage(m *Model, w weightInput) ([]int64, bool) {
	stages, steps, err := stageWeights(m, w)
	if err != nil {
		e.need("weights")
		e.assume("the weights of %s are unknown (%v): declare a local checkpoint directory whose model.safetensors.index.json gives total_size, or whose *.safetensors headers kvlint can sum", m.ID, err)
		return nil, false
	}
	for _, s := range steps {
		e.derive("%s", s)
	}
	return stages, true
}

func stageWeights(m *Model, w weightInput) ([]int64, []string, error) {
	if m.Params <= 0 {
		if m.WeightsBytes <= 0 {
			return nil, nil, fmt.Errorf("no parameter count or checkpoint size")
		}
		per := m.WeightsBytes / int64(w.TP*w.PP)
		out := make([]int64, w.PP)
		for i := range out {
			out[i] = per
		}
		return out, []string{fmt.Sprintf("weights per GPU = checkpoint %s B / (tp %d × pp %d) = %s B (replication of attention and embeddings is not modelled)",
			Thousands(m.WeightsBytes), w.TP, w.PP, Thousands(per))}, nil
	}
	if w.Quant != nil && w.Quant.BitsPerWeight <= 0 {
		return nil, nil, fmt.Errorf("the storage size of %s weights is unknown", w.Quant.Method)
	}
	embed := int64(m.VocabSize) * int64(m.HiddenSize)
	lmHead := embed
	if m.TieWordEmbeddings {
		lmHead = 0
	}
	layerParams := m.Params - embed - lmHead
	attn := min(m.AttentionParams, layerParams)
	experts := min(m.ExpertParams, layerParams-attn)
	other := layerParams - attn - experts
	if layerParams <= 0 {
		return nil, nil, fmt.Errorf("the parameter count is smaller than the embeddings")
	}
	q := w.Quant
	bytesOf := func(group string) float64 {
		if q == nil {
			return w.DtypeBytes
		}
		quantized := false
		switch q.Scope {
		case "linear":
			quantized = group == "attn" || group == "experts" || group == "other"
		case "mlp":
			quantized = group == "experts" || group == "other"
		case "experts":
			quantized = group == "experts"
		}
		if quantized {
			return q.BitsPerWeight / 8
		}
		return w.DtypeBytes
	}
	attnDiv, embedDiv, headDiv := w.TP, w.TP, w.TP
	if w.DPAttention {
		attnDiv, embedDiv = w.AttnTP, w.AttnTP
	}
	if w.DPLMHead {
		headDiv = w.AttnTP
	}
	split := w.Split
	if len(split) != w.PP {
		split = ppLayerSplit(m.Layers, w.PP)
	}
	out := make([]int64, w.PP)
	var steps []string
	for r, layers := range split {
		f := float64(layers) / float64(m.Layers)
		b := f*float64(attn)*bytesOf("attn")/float64(attnDiv) +
			f*float64(experts)*bytesOf("experts")/float64(w.TP) +
			f*float64(other)*bytesOf("other")/float64(w.TP)
		if r == 0 {
			b += float64(embed) * bytesOf("embed") / float64(embedDiv)
		}
		if r == w.PP-1 {
			b += float64(lmHead) * bytesOf("embed") / float64(headDiv)
		}
		out[r] = int64(b)
	}
	storage := fmt.Sprintf("%g B/param", w.DtypeBytes)
	if q != nil {
		storage = fmt.Sprintf("%s weights (%s) at %g bits, the rest at %g B/param", q.Scope, q.Method, q.BitsPerWeight, w.DtypeBytes)
	}
	split2 := fmt.Sprintf("tp %d", w.TP)
	if w.DPAttention {
		split2 = fmt.Sprintf("tp %d (attention and embeddings over attn_tp %d)", w.TP, w.AttnTP)
	}
	steps = append(steps, fmt.Sprintf("weights: %s params (attention %s, routed experts %s, embeddings %s + lm_head %s), %s, split over %s × pp %d → %s B per GPU (heaviest stage)",
		humanCount(m.Params), humanCount(attn), humanCount(experts), humanCount(embed), humanCount(lmHead), storage, split2, w.PP, Thousands(maxOf(out))))
	return out, steps, nil
}

func maxOf(v []int64) int64 {
	var m int64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// humanCount renders a parameter count as 8.03B / 671.0B / 1.03T.
func humanCount(n int64) string {
	switch {
	case n >= 1e12:
		return fmt.Sprintf("%.2fT", float64(n)/1e12)
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return Thousands(n)
}
