package capacity

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// vllmServer builds a vLLM server as the engine parses it (see server).
func vllmServer(model, gpu string, args ...string) *deploy.Server {
	return parsedServer(engine.VLLMServer, model, gpu, args...)
}

// The expected numbers were computed independently with vLLM's arithmetic in
// Python: requested = math.ceil(CUDA total × utilization) (request_memory,
// CUDA total = memory.total − 0.45 GiB), available = requested − weights −
// (activation 0.75 MiB × batched tokens + non-torch 0.2 GiB + CUDA graphs 1.3
// GiB at 8,192 batched tokens, 0.1 GiB at 2,048), page = block_size × per-token bytes of a
// layer, blocks = available // page // layers (get_num_blocks), needed =
// layers × page × cdiv(max_model_len, block_size), and the estimate
// available // (page × layers) × block_size; memory.total is the catalog's
// nvidia-smi figure (H100 81,559 MiB, L4 23,034 MiB) and the weights
// parameters × 2 bytes split evenly over TP.
func TestVLLMPool(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		gpu    string
		args   []string
		budget int64
		cell   int64
		ctx    int64
		pool   any
		full   any
		err    string // the startup error, "" when vLLM starts
	}{
		{
			name: "Llama-3.1-8B on H100, defaults", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "H100-SXM-80GB",
			budget: 54121029894, cell: 131072, ctx: 131072, pool: int64(412896), full: int64(3),
		},
		{
			name: "Llama-3.1-70B on two H100s: the runtime leaves no memory for the cache", model: "meta-llama/Llama-3.1-70B-Instruct", gpu: "H100-SXM-80GB",
			args:   []string{"--tensor-parallel-size", "2"},
			budget: -372154106, cell: 163840, ctx: 131072, pool: nil, full: nil,
			err: "ValueError: No available memory for the cache blocks.",
		},
		{
			name: "Llama-3.1-70B on four H100s, 32K context, utilization 0.9", model: "meta-llama/Llama-3.1-70B-Instruct", gpu: "H100-SXM-80GB",
			args:   []string{"--tensor-parallel-size", "4", "--gpu-memory-utilization", "0.9", "--max-model-len", "32K"},
			budget: 33203946619, cell: 81920, ctx: 32768, pool: int64(405312), full: int64(12),
		},
		{
			name: "--kv-cache-memory-bytes ignores the utilization", model: "meta-llama/Llama-3.1-70B-Instruct", gpu: "H100-SXM-80GB",
			args:   []string{"-tp-ignored", "", "--tensor-parallel-size", "2", "--kv-cache-memory-bytes", "8G", "--gpu-memory-utilization", "0.5"},
			budget: 8 << 30, cell: 163840, ctx: 131072, pool: nil, full: nil,
			err: "(20.00 GiB KV cache is needed, which is larger than the available KV cache memory (8.00 GiB). Based on the available memory, the estimated maximum model length is 52416.",
		},
		{
			name: "Llama-3.1-8B on an L4", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "L4",
			args:   []string{"--max-model-len", "128K"},
			budget: 3782880723, cell: 131072, ctx: 131072,
			err: "max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.52 GiB). Based on the available memory, the estimated maximum model length is 28848.",
		},
		{
			name: "fp8 KV halves the page", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "L4",
			args:   []string{"--kv-cache-dtype", "fp8"},
			budget: 3782880723, cell: 65536, ctx: 131072,
			err: "(8.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.52 GiB). Based on the available memory, the estimated maximum model length is 57712.",
		},
		{
			name: "auto-fit max_model_len", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "L4",
			args:   []string{"--max-model-len", "auto"},
			budget: 3782880723, cell: 131072, ctx: 28848, pool: int64(28848), full: int64(1),
		},
		{
			// 1000 blocks × 16 tokens: the check plans with the override,
			// not the profiled memory (get_kv_cache_configs), so no GPU is needed.
			name: "--num-gpu-blocks-override", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "",
			args:   []string{"--num-gpu-blocks-override", "1000"},
			budget: 1000 * 16 * 4096 * 32, cell: 131072, ctx: 131072,
			err: "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory (1.95 GiB). Based on the available memory, the estimated maximum model length is 16000.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if len(args) > 0 && args[0] == "-tp-ignored" {
				args = args[2:]
			}
			est := EstimateServer(vllmServer(tt.model, tt.gpu, args...), Options{})
			got := []any{deref(est.KVBudgetBytes), deref(est.CellBytesPerToken), deref(est.ContextLength), deref(est.PoolTokens), deref(est.FullContextRequests)}
			want := []any{tt.budget, tt.cell, tt.ctx, tt.pool, tt.full}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("budget, cell, ctx, pool, full = %v, want %v\nderivation: %s\nassumptions: %s", got, want, strings.Join(est.Derivation, "\n  "), strings.Join(est.Assumptions, "\n  "))
					break
				}
			}
			if !strings.Contains(est.StartupError, tt.err) || (tt.err == "") != (est.StartupError == "") {
				t.Errorf("startup error %q, want %q", est.StartupError, tt.err)
			}
			if est.Engine != deploy.EngineVLLM || est.PageSize != 16 {
				t.Errorf("engine %s page %d", est.Engine, est.PageSize)
			}
		})
	}
}

