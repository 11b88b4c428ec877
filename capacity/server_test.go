package capacity

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// Pools end to end. The expected numbers were computed independently with
// SGLang's own Python arithmetic: avail = pre − weights (GiB floats),
// rest = avail − pre × (1 − mem_fraction_static), bytes = int(rest × 2^30)
// (kv_cache_configurator.py _profile_available_bytes), tokens = bytes // cell
// aligned to the page (pool_configurator.py calculate_pool_sizes), with
// pre = nvidia-smi memory.total and the weights from the catalog's
// parameter counts.
// The budgets were recomputed in Python with the engine's arithmetic:
// pre = memory.total − the start-up gap (0.81 GiB, 3.11 GiB at TP8), budget =
// (pre − weights − 0.3 GiB load buffers) − pre × (1 − mem_fraction_static).
func TestPoolEndToEnd(t *testing.T) {
	tests := []struct {
		name    string
		model   string
		gpu     string
		args    []string
		budget  int64
		pool    int64
		maxReq  int64
		fullCtx int64
		swa     any
		weights int64
	}{
		{
			// 8,030,261,248 params × 2 B; mem_fraction_static 0.830.
			name: "Llama-3.1-8B on H100, defaults", model: "meta-llama/Llama-3.1-8B-Instruct", gpu: "NVIDIA-H100-80GB-HBM3",
			weights: 16060522496, budget: 53877750615, pool: 411054, maxReq: 131071, fullCtx: 3, swa: nil,
		},
		{
			// 70,553,706,496 × 2 / 8 per GPU; mem_fraction_static 0.893.
			name: "Llama-3.1-70B on H200 TP8", model: "meta-llama/Llama-3.1-70B-Instruct", gpu: "nvidia-h200-141gb",
			args:    []string{"--tp-size", "8"},
			weights: 17638426624, budget: 113678600614, pool: 2775356, maxReq: 131071, fullCtx: 21, swa: nil,
		},
		{
			// FP8 linear layers at 1 B, embeddings and lm_head bf16, over 8
			// GPUs; MLA cell 70,272; mem_fraction_static 0.897; context
			// 163,840 (yarn factor not applied: original_max_position_embeddings).
			name: "DeepSeek-V3 on H200 TP8", model: "deepseek-ai/DeepSeek-V3", gpu: "H200",
			args:    []string{"--tp-size", "8"},
			weights: 84109972160, budget: 47796704125, pool: 680167, maxReq: 163839, fullCtx: 4, swa: nil,
		},
		{
			// MXFP4 experts at 4.25 bits, the rest bf16; hybrid SWA cell
			// 66,355.2 with Python float floor division; SWA pool = int(full × 0.8).
			name: "gpt-oss-120b on H100", model: "openai/gpt-oss-120b", gpu: "H100-80GB",
			weights: 65190340224, budget: 4747932887, pool: 71553, maxReq: 71552, fullCtx: 0, swa: int64(57242),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, tt.gpu, tt.args...), Options{})
			got := []any{deref(est.WeightsBytesPerGPU), deref(est.KVBudgetBytes), deref(est.PoolTokens), deref(est.MaxRequestTokens), deref(est.FullContextRequests), deref(est.SWAPoolTokens)}
			want := []any{tt.weights, tt.budget, tt.pool, tt.maxReq, tt.fullCtx, tt.swa}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("weights, budget, pool, max request, full-context requests, SWA pool = %v\nwant %v\nassumptions %q\nderivation %q", got, want, est.Assumptions, est.Derivation)
					break
				}
			}
			if est.StartupError != "" || len(est.Missing) != 0 {
				t.Errorf("startup error %q, missing %q", est.StartupError, est.Missing)
			}
		})
	}
}

