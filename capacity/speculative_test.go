package capacity

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSpeculativeDraft checks how speculative decoding's draft enters the
// pool: the cell grows by draft layers / target layers
// (pool_configurator.py DefaultPoolConfigurator.__init__) and the draft's
// weights are charged against the budget before the pool is sized.
func TestSpeculativeDraft(t *testing.T) {
	const frac = "0.85"
	base := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--mem-fraction-static", frac), Options{})
	if base.CellBytesPerToken == nil || *base.CellBytesPerToken != 131072 || base.KVBudgetBytes == nil || base.PoolTokens == nil {
		t.Fatalf("baseline: cell %v, budget %v, pool %v", deref(base.CellBytesPerToken), deref(base.KVBudgetBytes), deref(base.PoolTokens))
	}

	t.Run("separate draft from the catalog", func(t *testing.T) {
		// Llama-3.2-1B-Instruct: 16 layers, 1,235,814,400 parameters in
		// bf16 with tied embeddings.
		est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--mem-fraction-static", frac,
			"--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", "meta-llama/Llama-3.2-1B-Instruct"), Options{})
		if got := deref(est.CellBytesPerToken); got != int64(131072*3/2) {
			t.Errorf("cell = %v, want 131072 × (1 + 16/32) = 196608", got)
		}
		draft := catalogModel(t, "meta-llama/Llama-3.2-1B-Instruct")
		stages, _, err := stageWeights(draft, weightInput{TP: 1, PP: 1, AttnTP: 1, DtypeBytes: 2})
		if err != nil {
			t.Fatal(err)
		}
		if est.KVBudgetBytes == nil || est.PoolTokens == nil {
			t.Fatalf("budget %v, pool %v; assumptions %q", deref(est.KVBudgetBytes), deref(est.PoolTokens), est.Assumptions)
		}
		if diff := *base.KVBudgetBytes - *est.KVBudgetBytes; absInt64(diff-stages[0]) > 2 {
			t.Errorf("budget drops by %d B, want the draft's %d B", diff, stages[0])
		}
		if want := *est.KVBudgetBytes / 196608; *est.PoolTokens != want {
			t.Errorf("pool = %d, want budget / 196608 = %d", *est.PoolTokens, want)
		}
		if !containsText(est.Derivation, "num_hidden_layers 16 adds KV layers to the pool, so the cell grows by 16/32") {
			t.Errorf("derivation does not state the draft layers: %q", est.Derivation)
		}
	})

	t.Run("draft declared as a local config", func(t *testing.T) {
		// An EAGLE-3 head: one decoder layer, num_nextn_predict_layers absent.
		dir := t.TempDir()
		cfg := `{"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "num_hidden_layers": 1,
 "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
 "vocab_size": 128256, "draft_vocab_size": 32000, "torch_dtype": "bfloat16", "max_position_embeddings": 2048}`
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--mem-fraction-static", frac,
			"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "acme/eagle3-head"),
			Options{ModelConfigs: map[string]string{"acme/eagle3-head": dir}})
		if got := deref(est.CellBytesPerToken); got != int64(131072*33/32) {
			t.Errorf("cell = %v, want 131072 × (1 + 1/32) = 135168", got)
		}
		if est.PoolTokens == nil || *est.PoolTokens >= *base.PoolTokens {
			t.Errorf("pool %v is not below the pool without a draft (%d)", deref(est.PoolTokens), *base.PoolTokens)
		}
		// The directory holds no checkpoint: the draft's weights are
		// counted from its shapes (one llama layer, untied head):
		// 2 × 128,256 × 4,096 embeddings and head + 41,943,040 attention
		// + 176,160,768 MLP + 8,192 + 4,096 norms = 1,268,789,248
		// parameters × 2 B = 2,537,578,496 B off the budget.
		if est.KVBudgetBytes == nil || *base.KVBudgetBytes-*est.KVBudgetBytes != 2537578496 {
			t.Errorf("budget %v (baseline %d), want 2,537,578,496 B less; assumptions %q", deref(est.KVBudgetBytes), *base.KVBudgetBytes, est.Assumptions)
		}
	})

	t.Run("draft whose weights cannot be counted", func(t *testing.T) {
		// A layout kvlint does not count: the draft still grows the cell,
		// and its weights are reported, not guessed.
		dir := t.TempDir()
		cfg := `{"architectures": ["BaichuanForCausalLM"], "model_type": "baichuan", "num_hidden_layers": 1,
 "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 8,
 "vocab_size": 125696, "torch_dtype": "bfloat16", "max_position_embeddings": 4096}`
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--mem-fraction-static", frac,
			"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "acme/draft"),
			Options{ModelConfigs: map[string]string{"acme/draft": dir}})
		if got := deref(est.CellBytesPerToken); got != int64(131072*33/32) {
			t.Errorf("cell = %v, want 131072 × (1 + 1/32) = 135168", got)
		}
		if deref(est.KVBudgetBytes) != deref(base.KVBudgetBytes) || !containsText(est.Assumptions, "are unknown (no parameter count or checkpoint size), so they are not counted") {
			t.Errorf("budget %v (baseline %v); assumptions %q", deref(est.KVBudgetBytes), deref(base.KVBudgetBytes), est.Assumptions)
		}
	})

	t.Run("model's own MTP layers", func(t *testing.T) {
		plain := EstimateServer(server("deepseek-ai/DeepSeek-V3", "H200", "--tp-size", "8", "--mem-fraction-static", frac), Options{})
		mtp := EstimateServer(server("deepseek-ai/DeepSeek-V3", "H200", "--tp-size", "8", "--mem-fraction-static", frac,
			"--speculative-algorithm", "EAGLE"), Options{})
		if got, want := deref(mtp.CellBytesPerToken), int64(70272*62/61); got != want {
			t.Errorf("cell = %v, want 70272 × (1 + 1/61) = %d", got, want)
		}
		if plain.KVBudgetBytes == nil || mtp.KVBudgetBytes == nil || *mtp.KVBudgetBytes >= *plain.KVBudgetBytes {
			t.Errorf("budget with MTP %v is not below %v", deref(mtp.KVBudgetBytes), deref(plain.KVBudgetBytes))
		}
	})

	t.Run("a draft kvlint cannot resolve is reported", func(t *testing.T) {
		est := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--mem-fraction-static", frac,
			"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "acme/unknown-head"), Options{})
		if deref(est.CellBytesPerToken) != int64(131072) || deref(est.PoolTokens) != *base.PoolTokens {
			t.Errorf("an unresolved draft changed the pool: cell %v, pool %v", deref(est.CellBytesPerToken), deref(est.PoolTokens))
		}
		if !containsText(est.Assumptions, "declare the draft's config.json under models: in .kvlint.yaml") {
			t.Errorf("assumptions do not name the declaration: %q", est.Assumptions)
		}
	})
}