func TestVLLMEstimateDetails(t *testing.T) {
	est := EstimateServer(vllmServer("meta-llama/Llama-3.1-8B-Instruct", "H100-SXM-80GB"), Options{})
	if est.MemFractionStatic == nil || *est.MemFractionStatic != 0.92 || !containsText(est.Assumptions, "older releases default to 0.9") {
		t.Errorf("default utilization: %v %q", est.MemFractionStatic, est.Assumptions)
	}
	if est.ContextSource != "model" || deref(est.MaxRequestTokens) != int64(131072) || est.KVDtype != "bfloat16" {
		t.Errorf("ctx source %q max request %v kv %q", est.ContextSource, deref(est.MaxRequestTokens), est.KVDtype)
	}
	if !containsText(est.Derivation, "FullAttentionSpec") || !containsText(est.Assumptions, "activation peak") {
		t.Errorf("derivation %q", est.Derivation)
	}

	// vLLM reads 32k as 32,000 and 32K as 32,768.
	est = EstimateServer(vllmServer("meta-llama/Llama-3.1-8B-Instruct", "H100-SXM-80GB", "--max-model-len", "32k"), Options{})
	if deref(est.ContextLength) != int64(32000) || est.ContextSource != "flag" {
		t.Errorf("32k = %v (%s)", deref(est.ContextLength), est.ContextSource)
	}

	// Placeholders are never read.
	s := vllmServer("meta-llama/Llama-3.1-8B-Instruct", "H100-SXM-80GB")
	s.Args["--gpu-memory-utilization"] = deploy.Unknown("{{ .Values.util }}", deploy.Span{File: "v.yaml", Line: 3, Col: 1, EndLine: 3, EndCol: 19})
	s.Args["--max-model-len"] = deploy.Unknown("$LEN", deploy.Span{File: "v.yaml", Line: 4, Col: 1, EndLine: 4, EndCol: 5})
	est = EstimateServer(s, Options{})
	if est.PoolTokens != nil || est.ContextLength != nil || est.KVBudgetBytes != nil || est.StartupError != "" {
		t.Errorf("placeholders read: %+v", est)
	}

	// MLA: one latent per token and layer, not split over TP.
	est = EstimateServer(vllmServer("deepseek-ai/DeepSeek-V3", "H200", "--tensor-parallel-size", "8"), Options{})
	if deref(est.CellBytesPerToken) != int64((512+64)*2*61) || deref(est.ContextLength) != int64(163840) {
		t.Errorf("DeepSeek-V3 cell %v ctx %v", deref(est.CellBytesPerToken), deref(est.ContextLength))
	}
	est = EstimateServer(vllmServer("deepseek-ai/DeepSeek-V3", "H200", "--tensor-parallel-size", "8", "--kv-cache-dtype", "fp8_ds_mla"), Options{})
	if deref(est.CellBytesPerToken) != int64(656*61) {
		t.Errorf("fp8_ds_mla cell %v", deref(est.CellBytesPerToken))
	}

	// Sliding-window and full layers mixed: the hybrid manager sizes the
	// cache by group (vllm_hybrid_test.go has the worked examples), and
	// holds more full-length requests than with every layer in full.
	hyb := EstimateServer(vllmServer("openai/gpt-oss-20b", "H100-SXM-80GB"), Options{})
	full := EstimateServer(vllmServer("openai/gpt-oss-20b", "H100-SXM-80GB", "--disable-hybrid-kv-cache-manager", ""), Options{})
	if hyb.FullContextRequests == nil || full.FullContextRequests == nil || *hyb.FullContextRequests <= *full.FullContextRequests {
		t.Errorf("gpt-oss: %v full-length requests with the hybrid manager, %v without", deref(hyb.FullContextRequests), deref(full.FullContextRequests))
	}

	// Unknown model, unknown GPU: nothing sized, the missing inputs named.
	est = EstimateServer(vllmServer("", "", "--tensor-parallel-size", "2", "--num-gpu-blocks-override", "512"), Options{})
	if est.PoolTokens != nil || deref(est.PoolUpperBound) != int64(512*16) || est.TP != 2 || !slices.Contains(est.Missing, "model") {
		t.Errorf("nothing known: %+v", est)
	}
}

