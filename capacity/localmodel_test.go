package capacity

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/internal/confined"
)

// writeSafetensors writes a safetensors file whose header is header (the
// tensor bytes themselves are never read, so none follow).
func writeSafetensors(t testing.TB, path, header string) {
	t.Helper()
	buf := make([]byte, 8, 8+len(header))
	binary.LittleEndian.PutUint64(buf, uint64(len(header)))
	buf = append(buf, header...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const tinyLlama = `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 2,
 "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16", "vocab_size": 1000}`

// Worked example: a checkpoint with no index has its weights summed from
// the safetensors headers. Shard 1: a BF16 [1000, 64] embedding (128,000 B)
// and an F32 [64] norm (256 B); shard 2: an F8_E4M3 [64, 64] projection
// (4,096 B) and its F32 [1] scale (4 B). Total 132,356 B; at --tp-size 2 the
// estimate carries 66,178 B per GPU.
func TestSafetensorsHeaderWeights(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), tinyLlama)
	writeSafetensors(t, filepath.Join(dir, "model-00001-of-00002.safetensors"),
		`{"__metadata__": {"format": "pt"}, "model.embed_tokens.weight": {"dtype": "BF16", "shape": [1000, 64], "data_offsets": [0, 128000]}, "model.norm.weight": {"dtype": "F32", "shape": [64], "data_offsets": [128000, 128256]}}  `)
	writeSafetensors(t, filepath.Join(dir, "model-00002-of-00002.safetensors"),
		`{"q.weight": {"dtype": "F8_E4M3", "shape": [64, 64], "data_offsets": [0, 4096]}, "q.weight_scale": {"dtype": "F32", "shape": [1], "data_offsets": [4096, 4100]}}`)
	m, err := ReadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "weights", m.WeightsBytes, int64(132356))
	if !strings.Contains(m.ParamsSource, "safetensors headers") {
		t.Errorf("params source %q", m.ParamsSource)
	}
	cat := &Catalog{byID: map[string]int{}, byLast: map[string][]int{}, gpus: Default().gpus, gpuKeys: Default().gpuKeys}
	est := EstimateServer(server("acme/tiny", "H100", "--tp-size", "2"), Options{Catalog: cat, ModelConfigs: map[string]string{"acme/tiny": dir}})
	if est.WeightsBytesPerGPU == nil || *est.WeightsBytesPerGPU != 66178 {
		t.Errorf("weights per GPU %v, want 66178\n%s", deref(est.WeightsBytesPerGPU), strings.Join(est.Derivation, "\n"))
	}

	// An index's total_size wins over the headers.
	writeFile(t, filepath.Join(dir, "model.safetensors.index.json"), `{"metadata": {"total_size": 999}, "weight_map": {}}`)
	m, err = ReadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "weights from the index", m.WeightsBytes, int64(999))
}

func TestSafetensorsHeaderErrors(t *testing.T) {
	tests := []struct{ name, header, want string }{
		{"offsets disagree with the shape", `{"w": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, 16]}}`, "takes 32 bytes"},
		{"reversed offsets", `{"w": {"dtype": "U8", "shape": [4], "data_offsets": [8, 4]}}`, "begin <= end"},
		{"not JSON", `[1, 2]`, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "config.json"), tinyLlama)
			writeSafetensors(t, filepath.Join(dir, "model.safetensors"), tt.header)
			_, err := ReadModelConfig(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "model.safetensors") {
				t.Fatalf("error %v, want %q naming the file", err, tt.want)
			}
		})
	}
	// A header length past the cap is refused before anything is read.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), tinyLlama)
	huge := make([]byte, 16)
	binary.LittleEndian.PutUint64(huge, 1<<40)
	writeFile(t, filepath.Join(dir, "model.safetensors"), string(huge))
	if _, err := ReadModelConfig(dir); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("error %v, want the header cap", err)
	}
}

// hubFixture lays out a hub cache holding acme/tiny-llama at revision rev,
// with refs/main naming it when ref is true.
func hubFixture(t *testing.T, hub, rev string, ref bool) {
	repo := filepath.Join(hub, "models--acme--tiny-llama")
	writeFile(t, filepath.Join(repo, "snapshots", rev, "config.json"), tinyLlama)
	if ref {
		writeFile(t, filepath.Join(repo, "refs", "main"), rev)
	}
}