// The incident: a PD decode server whose --max-total-tokens, copied from a
// 4K-token load test, caps the pool below the 128K context it advertises.
func TestIncidentDecodePool(t *testing.T) {
	s := server("meta-llama/Llama-3.1-70B-Instruct", "NVIDIA-H100-80GB-HBM3",
		"--tp-size", "8", "--context-length", "131072", "--max-total-tokens", "65536",
		"--max-running-requests", "64", "--disaggregation-mode", "decode", "--page-size", "64")
	est := EstimateServer(s, Options{})
	if deref(est.PoolTokens) != int64(65536) || deref(est.PoolUpperBound) != int64(65536) {
		t.Fatalf("pool %v, bound %v; derivation %q", deref(est.PoolTokens), deref(est.PoolUpperBound), est.Derivation)
	}
	if deref(est.MaxRequestTokens) != int64(65535) || deref(est.FullContextRequests) != int64(0) || est.ContextSource != "flag" {
		t.Errorf("max request %v, full-context %v, context source %q", deref(est.MaxRequestTokens), deref(est.FullContextRequests), est.ContextSource)
	}
	if deref(est.MaxRunningRequests) != int64(64) || est.PageSize != 64 || *est.CellBytesPerToken != 40960 {
		t.Errorf("max running %v, page %d, cell %d", deref(est.MaxRunningRequests), est.PageSize, *est.CellBytesPerToken)
	}
	if !containsText(est.Derivation, "--max-total-tokens 65,536 caps the pool") {
		t.Errorf("derivation does not show the cap: %q", est.Derivation)
	}
}

func TestStartupErrors(t *testing.T) {
	tests := []struct {
		name  string
		model string
		gpu   string
		args  []string
		want  string
	}{
		// 141 GB of bf16 weights on one 80 GB GPU.
		{"weights exceed the GPU", "meta-llama/Llama-3.1-70B-Instruct", "H100", nil, "Loaded weights leave no GPU memory"},
		// 100 full tokens → SWA pool 80 ≤ window 128 + page 1.
		{"SWA pool below one window", "openai/gpt-oss-120b", "H100", []string{"--max-total-tokens", "100"}, "SWA pool (80 tokens) cannot hold even one request"},
		// A one-token pool: max_req_len = min(context − 1, 0).
		{"one-token pool", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--max-total-tokens", "1"}, "Memory pool size is too small"},
		{"dp attention tp not divisible", "deepseek-ai/DeepSeek-V3", "H200", []string{"--tp-size", "8", "--dp-size", "3", "--enable-dp-attention", ""}, "multiple of --dp-size"},
		{"fp4_e2m1 is deprecated", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--kv-cache-dtype", "fp4_e2m1"}, "deprecated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, tt.gpu, tt.args...), Options{})
			if !strings.Contains(est.StartupError, tt.want) {
				t.Errorf("startup error %q, want it to contain %q\n%q", est.StartupError, tt.want, est.Derivation)
			}
		})
	}
	est := EstimateServer(server("meta-llama/Llama-3.1-70B-Instruct", "H100"), Options{})
	if est.KVBudgetBytes == nil || *est.KVBudgetBytes > 0 || est.PoolTokens != nil {
		t.Errorf("weights > memory: budget %v, pool %v", deref(est.KVBudgetBytes), deref(est.PoolTokens))
	}
}

// PD decode with an explicit --max-running-requests sizes the SWA pool from
// the request cap (SWAChunkCapPoolConfigurator): window 128 + eviction
// interval 128 + page 1 + one page of decode = 258 tokens per request, × 64
// requests, no extra slots for 64 per worker.
func TestSWAChunkCapForPDDecode(t *testing.T) {
	est := EstimateServer(server("openai/gpt-oss-120b", "H200", "--disaggregation-mode", "decode", "--max-running-requests", "64"), Options{})
	if deref(est.SWAPoolTokens) != int64(258*64) {
		t.Fatalf("SWA pool %v, want %d\n%q", deref(est.SWAPoolTokens), 258*64, est.Derivation)
	}
	fixed := int64(258*64) * 2048 * 18
	if want := (*est.KVBudgetBytes - fixed) / (2048 * 18); deref(est.PoolTokens) != want {
		t.Errorf("full pool %v, want %d", deref(est.PoolTokens), want)
	}
}

