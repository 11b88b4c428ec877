package capacity

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/limits"
)

// Limits on config values: anything larger is not a real model and would only
// overflow the arithmetic.
const (
	maxLayers = 1 << 16
	maxHeads  = 1 << 16
	maxDim    = 1 << 20
)

// ReadModelConfig reads a Hugging Face config.json (path is the file, or a
// directory holding it) the way SGLang's ModelConfig reads it: the text
// sub-config of multimodal models, the KV-head count, head dimensions, MLA
// and DSA fields, sliding-window layers, the context-length keys and
// rope_scaling, dtype, quantization_config, and hf_quant_config.json beside
// it. config.json has no parameter count: when the directory also holds
// model.safetensors.index.json, its metadata.total_size becomes WeightsBytes;
// otherwise the headers of its *.safetensors files are summed
// (readSafetensorsHeaders); with neither, the parameters are counted from
// the config's shapes for the layouts countParams knows
// (modelconfig_params.go), and stay unknown for the others. Errors are
// *diag.Diagnostic naming the file (with line:col for JSON syntax errors
// and bad values).
func ReadModelConfig(path string) (*Model, error) {
	return ReadModelConfigIn(confined.Unconfined, path)
}

// ReadModelConfigIn is ReadModelConfig through cfs: a models: path of a
// .kvlint.yaml in the checked tree, or a model directory beside a launching
// file, is read only inside the checked paths (internal/confined).
func ReadModelConfigIn(cfs *confined.FS, path string) (*Model, error) {
	file := path
	info, err := cfs.Stat(path)
	if err != nil {
		return nil, &diag.Diagnostic{Span: deploy.Span{File: path}, Message: "cannot read the model config: " + limits.Describe(err)}
	}
	dir := filepath.Dir(path)
	if info.IsDir() {
		dir = path
		file = filepath.Join(path, "config.json")
	}
	data, err := cfs.ReadFile(file)
	if err != nil {
		return nil, &diag.Diagnostic{Span: deploy.Span{File: file}, Message: "cannot read the model config: " + limits.Describe(err)}
	}
	m, err := parseModelConfig(file, data)
	if err != nil {
		return nil, err
	}
	m.ID = path
	if err := readHFQuantConfig(cfs, dir, m); err != nil {
		return nil, err
	}
	if err := readSafetensorsIndex(cfs, dir, m); err != nil {
		return nil, err
	}
	if m.WeightsBytes == 0 {
		if err := readSafetensorsHeaders(cfs, dir, m); err != nil {
			return nil, err
		}
	}
	if m.WeightsBytes > 0 {
		// The checkpoint's own tensor bytes are measured, not derived:
		// they win over the count from the shapes.
		m.Params, m.AttentionParams, m.ExpertParams = 0, 0, 0
	}
	return m, nil
}

// configReader reads typed fields of one JSON object (the top-level config or
// its text sub-config), turning a wrong type into an error at the value.
type configReader struct {
	doc    *jsonDoc
	obj    map[string]any
	prefix string // key path of obj in doc ("" or "text_config")
	err    *diag.Diagnostic
}

func (r *configReader) path(key string) string {
	if r.prefix == "" {
		return key
	}
	return r.prefix + "." + key
}

func (r *configReader) fail(key, format string, args ...any) {
	if r.err == nil {
		r.err = r.doc.Errorf(r.path(key), "%s: "+format, append([]any{r.path(key)}, args...)...)
	}
}

// has reports whether key is present and not null (Python's getattr(…, None)
// is not None).
func (r *configReader) has(key string) bool {
	v, ok := r.obj[key]
	return ok && v != nil
}

// int reads an integer field in [0, limit]; absent or null gives 0, false.
func (r *configReader) int(key string, limit int64) (int64, bool) {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return 0, false
	}
	n, isNum := v.(json.Number)
	if !isNum {
		r.fail(key, "must be a number, not %s", jsonKind(v))
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > float64(math.MaxInt64)/2 {
			r.fail(key, "must be an integer, not %s", n.String())
			return 0, false
		}
		i = int64(f)
	}
	if i < 0 || i > limit {
		r.fail(key, "%d is outside the plausible range 0..%d", i, limit)
		return 0, false
	}
	return i, true
}