func TestVLLMDerivedMaxLen(t *testing.T) {
	tests := []struct {
		name string
		m    Model
		swa  bool
		want int64
	}{
		{"no key", Model{}, false, 2048},
		{"plain", Model{ContextKey: "max_position_embeddings", ContextValue: 32768}, false, 32768},
		{"llama3 factor not applied", Model{ContextKey: "max_position_embeddings", ContextValue: 131072, RopeScaling: &RopeScaling{RopeType: "llama3", Factor: 8, HasOriginalMax: true, OriginalMax: 8192}}, false, 131072},
		// SGLang ignores the factor when original_max_position_embeddings
		// is present; vLLM multiplies it for yarn.
		{"yarn scales the original", Model{ContextKey: "max_position_embeddings", ContextValue: 32768, RopeScaling: &RopeScaling{Type: "yarn", Factor: 4, HasOriginalMax: true, OriginalMax: 32768}}, false, 131072},
		{"linear factor", Model{ContextKey: "max_position_embeddings", ContextValue: 4096, RopeScaling: &RopeScaling{Type: "linear", Factor: 2}}, false, 8192},
		{"gemma3 is already scaled", Model{ModelType: "gemma3_text", ContextKey: "max_position_embeddings", ContextValue: 131072, RopeScaling: &RopeScaling{RopeType: "linear", Factor: 8}}, false, 131072},
		{"--disable-sliding-window", Model{ContextKey: "max_position_embeddings", ContextValue: 32768, SlidingWindow: 4096}, true, 4096},
	}
	for _, tt := range tests {
		got, _, ok := vllmDerivedMaxLen(&tt.m, tt.swa)
		if !ok || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.name, got, ok, tt.want)
		}
	}
	if _, _, ok := vllmDerivedMaxLen(&Model{ContextUnstated: true}, false); ok {
		t.Errorf("an unstated context length is known")
	}
}