// Unknown inputs leave pointers nil and say what to declare; an explicit
// --max-total-tokens still bounds the pool, page-aligned.
func TestUnknownModelOrGPU(t *testing.T) {
	est := EstimateServer(server("acme/secret-model", "H100", "--max-total-tokens", "100k", "--page-size", "64"), Options{})
	if est.PoolTokens != nil || est.CellBytesPerToken != nil || est.WeightsBytesPerGPU != nil {
		t.Errorf("unknown model: pool %v cell %v weights %v", deref(est.PoolTokens), deref(est.CellBytesPerToken), deref(est.WeightsBytesPerGPU))
	}
	if deref(est.PoolUpperBound) != int64(99968) {
		t.Errorf("bound %v, want 100000 aligned to 64 = 99968", deref(est.PoolUpperBound))
	}
	if len(est.Missing) != 1 || est.Missing[0] != "model" {
		t.Errorf("missing %q", est.Missing)
	}

	est = EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "", "--max-total-tokens", "32Ki"), Options{})
	if est.PoolTokens != nil || est.GPUMemoryBytes != nil || deref(est.PoolUpperBound) != int64(32768) {
		t.Errorf("unknown GPU: pool %v memory %v bound %v", deref(est.PoolTokens), deref(est.GPUMemoryBytes), deref(est.PoolUpperBound))
	}
	if len(est.Missing) != 1 || est.Missing[0] != "gpu" || *est.CellBytesPerToken != 131072 || *est.MemFractionStatic != 0.88 {
		t.Errorf("missing %q, cell %v, mem fraction %v", est.Missing, deref(est.CellBytesPerToken), est.MemFractionStatic)
	}

	est = EstimateServer(server("", "", "--tp-size", "4"), Options{})
	if est.TP != 4 || est.Model != "" || est.PoolTokens != nil || len(est.Missing) != 2 {
		t.Errorf("nothing known: %+v", est)
	}
	for _, gpu := range []string{"A100", "V100", "TPU-v5"} {
		est = EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", gpu), Options{})
		if est.GPU != "" || est.GPUMemoryBytes != nil || len(est.Missing) != 1 {
			t.Errorf("GPU %q: resolved to %q, missing %q", gpu, est.GPU, est.Missing)
		}
	}
	est = EstimateServer(nil, Options{})
	if len(est.Assumptions) == 0 || est.Assumptions == nil || est.Missing == nil || est.Derivation == nil {
		t.Errorf("nil server: %+v", est)
	}
	// vLLM servers are sized by estimateVLLM (vllm_test.go); with nothing
	// known they say what to declare.
	est = EstimateServer(&deploy.Server{Engine: deploy.EngineVLLM}, Options{})
	if est.Engine != deploy.EngineVLLM || est.PoolTokens != nil || len(est.Missing) != 2 {
		t.Errorf("vLLM server: %+v", est)
	}
}