func TestHFCacheResolution(t *testing.T) {
	root := t.TempDir()
	hub := filepath.Join(root, "hub")
	hubFixture(t, hub, "0123abcd", true)
	hubFixture(t, hub, "old", false)
	opt := Options{FS: confined.New([]string{root}), HFCaches: []HFCache{{Dir: hub, From: ".kvlint.yaml hf_cache:"}}}

	est := EstimateServer(server("acme/tiny-llama", "H100", "--tp-size", "1"), opt)
	want := filepath.Join(hub, "models--acme--tiny-llama", "snapshots", "0123abcd")
	if est.Model != want {
		t.Fatalf("model %q, want the refs/main snapshot %q\n%s", est.Model, want, strings.Join(est.Assumptions, "\n"))
	}
	// 2 layers × 2 KV heads × 16 head_dim × 2 (K and V) × 2 bytes.
	if est.CellBytesPerToken == nil || *est.CellBytesPerToken != 256 {
		t.Errorf("cell %v, want 256", deref(est.CellBytesPerToken))
	}
	if !containsText(est.Derivation, "Hugging Face cache") {
		t.Errorf("derivation does not say where the config came from:\n%s", strings.Join(est.Derivation, "\n"))
	}

	// Several snapshots and no refs/main: which one runs is unknown.
	if err := os.Remove(filepath.Join(hub, "models--acme--tiny-llama", "refs", "main")); err != nil {
		t.Fatal(err)
	}
	est = EstimateServer(server("acme/tiny-llama", "H100"), opt)
	if est.Model == want || !containsText(est.Assumptions, "2 snapshots") {
		t.Errorf("model %q; assumptions:\n%s", est.Model, strings.Join(est.Assumptions, "\n"))
	}

	// Another id is not in the cache: the cache is passed over.
	est = EstimateServer(server("acme/other", "H100"), opt)
	if containsText(est.Derivation, "Hugging Face cache") {
		t.Errorf("acme/other read from the cache:\n%s", strings.Join(est.Derivation, "\n"))
	}
}

// A cache outside the checked paths is not read unless the user named it.
func TestHFCacheConfined(t *testing.T) {
	outside := t.TempDir()
	hubFixture(t, outside, "0123abcd", true)
	checked := t.TempDir()
	fsys := confined.New([]string{checked})

	est := EstimateServer(server("acme/tiny-llama", "H100"), Options{FS: fsys, HFCaches: []HFCache{{Dir: outside, From: "$HF_HUB_CACHE"}}})
	if containsText(est.Derivation, "Hugging Face cache") {
		t.Errorf("a cache outside the checked paths was read:\n%s", strings.Join(est.Derivation, "\n"))
	}
	est = EstimateServer(server("acme/tiny-llama", "H100"), Options{FS: fsys, HFCaches: []HFCache{{Dir: outside, Named: true, From: "--hf-cache"}}})
	if !containsText(est.Derivation, "Hugging Face cache") {
		t.Errorf("the cache named by --hf-cache was not read:\n%s", strings.Join(est.Assumptions, "\n"))
	}
}

func TestIDFromCachePath(t *testing.T) {
	for path, want := range map[string]string{
		"/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/9c925d6": "Qwen/Qwen3-8B",
		"/data/models--meta-llama--Llama-3.1-8B-Instruct":                       "meta-llama/Llama-3.1-8B-Instruct",
		"/models/llama":                    "",
		"/x/models--a--b--c/snapshots/1":   "",
		"/x/datasets--a--b/snapshots/1":    "",
		"models--deepseek-ai--DeepSeek-V3": "deepseek-ai/DeepSeek-V3",
	} {
		if got := idFromCachePath(path); got != want {
			t.Errorf("idFromCachePath(%q) = %q, want %q", path, got, want)
		}
	}
}

