package capacity

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/diag"
)

func TestReadModelConfig(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, m *Model)
	}{
		{"configs/dense-gqa.json", func(t *testing.T, m *Model) {
			expect(t, "layers", m.Layers, 32)
			expect(t, "kv heads", m.KVHeads, 8)
			expect(t, "head_dim", m.headDim(), 128)
			expect(t, "dtype", m.Dtype, "bfloat16")
			expect(t, "context key", m.ContextKey, "max_position_embeddings")
			ctx, _, _ := derivedContextLength(m)
			expect(t, "context (llama3 rope: no factor)", ctx, int64(131072))
			expect(t, "MLA", m.isMLA(), false)
			expect(t, "weights unknown", m.WeightsBytes, int64(0))
		}},
		{"configs/multimodal.json", func(t *testing.T, m *Model) {
			// text_config wins; it inherits the parent's dtype.
			expect(t, "layers", m.Layers, 34)
			expect(t, "kv heads", m.KVHeads, 4)
			expect(t, "head_dim", m.headDim(), 256)
			expect(t, "dtype", m.Dtype, "bfloat16")
			expect(t, "model type", m.ModelType, "gemma3_text")
			expect(t, "sliding window", m.SlidingWindow, 1024)
			expect(t, "swa/full", [2]int{m.SWALayers, m.FullLayers}, [2]int{29, 5})
			ctx, _, _ := derivedContextLength(m)
			expect(t, "context × linear factor", ctx, int64(1048576))
			expect(t, "multimodal", m.isMultimodal(), true)
			expect(t, "vision", [2]int{m.VisionLayers, m.VisionHidden}, [2]int{27, 1152})
		}},
		{"configs/mla-fp8.json", func(t *testing.T, m *Model) {
			expect(t, "MLA", m.isMLA(), true)
			expect(t, "latent", m.KVLoraRank+m.QKRopeHeadDim, 576)
			expect(t, "quant", m.Quant.Method, "fp8")
			expect(t, "scope", m.Quant.Scope, "linear")
			expect(t, "nextn", m.NextNLayers, 1)
			ctx, _, _ := derivedContextLength(m)
			expect(t, "context (original_max_position_embeddings: no factor)", ctx, int64(163840))
		}},
		{"configs/sliding-window.json", func(t *testing.T, m *Model) {
			expect(t, "hybrid", m.isHybridSWAModel(), true)
			expect(t, "swa/full", [2]int{m.SWALayers, m.FullLayers}, [2]int{2, 2})
			expect(t, "quant", m.Quant.Method, "mxfp4")
			expect(t, "experts", [2]int{m.Experts, m.ExpertsPerToken}, [2]int{32, 4})
			expect(t, "dtype unstated", m.Dtype, "")
		}},
		{"configs/modelopt-flat.json", func(t *testing.T, m *Model) {
			expect(t, "quant", m.Quant.Method, "modelopt_fp8")
			expect(t, "kv quant from kv_cache_scheme", m.Quant.KVCacheQuantAlgo, "FP8")
			expect(t, "null rope_scaling", m.RopeScaling == nil, true)
		}},
		{"configs/linear-hybrid.json", func(t *testing.T, m *Model) {
			expect(t, "unsupported", strings.Contains(m.Unsupported, "linear-attention"), true)
		}},
		{"configs/llm-config.json", func(t *testing.T, m *Model) {
			// llm_config comes before text_config (get_hf_text_config).
			expect(t, "layers", m.Layers, 28)
			ctx, _, _ := derivedContextLength(m)
			expect(t, "context × dynamic factor", ctx, int64(65536))
		}},
		{"configs/mqa-no-keys.json", func(t *testing.T, m *Model) {
			expect(t, "multi_query → 1 KV head", m.KVHeads, 1)
			ctx, how, _ := derivedContextLength(m)
			expect(t, "fallback context", ctx, int64(2048))
			expect(t, "fallback explained", strings.Contains(how, "fallback 2048"), true)
		}},
		{"models/modelopt-fp8", func(t *testing.T, m *Model) {
			expect(t, "hf_quant_config", m.Quant.Method, "modelopt_fp8")
			expect(t, "kv quant", m.Quant.KVCacheQuantAlgo, "FP8")
			expect(t, "id is the path", m.ID, filepath.Join("testdata", "models/modelopt-fp8"))
		}},
		{"models/tiny-llama", func(t *testing.T, m *Model) {
			expect(t, "total_size", m.WeightsBytes, int64(2000000000))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m, err := ReadModelConfig(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, m)
		})
	}
}

func expect[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestReadModelConfigErrors(t *testing.T) {
	tests := []struct {
		file      string
		line, col int
		message   string
	}{
		// The missing comma after 4096: the decoder stops at the next key.
		{"configs/bad-syntax.json", 5, 3, "invalid JSON"},
		{"configs/bad-type.json", 5, 24, `num_hidden_layers: must be a number, not the string "32"`},
		{"configs/not-a-model.json", 0, 0, "has no num_hidden_layers"},
		{"configs/absent.json", 0, 0, "cannot read the model config"},
		{"models", 0, 0, "cannot read the model config"}, // a directory without config.json
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := ReadModelConfig(filepath.Join("testdata", tt.file))
			var de *diag.Diagnostic
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T), want *diag.Diagnostic", err, err)
			}
			if !strings.Contains(de.Span.File, "testdata") || de.Span.Line != tt.line || de.Span.Col != tt.col || !strings.Contains(de.Message, tt.message) {
				t.Errorf("error at %s:%d:%d %q; want line %d col %d containing %q", de.Span.File, de.Span.Line, de.Span.Col, de.Message, tt.line, tt.col, tt.message)
			}
		})
	}
}