// A placeholder is never parsed, even when its text looks like a number.
func TestPlaceholdersAreNeverParsed(t *testing.T) {
	unknown := func(raw string) deploy.Value {
		return deploy.Unknown(raw, deploy.Span{File: "values.yaml", Line: 7, Col: 9, EndLine: 7, EndCol: 9 + len(raw)})
	}
	tests := []struct {
		flag  string
		raw   string
		check func(e Estimate) bool
	}{
		{"--tp-size", "8", func(e Estimate) bool { return e.TP == 0 && e.CellBytesPerToken == nil && e.PoolTokens == nil }},
		{"--dp-size", "2", func(e Estimate) bool { return e.DP == 0 && e.PoolTokens == nil }},
		{"--pp-size", "2", func(e Estimate) bool { return e.PP == 0 && e.PoolTokens == nil }},
		{"--enable-dp-attention", "true", func(e Estimate) bool { return e.CellBytesPerToken == nil }},
		{"--max-total-tokens", "65536", func(e Estimate) bool {
			return e.PoolUpperBound == nil && e.PoolTokens == nil && e.CellBytesPerToken != nil
		}},
		{"--context-length", "32768", func(e Estimate) bool {
			return e.ContextLength == nil && e.ContextSource == "" && e.MaxRequestTokens == nil
		}},
		{"--page-size", "64", func(e Estimate) bool { return e.PageSize == 0 && e.PoolTokens == nil }},
		{"--mem-fraction-static", "0.9", func(e Estimate) bool { return e.MemFractionStatic == nil && e.PoolTokens == nil }},
		{"--kv-cache-dtype", "fp8_e4m3", func(e Estimate) bool { return e.KVDtype == "" && e.CellBytesPerToken == nil }},
		{"--dtype", "float32", func(e Estimate) bool { return e.KVDtype == "" && e.WeightsBytesPerGPU == nil }},
		{"--chunked-prefill-size", "4096", func(e Estimate) bool { return e.MemFractionStatic == nil }},
		{"--max-running-requests", "64", func(e Estimate) bool { return e.MaxRunningRequests == nil }},
		{"--swa-full-tokens-ratio", "0.5", func(e Estimate) bool { return e.CellBytesPerToken == nil }},
		{"--quantization", "fp8", func(e Estimate) bool { return e.WeightsBytesPerGPU == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			s := server("meta-llama/Llama-3.1-8B-Instruct", "H100")
			s.Args[tt.flag] = unknown(tt.raw)
			est := EstimateServer(s, Options{})
			if !tt.check(est) {
				t.Errorf("placeholder %s=%q was used: %+v", tt.flag, tt.raw, est)
			}
			if !containsText(est.Assumptions, tt.flag+" is \""+tt.raw+"\", which kvlint cannot resolve") || !containsText(est.Assumptions, "values.yaml:7:9") {
				t.Errorf("no assumption names the placeholder at its span: %q", est.Assumptions)
			}
		})
	}

	s := server("", "")
	s.Model = unknown("{{ .Values.model }}")
	s.GPU = unknown("${GPU}")
	s.GPUCount = unknown("8")
	est := EstimateServer(s, Options{})
	if est.Model != "" || est.GPU != "" || est.GPUCount != 0 || len(est.Missing) != 2 {
		t.Errorf("placeholder model/GPU/count used: %+v", est)
	}
}