// Gemma 3 instruction-tuned checkpoints leave the head counts, head_dim,
// the context and the sliding-window pattern to Gemma3TextConfig's
// defaults. Worked example (a gemma-3-4b-it-shaped text_config): 34 layers,
// every 6th global → 5 full + 29 sliding layers; 4 KV heads × 256 dims.
func TestGemma3ClassDefaults(t *testing.T) {
	m, err := ParseModelConfig("gemma-3-4b-it", []byte(`{"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
	 "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text", "num_hidden_layers": 34,
	 "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024}, "torch_dtype": "bfloat16"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "heads", m.Heads, 8)
	expect(t, "kv heads", m.KVHeads, 4)
	expect(t, "head_dim", m.headDim(), 256)
	expect(t, "sliding window (the config's own)", m.SlidingWindow, 1024)
	expect(t, "swa/full", [2]int{m.SWALayers, m.FullLayers}, [2]int{29, 5})
	expect(t, "context key", m.ContextValue, int64(131072))
	if !containsText(m.Inferred, "num_attention_heads: transformers' gemma3_text class default 8") {
		t.Errorf("inferred %q", m.Inferred)
	}
	// A config that states a key keeps it.
	m, err = ParseModelConfig("gemma-3-27b", []byte(`{"model_type": "gemma3_text", "num_hidden_layers": 62, "hidden_size": 5376,
	 "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "stated kv heads", m.KVHeads, 16)
	expect(t, "stated head_dim", m.headDim(), 128)
	// Another model type gets no Gemma defaults: Baichuan's config class is
	// remote code, so transformers supplies nothing it omits.
	if _, err := ParseModelConfig("baichuan", []byte(`{"model_type": "baichuan", "hidden_size": 64}`), nil); err == nil {
		t.Error("a baichuan config without num_hidden_layers was read")
	}
}

// LLaVA 1.5's text_config states only what differs from LlamaConfig's
// defaults (llava-hf/llava-1.5-7b-hf: vocabulary and context); the layer,
// head and width counts come from the class, as transformers builds it.
func TestLlavaTextConfigLlamaDefaults(t *testing.T) {
	m, err := ParseModelConfig("llava-1.5-7b-hf", []byte(`{"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
	 "text_config": {"architectures": ["LlamaForCausalLM"], "max_position_embeddings": 4096, "model_type": "llama",
	 "torch_dtype": "float16", "vocab_size": 32064}, "torch_dtype": "float16"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "layers", m.Layers, 32)
	expect(t, "heads", m.Heads, 32)
	expect(t, "kv heads (= heads)", m.KVHeads, 32)
	expect(t, "head_dim", m.headDim(), 128)
	expect(t, "context (the config's own)", m.ContextValue, int64(4096))
	if !containsText(m.Inferred, "num_hidden_layers: transformers' llama class default 32") {
		t.Errorf("inferred %q", m.Inferred)
	}
}

// EXAONE 3.5 names its layer count num_layers; SGLang's ExaoneConfig maps
// num_hidden_layers onto it.
func TestExaoneNumLayers(t *testing.T) {
	m, err := ParseModelConfig("EXAONE-3.5-7.8B-Instruct", []byte(`{"architectures": ["ExaoneForCausalLM"], "model_type": "exaone",
	 "head_dim": 128, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "num_layers": 32,
	 "max_position_embeddings": 32768, "torch_dtype": "float32"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "layers", m.Layers, 32)
	expect(t, "kv heads", m.KVHeads, 8)
}

// Falcon reads the old n_embed key as hidden_size, and num_kv_heads
// defaults to the head count.
func TestFalconConfig(t *testing.T) {
	m, err := ParseModelConfig("falcon", []byte(`{"model_type": "falcon", "n_embed": 8192, "num_hidden_layers": 60,
	 "num_attention_heads": 128, "num_kv_heads": 8, "new_decoder_architecture": true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "hidden", m.HiddenSize, 8192)
	expect(t, "head_dim", m.headDim(), 64)
	expect(t, "kv heads", m.KVHeads, 8)
	expect(t, "context (class default)", m.ContextValue, int64(2048))
}

// A draft path a launch file names is looked at only inside the checked
// paths: a config.json beside the file but outside them is not even
// probed for existence (the draft stays unresolved, with no mention of
// what lies outside).
func TestDraftPathConfined(t *testing.T) {
	root := t.TempDir()
	checked := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(root, "draft"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 1, "hidden_size": 4096,
 "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "torch_dtype": "bfloat16"}`
	if err := os.WriteFile(filepath.Join(root, "draft", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "../draft")
	s.Span.File = filepath.Join(checked, "serve.sh")
	est := EstimateServer(s, Options{FS: confined.New([]string{checked})})
	if containsText(est.Assumptions, filepath.Join(checked, "../draft")) || containsText(est.Assumptions, "outside the checked paths") {
		t.Errorf("the draft outside the checked paths was probed:\n%s", strings.Join(est.Assumptions, "\n"))
	}
	if got := deref(est.CellBytesPerToken); got != int64(131072) {
		t.Errorf("cell %v: an unresolved draft must not grow it", got)
	}
}
