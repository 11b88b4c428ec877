package capacity

import (
	"strings"
	"testing"
)

// variantCatalog is a small catalog of its own, so the rules are tested
// apart from the embedded rows: a base with 131,072 context and its
// -Instruct tune whose own config declares 32,768 (as Qwen2.5's do), and a
// ModelOpt checkpoint whose config states kv_cache_quant_algo FP8.
func variantCatalog(t *testing.T) *Catalog {
	t.Helper()
	models := `[
 {"id": "Qwen/Qwen2.5-32B", "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
  "num_hidden_layers": 64, "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
  "context_key": "max_position_embeddings", "context_value": 131072, "torch_dtype": "bfloat16",
  "params": 32763876352, "attention_params": 2684354560, "params_source": "test", "vocab_size": 152064,
  "source": "test base", "confidence": "config-read"},
 {"id": "Qwen/Qwen2.5-32B-Instruct", "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
  "num_hidden_layers": 64, "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8,
  "context_key": "max_position_embeddings", "context_value": 32768, "torch_dtype": "bfloat16",
  "params": 32763876352, "attention_params": 2684354560, "params_source": "test", "vocab_size": 152064,
  "source": "test instruct", "confidence": "config-read"},
 {"id": "meta-llama/Llama-3.1-8B", "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
  "context_key": "max_position_embeddings", "context_value": 131072, "torch_dtype": "bfloat16",
  "params": 8030261248, "attention_params": 1342177280, "params_source": "test", "vocab_size": 128256,
  "source": "test llama", "confidence": "config-read"},
 {"id": "nvidia/Llama-3.1-8B-Instruct-FP8", "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
  "context_key": "max_position_embeddings", "context_value": 131072, "torch_dtype": "bfloat16",
  "quantization": {"method": "modelopt_fp8", "kv_cache_quant_algo": "FP8", "scope": "linear", "bits_per_weight": 8},
  "params": 8030261248, "attention_params": 1342177280, "params_source": "test", "vocab_size": 128256,
  "source": "test modelopt", "confidence": "config-read"}
]`
	c, err := NewCatalog([]byte(models), gpusJSON)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func estimateWith(c *Catalog, model string, args ...string) Estimate {
	return EstimateServer(server(model, "H100-80GB", args...), Options{Catalog: c})
}

func hasAssumption(est Estimate, sub string) bool {
	for _, a := range est.Assumptions {
		if strings.Contains(a, sub) {
			return true
		}
	}
	return false
}

// The tune's own config wins: no rule is needed and none is reported.
func TestVariantOwnConfigWins(t *testing.T) {
	est := estimateWith(variantCatalog(t), "Qwen/Qwen2.5-32B-Instruct")
	if est.ContextLength == nil || *est.ContextLength != 32768 {
		t.Fatalf("context %v, want 32768 from the -Instruct config itself", deref(est.ContextLength))
	}
	if hasAssumption(est, "inferred:") {
		t.Errorf("an exact catalog id needs no inference: %q", est.Assumptions)
	}
}

// A tune without its own row takes the base's shapes, and says so.
func TestVariantTuneOfBase(t *testing.T) {
	c := variantCatalog(t)
	for _, name := range []string{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Chat", "meta-llama/llama-3.1-8b-instruct-2507"} {
		est := estimateWith(c, name)
		if est.Model != "meta-llama/Llama-3.1-8B" || est.CellBytesPerToken == nil || *est.CellBytesPerToken != 131072 {
			t.Errorf("%s: model %q cell %v, want the base's 131,072-byte cell", name, est.Model, deref(est.CellBytesPerToken))
		}
		if !hasAssumption(est, "inferred: ") || !hasAssumption(est, "tune or dated re-release of meta-llama/Llama-3.1-8B") {
			t.Errorf("%s: the rule is not reported as inferred: %q", name, est.Assumptions)
		}
		if !hasAssumption(est, "the context window is meta-llama/Llama-3.1-8B's") {
			t.Errorf("%s: the borrowed context window is not reported: %q", name, est.Assumptions)
		}
	}
	// Another organisation's tune is not the same model.
	if est := estimateWith(c, "someone/Llama-3.1-8B-Instruct"); est.Model != "" && est.Model != "meta-llama/Llama-3.1-8B" {
		t.Errorf("someone/…: resolved to %q", est.Model)
	}
	if _, ok := c.lookupVariant("someone/Llama-3.1-8B-Instruct"); ok {
		t.Error("a tune under another organisation must not match by the tune rule")
	}
	// A different size is a different model.
	if _, ok := c.lookupVariant("meta-llama/Llama-3.1-70B-Instruct"); ok {
		t.Error("Llama-3.1-70B-Instruct must not resolve to the 8B base")
	}
}

// An -AWQ upload keeps the shapes and stores linear weights at 4 bits plus
// group scales and zeros; the KV cache keeps the model dtype.
func TestVariantAWQWeights(t *testing.T) {
	c := variantCatalog(t)
	m, ok := c.lookupVariant("Qwen/Qwen2.5-32B-Instruct-AWQ")
	if !ok {
		t.Fatal("Qwen/Qwen2.5-32B-Instruct-AWQ not resolved")
	}
	if m.ContextValue != 32768 {
		t.Errorf("context %d, want the -Instruct config's 32768", m.ContextValue)
	}
	if m.Quant == nil || m.Quant.Method != "awq" || m.Quant.BitsPerWeight != 4+20.0/128 || m.Quant.Scope != "linear" {
		t.Fatalf("quant %+v", m.Quant)
	}
	full := estimateWith(c, "Qwen/Qwen2.5-32B-Instruct")
	awq := estimateWith(c, "Qwen/Qwen2.5-32B-Instruct-AWQ")
	if full.WeightsBytesPerGPU == nil || awq.WeightsBytesPerGPU == nil {
		t.Fatalf("weights unknown: %q", awq.Assumptions)
	}
	if ratio := float64(*awq.WeightsBytesPerGPU) / float64(*full.WeightsBytesPerGPU); ratio > 0.4 || ratio < 0.2 {
		t.Errorf("AWQ weights are %.2f of bf16's, want about 4.16/16 on the linear layers", ratio)
	}
	if awq.KVDtype != "bfloat16" || !hasAssumption(awq, "inferred: the suffix -awq") {
		t.Errorf("kv %q, assumptions %q", awq.KVDtype, awq.Assumptions)
	}
	// -FP8 under another organisation: a quantized upload of a unique family.
	fp8, ok := c.lookupVariant("RedHatAI/Qwen2.5-32B-Instruct-FP8-dynamic")
	if !ok || fp8.Quant == nil || fp8.Quant.BitsPerWeight != 8 {
		t.Errorf("RedHatAI …-FP8-dynamic: %v %+v", ok, fp8)
	}
}

// A ModelOpt checkpoint whose config states kv_cache_quant_algo FP8 turns
// --kv-cache-dtype auto into fp8_e4m3, also when reached through a rule.
func TestVariantModelOptKVDtype(t *testing.T) {
	c := variantCatalog(t)
	est := estimateWith(c, "nvidia/Llama-3.1-8B-Instruct-FP8")
	if est.KVDtype != "fp8_e4m3" || est.CellBytesPerToken == nil || *est.CellBytesPerToken != 65536 {
		t.Errorf("kv %q cell %v, want fp8_e4m3 and half the bf16 cell", est.KVDtype, deref(est.CellBytesPerToken))
	}
	// A suffix alone never changes the KV dtype.
	est = estimateWith(c, "meta-llama/Llama-3.1-8B-FP8")
	if est.KVDtype != "bfloat16" || !hasAssumption(est, "only a config's kv_cache_quant_algo changes it") {
		t.Errorf("kv %q: %q", est.KVDtype, est.Assumptions)
	}
}

func TestFamilyKey(t *testing.T) {
	for in, want := range map[string]string{
		"Qwen3-235B-A22B-Instruct-2507": "qwen3-235b-a22b",
		"gemma-2-9b-it":                 "gemma-2-9b",
		"Mistral-7B-Instruct-v0.3":      "mistral-7b-v0.3",
		"Llama-2-7b-chat-hf":            "llama-2-7b",
		"DeepSeek-V3-0324":              "deepseek-v3",
		"Qwen3-8B":                      "qwen3-8b",
	} {
		if got := familyKey(in); got != want {
			t.Errorf("familyKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// A hub-cache folder inside the container names the repository it was
// downloaded from, which is identified as an id is: by the catalog, else by
// the variant rules, and the assumption says which.
func TestVariantCacheFolder(t *testing.T) {
	c := variantCatalog(t)
	est := estimateWith(c, "/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-32B-Instruct/snapshots/5ede1c9")
	if est.Model != "Qwen/Qwen2.5-32B-Instruct" || !hasAssumption(est, "cache folder of Qwen/Qwen2.5-32B-Instruct, read as catalog model Qwen/Qwen2.5-32B-Instruct") {
		t.Errorf("catalogued: model %q, assumptions %q", est.Model, est.Assumptions)
	}
	est = estimateWith(c, "/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B-Instruct/snapshots/0e9e39f")
	if est.Model != "meta-llama/Llama-3.1-8B" || !hasAssumption(est, "cache folder of meta-llama/Llama-3.1-8B-Instruct, which is not in kvlint's catalog; it is resolved by the variant rules") ||
		!hasAssumption(est, "inferred: ") {
		t.Errorf("variant: model %q, assumptions %q", est.Model, est.Assumptions)
	}
	est = estimateWith(c, "/root/.cache/huggingface/hub/models--acme--unknown-7b/snapshots/0e9e39f")
	if est.Model != "" || hasAssumption(est, "cache folder of") {
		t.Errorf("unknown: model %q, assumptions %q", est.Model, est.Assumptions)
	}
}