func TestModelResolution(t *testing.T) {
	tests := []struct {
		name, model string
		want        string
		assumption  string
	}{
		{"id", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", ""},
		{"case-insensitive id", "META-LLAMA/llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct", ""},
		{"renamed repository", "meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "the same configuration under another name"},
		{"local path", "/models/Llama-3.1-8B-Instruct/", "meta-llama/Llama-3.1-8B-Instruct", "its last path component matches"},
		{"other repository", "unsloth/gpt-oss-20b", "openai/gpt-oss-20b", "its last path component matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, "NVIDIA-H100-80GB-HBM3"), Options{})
			if est.Model != tt.want {
				t.Fatalf("model %q, want %q", est.Model, tt.want)
			}
			if tt.assumption == "" && len(est.Assumptions) > 2 || tt.assumption != "" && !containsText(est.Assumptions, tt.assumption) {
				t.Errorf("assumptions %q", est.Assumptions)
			}
		})
	}
}

// A model declared in .kvlint.yaml: a local config.json directory (relative
// to BaseDir) whose safetensors index gives the checkpoint size, or a
// catalog id.
func TestModelConfigsOption(t *testing.T) {
	opt := Options{BaseDir: "testdata", ModelConfigs: map[string]string{
		"/mnt/models/tiny":  "models/tiny-llama",
		"/mnt/models/llama": "meta-llama/Llama-3.1-8B-Instruct",
		"/mnt/models/bad":   "models/does-not-exist",
	}}
	est := EstimateServer(server("/mnt/models/tiny", "L4"), opt)
	// tiny-llama: 4 KV heads × (64+64) × 8 layers × 2 B; weights
	// 2,000,000,000 B from model.safetensors.index.json.
	if deref(est.CellBytesPerToken) != int64(8192) || deref(est.WeightsBytesPerGPU) != int64(2000000000) || est.Model != "testdata/models/tiny-llama" {
		t.Fatalf("tiny: cell %v weights %v model %q\n%q\n%q", deref(est.CellBytesPerToken), deref(est.WeightsBytesPerGPU), est.Model, est.Assumptions, est.Derivation)
	}
	// max_position_embeddings 4096 × linear factor 2.
	if deref(est.ContextLength) != int64(8192) || est.PoolTokens == nil {
		t.Errorf("tiny: context %v pool %v", deref(est.ContextLength), deref(est.PoolTokens))
	}
	est = EstimateServer(server("/mnt/models/llama", "L4"), opt)
	if est.Model != "meta-llama/Llama-3.1-8B-Instruct" || !containsText(est.Assumptions, "as .kvlint.yaml declares") {
		t.Errorf("catalog mapping: %q %q", est.Model, est.Assumptions)
	}
	est = EstimateServer(server("/mnt/models/bad", "L4"), opt)
	if est.Model != "" || len(est.Missing) != 1 || !containsText(est.Assumptions, "does-not-exist") {
		t.Errorf("bad mapping: %q %q %q", est.Model, est.Missing, est.Assumptions)
	}
}

func TestGPUCountAgainstParallelism(t *testing.T) {
	count := func(n string) deploy.Value {
		return deploy.Known(n, deploy.Span{File: "pod.yaml", Line: 20, Col: 30, EndLine: 20, EndCol: 30 + len(n)})
	}
	// SGLang spans nodes only with --nnodes: tp 8 on 4 GPUs cannot start,
	// and no pool is sized.
	s := server("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tp-size", "8")
	s.GPUCount = count("4")
	est := EstimateServer(s, Options{})
	if est.GPUCount != 4 || !strings.Contains(est.StartupError, "needs tp 8 × pp 1 = 8 GPUs but the deployment gives it 4 per node (pod.yaml:20:30)") || est.StartupArg != "--tp-size" || est.PoolTokens != nil {
		t.Errorf("count %d, startup %q at %q, pool %v", est.GPUCount, est.StartupError, est.StartupArg, deref(est.PoolTokens))
	}
	s = server("moonshotai/Kimi-K2-Instruct", "H200", "--tp-size", "16", "--nnodes", "2")
	s.GPUCount = count("8")
	if est := EstimateServer(s, Options{}); containsText(est.Assumptions, "per node") || est.StartupError != "" {
		t.Errorf("tp 16 over 2 nodes of 8: %q %q", est.Assumptions, est.StartupError)
	}
	// Words kvlint cannot read may hold --nnodes: only an assumption.
	s = server("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tp-size", "8")
	s.GPUCount = count("4")
	s.Opaque = []deploy.Value{deploy.Unknown("$EXTRA", deploy.Span{File: "serve.sh", Line: 9, Col: 1, EndLine: 9, EndCol: 7})}
	if est := EstimateServer(s, Options{}); est.StartupError != "" || !containsText(est.Assumptions, "needs 8 per node") {
		t.Errorf("opaque: %q %q", est.StartupError, est.Assumptions)
	}

	// vLLM may span a Ray cluster no file shows: only an assumption.
	v := vllmServer("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tensor-parallel-size", "8")
	v.GPUCount = count("1")
	if est := EstimateServer(v, Options{}); est.StartupError != "" || !containsText(est.Assumptions, "needs 8 per node") {
		t.Errorf("vLLM, nodes unknown: %q %q", est.StartupError, est.Assumptions)
	}
	// A task of one node: the world does not fit.
	v.Nodes = deploy.Known("1", deploy.Span{})
	est = EstimateServer(v, Options{})
	if !strings.Contains(est.StartupError, `"World size (8) is larger than the number of available GPUs (1) in this node"`) || est.StartupArg != "--tensor-parallel-size" || est.PoolTokens != nil {
		t.Errorf("vLLM on one node: %q at %q", est.StartupError, est.StartupArg)
	}
	// tp 8 × pp 2 over num_nodes 2 of 8 GPUs fits.
	v = vllmServer("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tensor-parallel-size", "8", "--pipeline-parallel-size", "2")
	v.GPUCount = count("8")
	v.Nodes = deploy.Known("2", deploy.Span{File: "task.yaml", Line: 5, Col: 12, EndLine: 5, EndCol: 13})
	est = EstimateServer(v, Options{})
	if est.StartupError != "" || containsText(est.Assumptions, "per node (") || !containsText(est.Derivation, "over 2 nodes: 8 GPUs per node, and the server is given 8 (num_nodes at task.yaml:5:12") {
		t.Errorf("vLLM over 2 nodes: %q %q %q", est.StartupError, est.Assumptions, est.Derivation)
	}
	// tp 8 on a node of 8 GPUs fits on the node, num_nodes 2 or not: the
	// server spans no node and needs no Ray (each node may run its own).
	v = vllmServer("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tensor-parallel-size", "8")
	v.GPUCount = count("8")
	v.Nodes = deploy.Known("2", deploy.Span{File: "task.yaml", Line: 5, Col: 12, EndLine: 5, EndCol: 13})
	if est := EstimateServer(v, Options{}); est.StartupError != "" || containsText(est.Derivation, "over 2 nodes") || containsText(est.Assumptions, "only through Ray") {
		t.Errorf("vLLM tp 8 on 8 GPUs, 2 nodes: %q %q %q", est.StartupError, est.Assumptions, est.Derivation)
	}
	v = vllmServer("meta-llama/Llama-3.1-70B-Instruct", "H100", "--tensor-parallel-size", "8", "--pipeline-parallel-size", "2")
	v.Nodes = deploy.Known("2", deploy.Span{File: "task.yaml", Line: 5, Col: 12, EndLine: 5, EndCol: 13})
	// With 4 GPUs a node, the placement group cannot be placed.
	v.GPUCount = count("4")
	if est := EstimateServer(v, Options{}); !strings.Contains(est.StartupError, "over 2 nodes, 8 per node but the deployment gives it 4 per node") || !strings.Contains(est.StartupError, "placement group") {
		t.Errorf("vLLM short over 2 nodes: %q", est.StartupError)
	}
}

func TestInferredCatalogRows(t *testing.T) {
	est := EstimateServer(server("zai-org/GLM-4.5", "H200", "--tp-size", "8"), Options{})
	if est.KVDtype != "bfloat16" || !containsText(est.Assumptions, "bfloat16 assumed") || !containsText(est.Assumptions, "inferred") {
		t.Errorf("KV dtype %q, assumptions %q", est.KVDtype, est.Assumptions)
	}
	if est.ContextLength != nil || !containsText(est.Assumptions, "does not know the context length") {
		t.Errorf("context %v", deref(est.ContextLength))
	}
}

func TestArgParsing(t *testing.T) {
	est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100", "--context-length", "32k", "--max-total-tokens", "1_000", "--tp-size", " 1 "), Options{})
	if deref(est.ContextLength) != int64(32000) || deref(est.PoolUpperBound) != int64(1000) || est.TP != 1 {
		t.Errorf("context %v bound %v tp %d", deref(est.ContextLength), deref(est.PoolUpperBound), est.TP)
	}
	est = EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100", "--context-length", "32K", "--tp-size", "two"), Options{})
	if est.ContextLength != nil || est.TP != 0 || !containsText(est.Assumptions, "not a valid size") || !containsText(est.Assumptions, "not an integer") {
		t.Errorf("bad values were used: %+v", est)
	}
}

func TestContextLengthAboveTheModel(t *testing.T) {
	est := EstimateServer(server("Qwen/Qwen3-8B", "H100", "--context-length", "131072"), Options{})
	if deref(est.ContextLength) != int64(131072) || !containsText(est.Assumptions, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") {
		t.Errorf("context %v, assumptions %q", deref(est.ContextLength), est.Assumptions)
	}
}

func TestPageSizeDefaults(t *testing.T) {
	tests := []struct {
		name, model, gpu string
		args             []string
		want             int
	}{
		{"CUDA default", "meta-llama/Llama-3.1-8B-Instruct", "H100", nil, 1},
		{"explicit", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--page-size", "16"}, 16},
		// SM100 MHA default backend trtllm_mha needs 16, 32 or 64.
		{"Blackwell MHA", "meta-llama/Llama-3.1-8B-Instruct", "B200", nil, 64},
		{"Blackwell MHA explicit 32", "meta-llama/Llama-3.1-8B-Instruct", "B200", []string{"--page-size", "32"}, 32},
		{"Blackwell MHA with triton", "meta-llama/Llama-3.1-8B-Instruct", "B200", []string{"--attention-backend", "triton"}, 1},
		// DeepSeek V3 on SM100 defaults to trtllm_mla (32 or 64).
		{"Blackwell DeepSeek", "deepseek-ai/DeepSeek-V3", "B200", nil, 64},
		{"Hopper DeepSeek", "deepseek-ai/DeepSeek-V3", "H200", nil, 1},
		{"DSA", "deepseek-ai/DeepSeek-V3.2", "H200", nil, 64},
		{"flashmla", "deepseek-ai/DeepSeek-V3", "H200", []string{"--attention-backend", "flashmla"}, 64},
		{"cutlass_mla", "deepseek-ai/DeepSeek-V3", "B200", []string{"--attention-backend", "cutlass_mla", "--page-size", "64"}, 128},
		{"fa4 on Blackwell", "meta-llama/Llama-3.1-8B-Instruct", "B200", []string{"--attention-backend", "fa4"}, 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, tt.gpu, tt.args...), Options{})
			if est.PageSize != tt.want {
				t.Errorf("page size %d, want %d\n%q", est.PageSize, tt.want, est.Derivation)
			}
			if est.PoolTokens != nil && *est.PoolTokens%int64(tt.want) != 0 {
				t.Errorf("pool %d is not page-aligned", *est.PoolTokens)
			}
		})
	}
}