func TestParseModelConfigPositions(t *testing.T) {
	tests := []struct {
		data      string
		line, col int
	}{
		{"[1, 2]", 1, 1},
		{"  \n  {} {}", 2, 6},
		{"{\"num_hidden_layers\": 1e400}", 1, 23},
		{"{\"text_config\": {\"num_hidden_layers\": -3}}", 1, 39},
		{"{\"a\": [1, {\"b\": 2}], \"rope_scaling\": {\"factor\": \"x\"}, \"num_hidden_layers\": 1, \"num_attention_heads\": 1, \"hidden_size\": 1}", 1, 49},
		{"{\n\t\"architectures\": \"Llama\"}", 2, 19},
		{"{\"x\": \"\\\"}\", \"num_hidden_layers\": true}", 1, 35},
		{"{", 1, 2},
	}
	for _, tt := range tests {
		_, err := parseModelConfig("c.json", []byte(tt.data))
		var de *diag.Diagnostic
		if !errors.As(err, &de) {
			t.Errorf("%q: error %v", tt.data, err)
			continue
		}
		if de.Span.Line != tt.line || de.Span.Col != tt.col {
			t.Errorf("%q: error at %d:%d (%s), want %d:%d", tt.data, de.Span.Line, de.Span.Col, de.Message, tt.line, tt.col)
		}
	}
}

// FuzzReadModelConfig feeds arbitrary config.json text to the parser: it must
// never panic, every error must be a *diag.Diagnostic naming the file with a
// position inside it (or none), and every model it accepts must be one the
// estimator can run on without panicking.
func FuzzReadModelConfig(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "configs", "*.json"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 8, "layer_types": ["sliding_attention", 3]}`))
	f.Add([]byte(`{"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 0, "head_dim": 4, "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 65536}`))
	// Configs whose parameters are counted from their shapes.
	f.Add([]byte(gemma2_9b))
	f.Add([]byte(`{"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 16, "num_hidden_layers": 4,
 "num_attention_heads": 2, "vocab_size": 10, "num_local_experts": 4, "intermediate_size": 8, "intermediate_size_mlp": 32,
 "interleave_moe_layer_step": 2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseModelConfig("config.json", data)
		if err != nil {
			var de *diag.Diagnostic
			if !errors.As(err, &de) || de.Span.File != "config.json" {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
			if de.Span.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error line %d is past the end", de.Span.Line)
			}
			return
		}
		est := estimateFor(m)
		if containsText(est.Assumptions, "internal error") {
			t.Fatalf("estimator failed on an accepted config: %q", est.Assumptions)
		}
	})
}

// estimateFor runs the estimator on a parsed model through a catalog that
// holds only it.
func estimateFor(m *Model) Estimate {
	m.ID, m.Source = "fuzz/model", "fuzz"
	cat := &Catalog{models: []Model{*m}, byID: map[string]int{"fuzz/model": 0}, byLast: map[string][]int{}, gpus: Default().gpus, gpuKeys: Default().gpuKeys}
	return EstimateServer(server("fuzz/model", "H100", "--tp-size", "2", "--pp-size", "2"), Options{Catalog: cat})
}

// GPT-2's config names its shapes n_layer/n_head/n_embd/n_positions, which
// transformers maps to the standard attribute names.
func TestReadModelConfigGPT2AttributeMap(t *testing.T) {
	m, err := ReadModelConfig("testdata/configs/gpt2.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Layers != 12 || m.Heads != 12 || m.HiddenSize != 768 || m.KVHeads != 12 || m.headDim() != 64 {
		t.Errorf("layers %d heads %d hidden %d kv %d head_dim %d", m.Layers, m.Heads, m.HiddenSize, m.KVHeads, m.headDim())
	}
	if m.ContextKey != "max_position_embeddings" || m.ContextValue != 1024 {
		t.Errorf("context %s=%d, want n_positions 1024", m.ContextKey, m.ContextValue)
	}
}

// TestReadChunkedAttention pins which Llama 4 layers vLLM keeps as chunked
// local attention: transformers' defaults (a NoPE layer every 4th), an
// explicit no_rope_layers list, and a null attention_chunk_size (no
// chunking at all).
func TestReadChunkedAttention(t *testing.T) {
	tests := []struct {
		name          string
		text          string
		chunk, layers int
	}{
		{"defaults", `"attention_chunk_size": 8192`, 8192, 36},
		{"chunk size omitted", `"num_key_value_heads": 8`, 8192, 36},
		{"interval 3", `"attention_chunk_size": 4096, "no_rope_layer_interval": 3`, 4096, 32},
		{"explicit list", `"no_rope_layers": [1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0]`, 8192, 24},
		{"empty list means the default", `"no_rope_layers": []`, 8192, 36},
		{"null chunk size", `"attention_chunk_size": null`, 0, 0},
		{"list shorter than the layers", `"no_rope_layers": [1, 0]`, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := `{"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4", "text_config": {"model_type": "llama4_text",
				"num_hidden_layers": 48, "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, ` + tt.text + `}}`
			m, err := ParseModelConfig("llama4", []byte(cfg), nil)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, "chunk, chunked layers", [2]int{m.AttentionChunkSize, m.ChunkedLayers}, [2]int{tt.chunk, tt.layers})
		})
	}
	m, err := ParseModelConfig("llama3", []byte(`{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "attention_chunk_size": 8192}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "not Llama 4", [2]int{m.AttentionChunkSize, m.ChunkedLayers}, [2]int{0, 0})
	cat := Default()
	for _, id := range []string{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"} {
		m, ok := cat.Model(id)
		if !ok {
			t.Fatalf("%s not in the catalog", id)
		}
		expect(t, id, [2]int{m.AttentionChunkSize, m.ChunkedLayers}, [2]int{8192, 36})
	}
}