func absInt64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// A draft is resolved by the served model's routes: a .kvlint.yaml entry
// that maps it to an id the variant rules resolve is read as that variant
// (as a served model's is), and so is a draft id the catalog knows only by
// the variant rules; both say the rule is inferred.
func TestSpeculativeDraftVariant(t *testing.T) {
	c := variantCatalog(t)
	// Target and draft both 32 layers: the cell doubles.
	want := int64(131072 * 2)
	args := func(draft string) []string {
		return []string{"--mem-fraction-static", "0.85", "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", draft}
	}
	mapped := EstimateServer(server("meta-llama/Llama-3.1-8B", "H100-80GB", args("acme/draft")...),
		Options{Catalog: c, ModelConfigs: map[string]string{"acme/draft": "meta-llama/Llama-3.1-8B-Instruct"}})
	if got := deref(mapped.CellBytesPerToken); got != want {
		t.Errorf("mapped: cell %v, want %d; assumptions %q", got, want, mapped.Assumptions)
	}
	if !hasAssumption(mapped, `draft "acme/draft" is read as meta-llama/Llama-3.1-8B-Instruct, as .kvlint.yaml declares`) {
		t.Errorf("mapped: the variant rule is not reported: %q", mapped.Assumptions)
	}
	named := EstimateServer(server("meta-llama/Llama-3.1-8B", "H100-80GB", args("meta-llama/Llama-3.1-8B-Instruct")...), Options{Catalog: c})
	if got := deref(named.CellBytesPerToken); got != want {
		t.Errorf("named: cell %v, want %d; assumptions %q", got, want, named.Assumptions)
	}
	if !hasAssumption(named, `draft "meta-llama/Llama-3.1-8B-Instruct" is not in kvlint's catalog; it is resolved by the variant rules`) {
		t.Errorf("named: the variant rule is not reported: %q", named.Assumptions)
	}
}