func TestKVDtypeResolution(t *testing.T) {
	tests := []struct {
		name, model, gpu string
		args             []string
		want             string
	}{
		{"auto bf16", "meta-llama/Llama-3.1-8B-Instruct", "H100", nil, "bfloat16"},
		{"auto with kv_cache_quant_algo FP8", "nvidia/Llama-3.1-70B-Instruct-FP8", "H100", nil, "fp8_e4m3"},
		{"FP8 weights, no KV quant", "Qwen/Qwen3-32B-FP8", "H100", nil, "bfloat16"},
		{"--dtype half", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--dtype", "half"}, "float16"},
		{"gpt-oss MXFP4 runs bf16", "openai/gpt-oss-20b", "H100", nil, "bfloat16"},
		{"no dtype in config → float16", "MiniMaxAI/MiniMax-M2.5", "H100", nil, "float16"},
		{"DSA on Hopper", "deepseek-ai/DeepSeek-V3.2", "H200", nil, "bfloat16"},
		{"DSA on Blackwell", "deepseek-ai/DeepSeek-V3.2", "B200", nil, "fp8_e4m3"},
		{"explicit bf16 alias", "nvidia/Llama-3.1-70B-Instruct-FP8", "H100", []string{"--kv-cache-dtype", "bf16"}, "bfloat16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, tt.gpu, tt.args...), Options{})
			if est.KVDtype != tt.want {
				t.Errorf("KV dtype %q, want %q\n%q", est.KVDtype, tt.want, est.Derivation)
			}
		})
	}
}