func (r *configReader) float(key string) (float64, bool) {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return 0, false
	}
	n, isNum := v.(json.Number)
	if !isNum {
		r.fail(key, "must be a number, not %s", jsonKind(v))
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		r.fail(key, "must be a finite number, not %s", n.String())
		return 0, false
	}
	return f, true
}

func (r *configReader) str(key string) string {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		r.fail(key, "must be a string, not %s", jsonKind(v))
	}
	return s
}

func (r *configReader) bool(key string) bool {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		r.fail(key, "must be true or false, not %s", jsonKind(v))
	}
	return b
}

func (r *configReader) strings(key string) []string {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		r.fail(key, "must be a list of strings, not %s", jsonKind(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, isStr := e.(string)
		if !isStr {
			r.fail(key, "must be a list of strings, but holds %s", jsonKind(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *configReader) object(key string) map[string]any {
	v, ok := r.obj[key]
	if !ok || v == nil {
		return nil
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		r.fail(key, "must be an object, not %s", jsonKind(v))
	}
	return o
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case string:
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// contextLengthKeys is SGLang's CONTEXT_LENGTH_KEYS, in its order of preference
// (python/sglang/srt/utils/hf_transformers/common.py, L448-454).
var contextLengthKeys = []string{"max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings"}

// parseModelConfig decodes config.json text; file names it in errors.
func parseModelConfig(file string, data []byte) (*Model, error) {
	doc, err := decodeJSONObject(file, data)
	if err != nil {
		return nil, err
	}
	top := &configReader{doc: doc, obj: doc.root}
	m := &Model{ID: file, Source: "local config " + file, Confidence: "config-read"}
	m.Architectures = top.strings("architectures")

	// The sub-config that describes the language model, in SGLang's order:
	// llm_config > language_config > text_config (get_hf_text_config,
	// utils/hf_transformers/common.py L327-392). thinker_config (Qwen Omni)
	// nests its own text_config.
	text := top
	for _, key := range []string{"thinker_config", "llm_config", "language_config", "text_config"} {
		if sub := top.object(key); sub != nil {
			text = &configReader{doc: doc, obj: sub, prefix: key}
			if key == "thinker_config" {
				if inner, ok := sub["text_config"].(map[string]any); ok {
					text = &configReader{doc: doc, obj: inner, prefix: key + ".text_config"}
				}
			}
			break
		}
	}
	m.ModelType = text.str("model_type")
	if m.ModelType == "" {
		m.ModelType = top.str("model_type")
	}
	applyAttributeMap(text, m.ModelType)
	m.Inferred = append(m.Inferred, applyClassDefaults(text, m.ModelType)...)

	layers, okL := text.int("num_hidden_layers", maxLayers)
	hidden, okH := text.int("hidden_size", maxDim)
	heads, okA := text.int("num_attention_heads", maxHeads)
	m.Layers, m.HiddenSize, m.Heads = int(layers), int(hidden), int(heads)
	headDim, _ := text.int("head_dim", maxDim)
	m.HeadDim = int(headDim)
	vHeadDim, _ := text.int("v_head_dim", maxDim)
	m.VHeadDim = int(vHeadDim)
	m.KVHeads = totalKVHeads(text, top, m)

	kvLora, _ := text.int("kv_lora_rank", maxDim)
	rope, _ := text.int("qk_rope_head_dim", maxDim)
	m.KVLoraRank, m.QKRopeHeadDim = int(kvLora), int(rope)
	idxDim, _ := text.int("index_head_dim", maxDim)
	m.IndexHeadDim = int(idxDim)
	if text.has("index_topk") {
		k, _ := text.int("index_topk", math.MaxInt32)
		m.IndexTopK = int(k)
		if m.IndexTopK == 0 {
			m.IndexTopK = -1 // present; only its presence matters
		}
	}

	// Sliding window: SGLang's _get_sliding_window_size reads these keys in
	// this order (configs/model_config.py L1293-1298).
	for _, key := range []string{"sliding_window_size", "sliding_window", "window_size"} {
		if text.has(key) {
			w, _ := text.int(key, math.MaxInt32)
			m.SlidingWindow = int(w)
			break
		}
	}
	readLayerKinds(text, m)
	readChunkedAttention(text, m)
	swaKV, _ := text.int("swa_num_key_value_heads", maxHeads)
	swaHD, _ := text.int("swa_head_dim", maxDim)
	swaVHD, _ := text.int("swa_v_head_dim", maxDim)
	m.SWAKVHeads, m.SWAHeadDim, m.SWAVHeadDim = int(swaKV), int(swaHD), int(swaVHD)
	m.HybridSWAOptIn = text.bool("is_hybrid_swa")

	for _, key := range contextLengthKeys {
		if text.has(key) {
			v, _ := text.int(key, 1<<40)
			m.ContextKey, m.ContextValue = key, v
			break
		}
	}
	m.RopeScaling = readRopeScaling(text)

	// dtype: the text config's own, else the parent's (get_hf_text_config
	// copies the parent dtype into sub-configs that lack one).
	m.Dtype = firstNonEmpty(text.str("dtype"), text.str("torch_dtype"), top.str("dtype"), top.str("torch_dtype"))

	q := top.object("quantization_config")
	qr := top
	if q == nil {
		q = text.object("quantization_config")
		qr = text
	}
	if q != nil {
		m.Quant = quantFromConfig(&configReader{doc: doc, obj: q, prefix: qr.path("quantization_config")})
	}

	vocab, _ := text.int("vocab_size", 1<<30)
	m.VocabSize = int(vocab)
	if text.has("tie_word_embeddings") {
		m.TieWordEmbeddings = text.bool("tie_word_embeddings")
	} else {
		m.TieWordEmbeddings = top.bool("tie_word_embeddings")
	}
	for _, key := range []string{"n_routed_experts", "num_experts", "num_local_experts"} {
		if text.has(key) {
			e, _ := text.int(key, 1<<20)
			m.Experts = int(e)
			break
		}
	}
	for _, key := range []string{"num_experts_per_tok", "experts_per_token"} {
		if text.has(key) {
			e, _ := text.int(key, 1<<20)
			m.ExpertsPerToken = int(e)
			break
		}
	}
	nextn, _ := text.int("num_nextn_predict_layers", maxLayers)
	m.NextNLayers = int(nextn)

	if vc := top.object("vision_config"); vc != nil {
		m.HasVisionConfig = true
		vr := &configReader{doc: doc, obj: vc, prefix: "vision_config"}
		vl, _ := vr.int("num_hidden_layers", maxLayers)
		vh, _ := vr.int("hidden_size", maxDim)
		m.VisionLayers, m.VisionHidden = int(vl), int(vh)
		if vr.err != nil {
			return nil, vr.err
		}
	}

	m.Unsupported = unsupportedReason(text, m)
	if m.Unsupported == "" {
		applyParamCount(text, top, m)
	}

	for _, r := range []*configReader{top, text} {
		if r.err != nil {
			return nil, r.err // a non-nil *diag.Diagnostic
		}
	}
	switch {
	case !okL || m.Layers == 0:
		return nil, missingField(text, "num_hidden_layers")
	case !okA || m.Heads == 0:
		return nil, missingField(text, "num_attention_heads")
	case !okH || m.HiddenSize == 0:
		if m.HeadDim == 0 {
			return nil, missingField(text, "hidden_size")
		}
	}
	return m, nil
}

func missingField(r *configReader, key string) *diag.Diagnostic {
	where := "the config"
	if r.prefix != "" {
		where = r.prefix
	}
	return &diag.Diagnostic{Span: deploy.Span{File: r.doc.File()}, Message: fmt.Sprintf("%s has no %s: it does not describe a transformer language model kvlint can size", where, key)}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// totalKVHeads mirrors ModelConfig.get_total_num_kv_heads
// (configs/model_config.py L1010-1071): multi_query means one KV head (except
// Falcon's new decoder architecture), then the first of n_head_kv,
// num_kv_heads, num_key_value_heads, multi_query_group_num,
// num_attention_groups, else num_attention_heads.
func totalKVHeads(text, top *configReader, m *Model) int {
	falcon := map[string]bool{"falcon": true, "RefinedWeb": true, "RefinedWebModel": true}
	newDecoder := falcon[top.str("model_type")] && top.bool("new_decoder_architecture")
	if !newDecoder && text.bool("multi_query") {
		return 1
	}
	// MPT and DBRX keep the count in attn_config (the branch of
	// get_total_num_kv_heads before the attribute list).
	if mt := top.str("model_type"); mt == "mpt" || mt == "dbrx" {
		return attnConfigKVHeads(top, mt, m.Heads)
	}
	for _, key := range []string{"n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups"} {
		if text.has(key) {
			n, _ := text.int(key, maxHeads)
			return int(n)
		}
	}
	return m.Heads
}

// readLayerKinds counts sliding-window and full-attention layers from
// layer_types, hybrid_layer_pattern (1 = SWA) or sliding_window_pattern
// (every n-th layer is global).
func readLayerKinds(text *configReader, m *Model) {
	if types := text.strings("layer_types"); len(types) > 0 {
		for i, t := range types {
			if m.Layers > 0 && i >= m.Layers {
				break
			}
			switch t {
			case "sliding_attention":
				m.SWALayers++
			case "full_attention":
				m.FullLayers++
			}
		}
		return
	}
	if v, ok := text.obj["hybrid_layer_pattern"].([]any); ok {
		for i, e := range v {
			if m.Layers > 0 && i >= m.Layers {
				break
			}
			if n, isNum := e.(json.Number); isNum {
				switch n.String() {
				case "1":
					m.SWALayers++
				case "0":
					m.FullLayers++
				}
			}
		}
		return
	}
	if p, ok := text.int("sliding_window_pattern", maxLayers); ok && p > 0 && m.Layers > 0 {
		full := m.Layers / int(p)
		m.FullLayers, m.SWALayers = full, m.Layers-full
	}
}

// readChunkedAttention reads which of Llama 4's layers attend within a chunk
// of attention_chunk_size tokens. transformers' Llama4TextConfig
// (huggingface/transformers@008e574391258935f3ecc3035c882e73bbcac419
// src/transformers/models/llama4/configuration_llama4.py
// Llama4TextConfig.__post_init__; the 4.5x releases' __init__ has the same
// rule) defaults attention_chunk_size to 8192 and, when no_rope_layers is
// absent or empty, builds it as int((i + 1) % no_rope_layer_interval != 0)
// with an interval of 4: 1 marks a RoPE layer, 0 a NoPE layer. vLLM reads
// the loaded config: vllm/model_executor/models/llama4.py Llama4Attention
// (nope = no_rope_layers[layer_idx] == 0, use_irope = not nope) and
// vllm/v1/worker/gpu_model_runner.py get_kv_cache_spec (a use_irope layer
// is chunked when model_config.attention_chunk_size, getattr(hf_text_config,
// "attention_chunk_size", None), is set), both at vllm-project/vllm
// 6d8d0a24c02b (v0.10.0). A null attention_chunk_size turns chunking off.
func readChunkedAttention(text *configReader, m *Model) {
	if m.ModelType != "llama4" && m.ModelType != "llama4_text" {
		return
	}
	chunk := int64(8192)
	if v, present := text.obj["attention_chunk_size"]; present {
		if v == nil {
			return
		}
		n, ok := text.int("attention_chunk_size", math.MaxInt32)
		if !ok || n <= 0 {
			return
		}
		chunk = n
	}
	if m.Layers <= 0 {
		return
	}
	chunked := 0
	if list, ok := text.obj["no_rope_layers"].([]any); ok && len(list) > 0 {
		if len(list) < m.Layers {
			// vLLM would index past the list: no layout to read.
			return
		}
		for _, e := range list[:m.Layers] {
			n, isNum := e.(json.Number)
			if !isNum {
				text.fail("no_rope_layers", "must list numbers, not %s", jsonKind(e))
				return
			}
			if n.String() != "0" {
				chunked++
			}
		}
	} else {
		interval := int64(4)
		if text.has("no_rope_layer_interval") {
			n, ok := text.int("no_rope_layer_interval", maxLayers)
			if !ok || n <= 0 {
				return
			}
			interval = n
		}
		for i := int64(0); i < int64(m.Layers); i++ {
			if (i+1)%interval != 0 {
				chunked++
			}
		}
	}
	m.AttentionChunkSize, m.ChunkedLayers = int(chunk), chunked
}

// readRopeScaling reads rope_scaling (transformers v4) or rope_parameters (v5).
func readRopeScaling(text *configReader) *RopeScaling {
	key := "rope_scaling"
	obj, isObj := text.obj[key].(map[string]any)
	if !isObj {
		key = "rope_parameters"
		obj, isObj = text.obj[key].(map[string]any)
	}
	if !isObj {
		return nil
	}
	r := &configReader{doc: text.doc, obj: obj, prefix: text.path(key)}
	rs := &RopeScaling{Type: r.str("type"), RopeType: r.str("rope_type")}
	if f, ok := r.float("factor"); ok {
		rs.Factor = f
	}
	if _, present := obj["original_max_position_embeddings"]; present {
		rs.HasOriginalMax = true
		v, _ := r.int("original_max_position_embeddings", 1<<40)
		rs.OriginalMax = v
	}
	if r.err != nil && text.err == nil {
		text.err = r.err
	}
	return rs
}

// quantFromConfig reads a quantization_config: the method, ModelOpt's
// kv_cache_quant_algo (or a kv_cache_scheme of 8-bit floats, which ModelOpt's
// from_config reads as FP8: layers/quantization/modelopt_quant.py L429-441),
// and which weights it covers.
func quantFromConfig(r *configReader) *Quantization {
	q := &Quantization{Method: strings.ToLower(r.str("quant_method"))}
	algo := r.str("quant_algo")
	if algo != "" {
		// ModelOpt's flat format (quant_algo in config.json).
		q.Method = "modelopt_" + strings.ToLower(algo)
		if scheme, ok := r.obj["kv_cache_scheme"].(map[string]any); ok {
			if t, _ := scheme["type"].(string); t == "float" {
				if n, _ := scheme["num_bits"].(json.Number); n.String() == "8" {
					q.KVCacheQuantAlgo = "FP8"
				}
			}
		} else {
			q.KVCacheQuantAlgo = r.str("kv_cache_quant_algo")
		}
	}
	setQuantStorage(q)
	return q
}

// setQuantStorage fills in the scope and bits per weight of a method kvlint
// knows; unknown methods keep 0 bits (weights then stay unknown).
func setQuantStorage(q *Quantization) {
	switch q.Method {
	case "fp8", "modelopt_fp8", "fbgemm_fp8", "w8a8_fp8":
		q.Scope, q.BitsPerWeight = "linear", 8
	case "modelopt_nvfp4", "modelopt_fp4":
		// NVFP4: 4-bit values plus one FP8 scale per 16.
		q.Scope, q.BitsPerWeight = "mlp", 4.5
	case "mxfp4":
		// MXFP4: 4-bit values plus one 8-bit scale per 32.
		q.Scope, q.BitsPerWeight = "experts", 4.25
	}
}

// readHFQuantConfig reads ModelOpt's hf_quant_config.json (the nested format
// SGLang still accepts: quantization.quant_algo / kv_cache_quant_algo) when
// config.json itself has no quantization_config.
func readHFQuantConfig(cfs *confined.FS, dir string, m *Model) error {
	doc, err := readSideFile(cfs, dir, "hf_quant_config.json")
	if doc == nil || err != nil {
		return err
	}
	top := &configReader{doc: doc, obj: doc.root}
	section := top.object("quantization")
	if top.err != nil {
		return top.err
	}
	if section == nil || m.Quant != nil {
		return nil
	}
	r := &configReader{doc: doc, obj: section, prefix: "quantization"}
	algo := r.str("quant_algo")
	if r.err != nil {
		return r.err
	}
	if algo == "" {
		return nil
	}
	q := &Quantization{Method: "modelopt_" + strings.ToLower(algo), KVCacheQuantAlgo: r.str("kv_cache_quant_algo")}
	if r.err != nil {
		return r.err
	}
	setQuantStorage(q)
	m.Quant = q
	return nil
}

// readSideFile decodes an optional JSON file beside config.json: nil and no
// error when the checkpoint does not have it.
func readSideFile(cfs *confined.FS, dir, name string) (*jsonDoc, error) {
	file := filepath.Join(dir, name)
	data, err := cfs.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, &diag.Diagnostic{Span: deploy.Span{File: file}, Message: "cannot read: " + limits.Describe(err)}
	}
	doc, derr := decodeJSONObject(file, data)
	if derr != nil {
		return nil, derr
	}
	return doc, nil
}

// readSafetensorsIndex takes the checkpoint size from
// model.safetensors.index.json's metadata.total_size, when present.
func readSafetensorsIndex(cfs *confined.FS, dir string, m *Model) error {
	doc, err := readSideFile(cfs, dir, "model.safetensors.index.json")
	if doc == nil || err != nil {
		return err
	}
	top := &configReader{doc: doc, obj: doc.root}
	meta := top.object("metadata")
	if top.err != nil {
		return top.err
	}
	if meta == nil {
		return nil
	}
	r := &configReader{doc: doc, obj: meta, prefix: "metadata"}
	if size, ok := r.int("total_size", 1<<50); ok && size > 0 {
		m.WeightsBytes = size
		m.ParamsSource = "checkpoint size from " + doc.File() + " (metadata.total_size)"
	}
	if r.err != nil {
		return r.err
	}
	return nil
}

// unsupportedReason names pool layouts kvlint does not model, so an estimate
// says so instead of printing a wrong number.
func unsupportedReason(text *configReader, m *Model) string {
	switch {
	case m.hasArch("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark"):
		return "DeepSeek-V4 has its own compressed KV pools (DSV4PoolConfigurator), which kvlint does not model"
	case strings.HasPrefix(m.arch0(), "MiniMaxM3Sparse"):
		return "MiniMax sparse attention keeps an indexer pool beside the KV pool, which kvlint does not model"
	case isHybridSWACompress(m):
		return "this architecture's compressed sliding-window pools (is_hybrid_swa_compress) are not modelled by kvlint"
	}
	for _, key := range []string{"full_attention_interval", "linear_num_key_heads", "mamba_d_state", "ssm_state_size", "mamba_n_heads", "hybrid_override_pattern", "layers_block_type"} {
		if text.has(key) {
			return "a hybrid linear-attention/Mamba model: the engine keeps a recurrent-state pool beside the KV cache, which kvlint does not model"
		}
	}
	if types, ok := text.obj["layer_types"].([]any); ok {
		for _, t := range types {
			if s, _ := t.(string); s == "linear_attention" || s == "mamba" {
				return "a hybrid linear-attention/Mamba model: the engine keeps a recurrent-state pool beside the KV cache, which kvlint does not model"
			}
		}
	}
	return ""
}

// ParseModelConfig reads config.json text (and, when non-nil, the
// hf_quant_config.json beside it) as ReadModelConfig does, without touching
// the filesystem; name labels errors. The catalog generator
// (capacity/data/gen) builds catalog rows with it, so a row holds exactly
// what kvlint would read from the same config.
func ParseModelConfig(name string, config, hfQuant []byte) (*Model, error) {
	m, err := parseModelConfig(name, config)
	if err != nil {
		return nil, err
	}
	if hfQuant != nil && m.Quant == nil {
		doc, derr := decodeJSONObject(name+" hf_quant_config.json", hfQuant)
		if derr != nil {
			return nil, derr
		}
		top := &configReader{doc: doc, obj: doc.root}
		if section := top.object("quantization"); section != nil {
			r := &configReader{doc: doc, obj: section, prefix: "quantization"}
			if algo := r.str("quant_algo"); algo != "" {
				q := &Quantization{Method: "modelopt_" + strings.ToLower(algo), KVCacheQuantAlgo: r.str("kv_cache_quant_algo")}
				setQuantStorage(q)
				m.Quant = q
			}
			if r.err != nil {
				return nil, r.err
			}
		}
		if top.err != nil {
			return nil, top.err
		}
	}
	return m, nil
}

// attributeMaps are the attribute_map of transformers config classes whose
// config.json uses other key names: reading config.hidden_size on a
// GPT2Config returns n_embd, and SGLang reads these configs through
// transformers (transformers models/gpt2/configuration_gpt2.py GPT2Config
// attribute_map; models/gpt_bigcode/configuration_gpt_bigcode.py likewise;
// models/gptj/configuration_gptj.py GPTJConfig at
// transformers@c4c7dfb77cf6d24ac1d7857226c4da0c1bfbf11d maps the same four).
//
// Falcon has no attribute_map but takes the old n_embed key as hidden_size
// (transformers@5fd8edad2a672d6a10d6352b62b823d56c3032bf
// models/falcon/configuration_falcon.py FalconConfig.__init__: "Backward
// compatibility with n_embed kwarg"), which reads the same.
//
// GPT-J's GPTJConfig has the same attribute_map
// (transformers@c4c7dfb77cf6d24ac1d7857226c4da0c1bfbf11d
// models/gptj/configuration_gptj.py), and EXAONE's config class, which
// SGLang ships, maps num_hidden_layers to num_layers
// (modal-projects/sglang@8905cbd42f4a27dbecad6487cd3904278756fef8
// python/sglang/srt/configs/exaone.py ExaoneConfig.attribute_map).
var attributeMaps = map[string]map[string]string{
	"gpt2":        {"hidden_size": "n_embd", "max_position_embeddings": "n_positions", "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
	"gpt_bigcode": {"hidden_size": "n_embd", "max_position_embeddings": "n_positions", "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
	"gptj":        {"hidden_size": "n_embd", "max_position_embeddings": "n_positions", "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
	"falcon":      {"hidden_size": "n_embed"},
	"exaone":      {"num_hidden_layers": "num_layers"},
	// BloomConfig.attribute_map, and its n_embed kwarg read as hidden_size
	// (huggingface/transformers@d94ee404add5208a61220111258cbafa50aaa297
	// src/transformers/models/bloom/configuration_bloom.py
	// BloomConfig.__init__: "Backward compatibility with n_embed kwarg").
	"bloom": {"num_hidden_layers": "n_layer", "num_attention_heads": "n_head", "hidden_size": "n_embed"},
	// MptConfig.attribute_map (huggingface/transformers@05699a763e76ee438fa65e6eeae4a294ea0026f5
	// src/transformers/models/mpt/configuration_mpt.py); SGLang's
	// DbrxConfig.attribute_map adds max_seq_len
	// (modal-projects/sglang@8905cbd42f4a27dbecad6487cd3904278756fef8
	// python/sglang/srt/configs/dbrx.py).
	"mpt":  {"num_attention_heads": "n_heads", "hidden_size": "d_model", "num_hidden_layers": "n_layers"},
	"dbrx": {"num_attention_heads": "n_heads", "hidden_size": "d_model", "num_hidden_layers": "n_layers", "max_position_embeddings": "max_seq_len"},
	// SGLang's ChatGLMConfig, registered for model_type chatglm, maps
	// num_hidden_layers to num_layers and sets vocab_size from
	// padded_vocab_size (python/sglang/srt/configs/chatglm.py
	// ChatGLMConfig at the same commit).
	"chatglm": {"num_hidden_layers": "num_layers", "vocab_size": "padded_vocab_size"},
}

// classDefaults are the __init__ defaults of transformers config classes
// for the keys kvlint reads: a config.json that omits one gets the class's
// value when transformers loads it, and SGLang and vLLM read the loaded
// config. Only classes whose published checkpoints rely on a default are
// listed; elsewhere a missing key stays missing.
//
//   - gemma3_text: transformers@d98ac17cc00f337eeee9a1e2380072dc8cafabd4
//     models/gemma3/configuration_gemma3.py Gemma3TextConfig.__init__
//     (google/gemma-3-*-it text_config omits the head counts, head_dim,
//     max_position_embeddings and sliding_window_pattern).
//   - falcon: transformers@5fd8edad2a672d6a10d6352b62b823d56c3032bf
//     models/falcon/configuration_falcon.py FalconConfig.__init__
//     (num_kv_heads defaults to num_attention_heads, which totalKVHeads
//     already does).
//   - llama: transformers@4bdeeced9ce971bed8cca7ab203c3b70cffab4ca
//     models/llama/configuration_llama.py LlamaConfig.__init__ (LLaVA's
//     text_config names only what differs from the defaults, and
//     LlavaConfig builds it with CONFIG_MAPPING["llama"](**text_config):
//     transformers@9426c8c349d84f2bfb4acf76948ea5f8fb6f2432
//     models/llava/configuration_llava.py LlavaConfig.__init__;
//     num_key_value_heads defaults to num_attention_heads, which
//     totalKVHeads already does).
var classDefaults = map[string]map[string]int64{
	"gemma3_text": {
		"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
		"num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
		"head_dim": 256, "max_position_embeddings": 131072, "sliding_window": 4096,
		"sliding_window_pattern": 6,
	},
	"llama": {
		"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
		"num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 2048,
	},
	"falcon": {
		"vocab_size": 65024, "hidden_size": 4544, "num_hidden_layers": 32,
		"num_attention_heads": 71, "max_position_embeddings": 2048,
	},
}

// classDefaultBools are the boolean class defaults, as classDefaults.
//
// FalconConfig's multi_query defaults to True
// (transformers@5fd8edad2a672d6a10d6352b62b823d56c3032bf
// models/falcon/configuration_falcon.py FalconConfig.__init__): a falcon
// config that omits it has one KV head (get_total_num_kv_heads reads the
// loaded config's multi_query).
var classDefaultBools = map[string]map[string]bool{
	"gemma3_text": {"tie_word_embeddings": true},
	"falcon":      {"multi_query": true},
}

// applyClassDefaults fills the keys the config omits with its class's
// defaults and says which it filled, in key order.
func applyClassDefaults(r *configReader, modelType string) []string {
	var filled []string
	defs := classDefaults[modelType]
	keys := make([]string, 0, len(defs))
	for k := range defs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if r.has(k) {
			continue
		}
		r.obj[k] = json.Number(strconv.FormatInt(defs[k], 10))
		filled = append(filled, fmt.Sprintf("config.json omits %s: transformers' %s class default %d applies", k, modelType, defs[k]))
	}
	for k, v := range classDefaultBools[modelType] {
		if !r.has(k) {
			r.obj[k] = v
			filled = append(filled, fmt.Sprintf("config.json omits %s: transformers' %s class default %t applies", k, modelType, v))
		}
	}
	return filled
}

// applyAttributeMap makes the standard names read the class's own keys
// when the standard key is absent.
func applyAttributeMap(r *configReader, modelType string) {
	for std, own := range attributeMaps[modelType] {
		if v, ok := r.obj[own]; ok && !r.has(std) {
			r.obj[std] = v
		}
	}
}