func TestVLLMPPSplit(t *testing.T) {
	tests := []struct {
		layers, pp int
		want       []int
	}{
		{32, 1, []int{32}},
		{32, 2, []int{16, 16}},
		{32, 3, []int{11, 11, 10}},
		{61, 4, []int{15, 15, 16, 15}},
		{80, 6, []int{13, 13, 13, 14, 14, 13}}, // partitions[-2] and [-3] get the two extra layers
	}
	for _, tt := range tests {
		if got := vllmPPSplit(tt.layers, tt.pp); !slices.Equal(got, tt.want) {
			t.Errorf("vllmPPSplit(%d, %d) = %v, want %v", tt.layers, tt.pp, got, tt.want)
		}
	}
}

// FuzzVLLMEstimate sizes vLLM's cache for arbitrary configs and flag values:
// the estimator must not fail, and what it reports must be coherent.
func FuzzVLLMEstimate(f *testing.F) {
	f.Add([]byte(`{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}`), "4", "2", "16", "128K", "0.9", "")
	f.Add([]byte(`{"architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 3, "num_attention_heads": 2, "hidden_size": 8, "kv_lora_rank": 4, "qk_rope_head_dim": 2, "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096}}`), "8", "3", "64", "auto", "1", "7")
	f.Add([]byte(`{"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 0, "head_dim": 4, "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 64}`), "1", "1", "1", "1.5K", "0", "-1")
	f.Fuzz(func(t *testing.T, data []byte, tp, pp, block, maxLen, util, override string) {
		m, err := parseModelConfig("config.json", data)
		if err != nil {
			return
		}
		m.ID, m.Source = "fuzz/model", "fuzz"
		cat := &Catalog{models: []Model{*m}, byID: map[string]int{"fuzz/model": 0}, byLast: map[string][]int{}, gpus: Default().gpus, gpuKeys: Default().gpuKeys}
		args := []string{"--tensor-parallel-size", tp, "--pipeline-parallel-size", pp, "--block-size", block, "--max-model-len", maxLen, "--gpu-memory-utilization", util}
		if override != "" {
			args = append(args, "--num-gpu-blocks-override", override)
		}
		est := EstimateServer(vllmServer("fuzz/model", "H100", args...), Options{Catalog: cat})
		if containsText(est.Assumptions, "internal error") {
			t.Fatalf("estimator failed: %q", est.Assumptions)
		}
		if est.PoolTokens != nil && (*est.PoolTokens < 0 || est.StartupError != "") {
			t.Fatalf("pool %d with startup error %q", *est.PoolTokens, est.StartupError)
		}
		if est.PoolTokens != nil && est.ContextLength != nil && *est.ContextLength > *est.PoolTokens {
			t.Fatalf("vLLM started with a pool of %d below max_model_len %d", *est.PoolTokens, *est.ContextLength)
		}
	})
}

// V1 releases before v0.21.0 capture CUDA graphs after sizing the cache:
// a server pinned to one gets the graphs' 1.3 GiB (H100, 8,192 batched
// tokens) back in its cache; from v0.21.0, and for an unknown release
// (sized as main), they come out of it.
func TestVLLMCUDAGraphsOutsideBefore021(t *testing.T) {
	budget := func(version string) int64 {
		s := vllmServer("Qwen/Qwen3-8B", "H100", "--gpu-memory-utilization", "0.9")
		if version != "" {
			s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: version, Source: "test"}
		}
		est := EstimateServer(s, Options{})
		if est.KVBudgetBytes == nil {
			t.Fatalf("v%q: no budget: %q", version, est.Assumptions)
		}
		return *est.KVBudgetBytes
	}
	old, cur, unknown := budget("0.10.0"), budget("0.21.0"), budget("")
	graphs := int64(vllmCUDAGraphGiB(8192) * gib)
	if d := old - cur; d < graphs-1 || d > graphs+1 {
		t.Errorf("v0.10.0 − v0.21.0 = %d B, want the graphs' %d B", d, graphs)
	}
	if unknown != cur {
		t.Errorf("unknown release %d B, v0.21.0 %d B", unknown, cur)
	}
}