func TestWeightsPerGPU(t *testing.T) {
	m := catalogModel(t, "deepseek-ai/DeepSeek-V3")
	// DP attention replicates attention (11.41B params, FP8) and the
	// embedding over the 8 attention-DP ranks.
	plain, _, err := stageWeights(m, weightInput{TP: 8, PP: 1, AttnTP: 8, DtypeBytes: 2, Quant: m.Quant})
	if err != nil {
		t.Fatal(err)
	}
	dpa, _, _ := stageWeights(m, weightInput{TP: 8, PP: 1, AttnTP: 1, DPAttention: true, DtypeBytes: 2, Quant: m.Quant})
	embed := int64(m.VocabSize * m.HiddenSize)
	extra := float64(m.AttentionParams)*(1-1.0/8) + float64(embed)*2*(1-1.0/8)
	if diff := float64(dpa[0]-plain[0]) - extra; diff > 2 || diff < -2 {
		t.Errorf("DP attention adds %d B, want %.0f", dpa[0]-plain[0], extra)
	}
	// Online FP8 quantization of a bf16 checkpoint halves the linear layers.
	est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100", "--quantization", "fp8"), Options{})
	want := int64(float64(8030261248-2*525336576)*1 + 2*525336576*2)
	if got := deref(est.WeightsBytesPerGPU); got != want {
		t.Errorf("fp8 weights %v, want %d", got, want)
	}
	// Pipeline stages: embeddings on the first, lm_head on the last.
	pp, _, _ := stageWeights(catalogModel(t, "meta-llama/Llama-3.1-8B-Instruct"), weightInput{TP: 1, PP: 2, AttnTP: 1, DtypeBytes: 2})
	if pp[0]+pp[1] < 16060522496-2 || pp[0]+pp[1] > 16060522496+2 {
		t.Errorf("stages %v do not add up to the model", pp)
	}
}

// TestRejectedValuesKeepTheirAssumptions: a value the engine rejected, or a
// number beyond int64, has no typed value; the estimate says so in the same
// words as when capacity parsed flags itself, with the engine's reason.
func TestRejectedValuesKeepTheirAssumptions(t *testing.T) {
	est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100",
		"--context-length", "32K", "--max-total-tokens", "99999999999999999999", "--tp-size", "two",
		"--mem-fraction-static", "high"), Options{})
	for _, want := range []string{
		`--context-length "32K" is not a valid size (invalid integer value: '32K'; use a plain integer, SI suffixes (1k, 1M) or IEC suffixes (1Ki, 1Mi); suffixes are case-sensitive): its value is unknown`,
		`--max-total-tokens "99999999999999999999" is not a valid size ("99999999999999999999": out of the int64 range): its value is unknown`,
		`--tp-size "two" is not an integer (SGLang would refuse it): its value is unknown`,
		`--mem-fraction-static "high" is not a number: its value is unknown`,
	} {
		if !slices.Contains(est.Assumptions, want) {
			t.Errorf("no assumption %q in\n%q", want, est.Assumptions)
		}
	}
	est = EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100", "--cuda-graph-bs", "1 x"), Options{})
	if want := `--cuda-graph-bs-decode "1 x" is not a list of integers: its value is unknown`; !slices.Contains(est.Assumptions, want) {
		t.Errorf("no assumption %q in\n%q", want, est.Assumptions)
	}
}

// A model whose cache kvlint does not model (a hybrid linear-attention
// model) leaves the pool unsized with nothing to declare, for SGLang and
// vLLM alike: the estimate says why, for KV105 to report.
func TestUnsupportedModelNotSized(t *testing.T) {
	opt := Options{BaseDir: "testdata", ModelConfigs: map[string]string{"/mnt/models/hybrid": "configs/linear-hybrid.json"}}
	for _, s := range []*deploy.Server{server("/mnt/models/hybrid", "H100"), vllmServer("/mnt/models/hybrid", "H100")} {
		est := EstimateServer(s, opt)
		if est.PoolTokens != nil || len(est.Missing) != 0 || !strings.Contains(est.NotSized, "the engine keeps a recurrent-state pool beside the KV cache") {
			t.Errorf("%s: pool %v, missing %q, not sized %q", s.Engine, deref(est.PoolTokens), est.Missing, est.NotSized)
		}
		// An estimate With makes replays the model's notes: the reason
		// stays.
		if w, ok := est.WithGPU("A100-SXM4-80GB"); !ok || w.NotSized != est.NotSized {
			t.Errorf("%s: what-if not sized %q, want %q", s.Engine, w.NotSized, est.NotSized)
		}
	}
}
