package capacity

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genConfig returns the config.json copy of id as the catalog generator
// keeps it in data/gen/configs.jsonl (each row cites its source).
func genConfig(t *testing.T, id string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("data", "gen", "configs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct {
			ID     string          `json:"id"`
			Config json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.ID == id {
			return r.Config
		}
	}
	t.Fatalf("configs.jsonl has no %s", id)
	return nil
}

// gemma2_9b is google/gemma-2-9b's config.json shapes (the catalog's row for
// it is curated, so configs.jsonl holds no copy).
const gemma2_9b = `{"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584,
 "intermediate_size": 14336, "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
 "head_dim": 256, "vocab_size": 256000, "max_position_embeddings": 8192, "sliding_window": 4096,
 "torch_dtype": "float32"}`

const (
	gpt2Small = `{"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": 50257,
 "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_inner": null}`
	gptJ6B = `{"architectures": ["GPTJForCausalLM"], "model_type": "gptj", "vocab_size": 50400,
 "n_positions": 2048, "n_embd": 4096, "n_layer": 28, "n_head": 16, "rotary_dim": 64, "n_inner": null,
 "tie_word_embeddings": false, "torch_dtype": "float32"}`
	// Starcoder2Config's defaults (transformers@77efc55c011c247cd8ff1e7047bd20a177edf012
	// models/starcoder2/configuration_starcoder2.py), the 3B model's
	// shapes; tie_word_embeddings is left to the class (PretrainedConfig:
	// true).
	starcoder2_3b = `{"architectures": ["Starcoder2ForCausalLM"], "model_type": "starcoder2", "vocab_size": 49152,
 "hidden_size": 3072, "intermediate_size": 12288, "num_hidden_layers": 30, "num_attention_heads": 24,
 "num_key_value_heads": 2, "use_bias": true, "max_position_embeddings": 4096}`
	// The shapes of sgl-project/ome@17b77edad23bae262e0c9adb7f12039397a5d33d
	// pkg/hfutil/modelconfig/testdata/stablelm_3b.json and exaone_7.8b.json
	// (copies of the checkpoints' config.json), keys kvlint reads only.
	stablelm3b = `{"architectures": ["StableLmForCausalLM"], "model_type": "stablelm", "vocab_size": 50304,
 "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 32, "use_qkv_bias": false, "tie_word_embeddings": false,
 "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}`
	exaone78b = `{"architectures": ["ExaoneForCausalLM"], "model_type": "exaone", "vocab_size": 102400,
 "hidden_size": 4096, "intermediate_size": 14336, "num_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "head_dim": 128, "tie_word_embeddings": false,
 "max_position_embeddings": 32768, "torch_dtype": "float32"}`
)

// Parameter counts from config shapes against what each publisher states.
//
// Tolerances: where the publisher states an exact count (the Gemma technical
// reports give embedding and non-embedding parameters to the unit), the
// non-embedding count must match exactly: the embedding row differs only by
// the padding the reports count (Gemma's 256,128-row training table against
// the checkpoints' 256,000). Where the publisher gives three or more
// significant digits, 1%: a dropped attention, MLP or norm term moves every
// family here by more than that, while the rounding of the published
// figure stays inside it. Where the publisher gives a whole number of
// billions ("35B", "4B", "17B active"), the figure's own rounding interval
// (±0.5B), which is the only precision it has. In every case exact is the
// count this layout yields today, pinned so that dropping any tensor term
// (one norm vector included) fails the test.
func TestCountParamsPublished(t *testing.T) {
	tests := []struct {
		id     string
		config string // "" = the configs.jsonl copy
		exact  int64
		checks []check
		note   string // what ParamsSource must say
	}{
		// Gemma technical report (arXiv:2403.08295, Table 2): 7B has
		// 786,825,216 embedding and 7,751,248,896 non-embedding parameters.
		{id: "google/gemma-7b", exact: 8537680896, checks: []check{
			{"non-embedding", 7.751248896, 0, nonEmbed},
			{"total (8.54B)", 8.54, 0.01, total},
		}},
		// Gemma 2 technical report (arXiv:2408.00118, Table 2): 2B has
		// 2,024,517,888 non-embedding parameters, 9B 8,324,201,984.
		{id: "google/gemma-2-2b", exact: 2614341888, checks: []check{
			{"non-embedding", 2.024517888, 0, nonEmbed},
		}},
		{id: "google/gemma-2-9b", config: gemma2_9b, exact: 9241705984, checks: []check{
			{"non-embedding", 8.324201984, 0, nonEmbed},
			{"total (9.24B)", 9.24, 0.01, total},
		}},
		// Gemma 3 technical report (arXiv:2503.19786, Table 1): 27B has
		// 1,416M embedding and 25,600M non-embedding parameters, and a
		// 417M vision encoder, which is not counted.
		{id: "google/gemma-3-27b-it", exact: 27009346304, note: "the vision tower is not", checks: []check{
			{"non-embedding (25,600M, to the million)", 25.6, 0.0005 / 25.6, nonEmbed},
		}},
		// https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct
		// (model card, "Model Architecture"): 17B activated, 109B total.
		// The total includes the vision encoder (vision_config: 34
		// layers of width 1408, about 0.8B), which is not counted: the text
		// model must fall short of 109B by less than 1.5B.
		{id: "meta-llama/Llama-4-Scout-17B-16E-Instruct", exact: 107769861120, note: "only the language model (text_config) is counted", checks: []check{
			{"active (17B)", 17, 0.5, active},
			{"109B less the vision encoder", 109 - 0.75, 0.75, total},
		}},
		// https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct:
		// 17B activated, 400B total (MoE on every second layer).
		{id: "meta-llama/Llama-4-Maverick-17B-128E-Instruct", exact: 400711848960, checks: []check{
			{"active (17B)", 17, 0.5, active},
			{"total (400B)", 400, 0.01, total},
		}},
		// https://huggingface.co/deepseek-ai/DeepSeek-V3 (model card,
		// "Model Downloads"): 685B = 671B main model + 14B MTP module. The
		// MTP layer (num_nextn_predict_layers 1) is not counted: SGLang
		// loads it only as a speculative-decoding draft.
		{id: "deepseek-ai/DeepSeek-V3", exact: 671026419200, checks: []check{
			{"main model (671B)", 671, 0.01, total},
			{"active less the input embedding (37B)", 37, 0.5, activeLessEmbed},
		}},
		// https://huggingface.co/CohereForAI/c4ai-command-r-v01: "a 35
		// billion parameter" model.
		{id: "CohereForAI/c4ai-command-r-v01", exact: 34980831232, checks: []check{
			{"total (35B)", 35, 0.5, total},
		}},
		// https://huggingface.co/internlm/internlm2-7b (the Hub's
		// safetensors parameter count, 7.74B).
		{id: "internlm/internlm2-7b", exact: 7737708544, checks: []check{
			{"total (7.74B)", 7.74, 0.01, total},
		}},
		// https://huggingface.co/openbmb/MiniCPM3-4B: "MiniCPM3-4B … 4B".
		{id: "openbmb/MiniCPM3-4B", exact: 4073875968, checks: []check{
			{"total (4B)", 4, 0.5, total},
		}},
		// https://huggingface.co/microsoft/Phi-3.5-MoE-instruct: 16×3.8B
		// experts, 6.6B active parameters; Phi-3 technical report
		// (arXiv:2404.14219): 42B total.
		{id: "microsoft/Phi-3.5-MoE-instruct", exact: 41873153344, checks: []check{
			{"total (42B)", 42, 0.01, total},
			{"active (6.6B)", 6.6, 0.01, active},
		}},
		// gpt-oss-120b & gpt-oss-20b model card (arXiv:2508.10925, Table
		// 1): 116.83B total, 5.13B active per token.
		{id: "openai/gpt-oss-120b", exact: 116829156672, checks: []check{
			{"total (116.83B)", 116.83, 0.01, total},
			{"active less the input embedding (5.13B)", 5.13, 0.01, activeLessEmbed},
		}},
		// https://huggingface.co/openai-community/gpt2: "the smallest
		// version of GPT-2, with 124M parameters". Its shapes are
		// GPT2Config's defaults (n_embd 768, n_layer 12, n_head 12,
		// n_positions 1024, vocab 50257), written with GPT-2's own keys.
		{id: "openai-community/gpt2", config: gpt2Small, exact: 124439808, checks: []check{
			{"total (124M, ±0.5M: 0.4%)", 0.124, 0.004, total},
		}},
		// https://huggingface.co/EleutherAI/gpt-j-6b (model card,
		// hyperparameter table): n_parameters 6,053,381,344. Its shapes
		// are GPTJConfig's defaults.
		{id: "EleutherAI/gpt-j-6b", config: gptJ6B, exact: 6050882784, checks: []check{
			{"total (6,053,381,344)", 6.053381344, 0.01, total},
		}},
		// https://huggingface.co/stabilityai/stablelm-3b-4e1t (model card,
		// "Model Architecture"): 2,795,443,200 parameters.
		{id: "stabilityai/stablelm-3b-4e1t", config: stablelm3b, exact: 2795443200, checks: []check{
			{"total (2,795,443,200)", 2.7954432, 0.01, total},
		}},
		// https://huggingface.co/LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct: 7.8B
		// (the config names its layer count num_layers).
		{id: "LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct", config: exaone78b, exact: 7818448896, checks: []check{
			{"total (7.8B)", 7.8, 0.05, total},
		}},
		// Qwen2-VL technical report (arXiv:2409.12191, Table 1): the
		// 7B model is a 675M vision encoder and a 7.6B language model; 2B
		// is 675M and 1.5B. Only the language model is counted.
		{id: "Qwen/Qwen2-VL-7B-Instruct", exact: 7615616512, note: "the vision tower (vision_config) is not", checks: []check{
			{"language model (7.6B)", 7.6, 0.05, total},
		}},
		{id: "Qwen/Qwen2-VL-2B-Instruct", exact: 1543714304, note: "the vision tower (vision_config) is not", checks: []check{
			{"language model (1.5B)", 1.5, 0.05, total},
		}},
		// https://huggingface.co/bigcode/starcoder2-3b: "a 3B parameter
		// model".
		{id: "bigcode/starcoder2-3b", config: starcoder2_3b, exact: 3030371328, checks: []check{
			{"total (3B)", 3, 0.5, total},
		}},
	}
	for _, tt := range tests {
		m := countedModel(t, tt.id, tt.config, tt.exact)
		if !strings.Contains(m.ParamsSource, "computed from the config.json shapes") || !strings.Contains(m.ParamsSource, tt.note) {
			t.Errorf("%s: params source %q", tt.id, m.ParamsSource)
		}
		checkPublished(t, tt.id, m, tt.checks)
	}
}

// check is one published figure a parameter count is held to.
type check struct {
	what     string
	billions float64 // the publisher's figure
	tol      float64 // relative (0.01) or, when >= 0.1, absolute billions
	got      func(m *Model) float64
}

func total(m *Model) float64 { return float64(m.Params) / 1e9 }

func nonEmbed(m *Model) float64 {
	return float64(m.Params-int64(m.VocabSize)*int64(m.HiddenSize)) / 1e9
}

// Publishers count active parameters two ways: Meta and Microsoft count
// every matrix a token touches, DeepSeek and OpenAI leave out the input
// embedding (a lookup, not a matrix product).
func active(m *Model) float64 {
	routed := float64(m.ExpertParams) * float64(m.ExpertsPerToken) / float64(m.Experts)
	return (float64(m.Params) - float64(m.ExpertParams) + routed) / 1e9
}

func activeLessEmbed(m *Model) float64 {
	return active(m) - float64(m.VocabSize)*float64(m.HiddenSize)/1e9
}

// checkPublished holds m's count to each published figure of checks.
func checkPublished(t *testing.T, id string, m *Model, checks []check) {
	t.Helper()
	for _, c := range checks {
		got := c.got(m)
		tol := c.tol
		if tol < 0.1 {
			tol *= c.billions
		}
		if got < c.billions-tol || got > c.billions+tol {
			t.Errorf("%s %s: %.4fB, published %gB ± %gB", id, c.what, got, c.billions, tol)
		}
	}
}

// Layouts kvlint has not checked, and shapes it cannot use, leave the count
// unknown; the config still reads.
func TestCountParamsUnknown(t *testing.T) {
	for name, text := range map[string]string{
		"unlisted family": `{"model_type": "gpt_bigcode", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100}`,
		"no MLP width":    `{"model_type": "gemma", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100}`,
		"per-layer moe_layer_freq list": `{"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
			"q_lora_rank": 8, "kv_lora_rank": 8, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8, "n_routed_experts": 4,
			"moe_intermediate_size": 16, "intermediate_size": 32, "moe_layer_freq": [0, 1]}`,
		"llama with biases": `{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
			"intermediate_size": 128, "attention_bias": true}`,
		"absurd sizes": `{"model_type": "mixtral", "hidden_size": 1048576, "num_hidden_layers": 65536, "num_attention_heads": 65536,
			"vocab_size": 1000, "num_local_experts": 1048576, "intermediate_size": 1048576}`,
	} {
		wantParamsUnknown(t, name, text)
	}
}

// A local checkpoint directory with a config.json and no safetensors has
// its weights counted from the shapes, and says so; an index's measured
// size wins over the count.
func TestLocalConfigParamsFromShapes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.json"), gemma2_9b)
	m, err := ReadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "params", m.Params, int64(9241705984))
	expect(t, "weights bytes", m.WeightsBytes, int64(0))
	if !strings.Contains(m.ParamsSource, "computed from the config.json shapes") {
		t.Errorf("params source %q", m.ParamsSource)
	}
	cat := &Catalog{byID: map[string]int{}, byLast: map[string][]int{}, gpus: Default().gpus, gpuKeys: Default().gpuKeys}
	est := EstimateServer(server("acme/local-gemma", "H100", "--tp-size", "1"), Options{Catalog: cat, ModelConfigs: map[string]string{"acme/local-gemma": dir}})
	// The float32 checkpoint is served in bfloat16 (--dtype auto for
	// Gemma), tied embeddings: 2 B × 9,241,705,984 on one GPU.
	if est.WeightsBytesPerGPU == nil || *est.WeightsBytesPerGPU != 2*9241705984 {
		t.Errorf("weights per GPU %v, want %d\n%s", deref(est.WeightsBytesPerGPU), int64(2*9241705984), strings.Join(est.Derivation, "\n"))
	}
	for _, n := range est.Missing {
		if n == "weights" {
			t.Errorf("still needs weights: %q", est.Assumptions)
		}
	}

	writeFile(t, filepath.Join(dir, "model.safetensors.index.json"), `{"metadata": {"total_size": 18483411968}, "weight_map": {}}`)
	m, err = ReadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "index size", m.WeightsBytes, int64(18483411968))
	expect(t, "count set aside", m.Params, int64(0))
	if !strings.Contains(m.ParamsSource, "metadata.total_size") {
		t.Errorf("params source %q", m.ParamsSource)
	}
}

// OLMo and OLMo 2 have no publisher figure whose config kvlint keeps a
// copy of: their layouts are pinned on a small config, tensor by tensor as
// SGLang's classes allocate them (models/olmo.py, olmo2.py): width 8, 2
// heads of 4, MLP 16, vocabulary 10, 2 layers, untied.
func TestCountParamsOLMoTensors(t *testing.T) {
	const shapes = `"vocab_size": 10, "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2,
 "num_attention_heads": 2, "num_key_value_heads": 2, "tie_word_embeddings": false`
	attn := 4 * 8 * 8    // q_proj, k_proj, v_proj, o_proj
	mlp := 3 * 16 * 8    // gate_proj, up_proj, down_proj
	embeds := 2 * 10 * 8 // embed_tokens, lm_head
	// OLMo: LayerNorms without parameters, in the layers and at the end.
	olmo := int64(2*(attn+mlp) + embeds)
	// OLMo 2: q_norm (2 heads × 4) and k_norm (2 KV heads × 4),
	// post_attention_layernorm and post_feedforward_layernorm per layer,
	// and the final norm.
	olmo2 := int64(2*(attn+mlp+8+8+8+8) + embeds + 8)
	for typ, want := range map[string]int64{"olmo": olmo, "olmo2": olmo2} {
		m, err := ParseModelConfig(typ, []byte(`{"model_type": "`+typ+`", `+shapes+`}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, typ, m.Params, want)
	}
	// OlmoConfig's tie_word_embeddings default is not checked: a config
	// without the key is left unknown.
	m, err := ParseModelConfig("olmo", []byte(`{"model_type": "olmo", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 16,
 "num_hidden_layers": 2, "num_attention_heads": 2}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, "olmo without tie_word_embeddings", m.Params, int64(0))
}

// Every id with both a curated row (counted by hand from its cited
// config when the catalog was written) and a configs.jsonl copy must get
// the same count from the shapes: this covers the Llama, Qwen, Mixtral,
// DeepSeek-V3/V3.2, Kimi K2, GLM-5, gpt-oss, MiniMax-M2.5 and MiMo layouts.
func TestCountParamsMatchCuratedRows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("data", "gen", "curated.json"))
	if err != nil {
		t.Fatal(err)
	}
	var curated []Model
	if err := json.Unmarshal(data, &curated); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("data", "gen", "configs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	copies := map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct {
			ID     string          `json:"id"`
			Config json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		copies[r.ID] = r.Config
	}
	compared := map[string]bool{}
	for _, c := range curated {
		text, ok := copies[c.ID]
		if !ok || c.Params == 0 || c.Confidence != "config-read" {
			continue
		}
		m, err := ParseModelConfig(c.ID, text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if m.Params != c.Params {
			t.Errorf("%s (%s): %d params from the shapes, the curated row has %d", c.ID, m.ModelType, m.Params, c.Params)
		}
		compared[m.ModelType] = true
	}
	for _, typ := range []string{"llama", "qwen3", "qwen3_moe", "mixtral", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa", "gpt_oss", "minimax_m2", "mimo"} {
		if !compared[typ] {
			t.Errorf("no curated row of %s to compare", typ)
		}
	}
}

// wantParamsUnknown checks that config text reads and leaves the
// parameter count unknown.
func wantParamsUnknown(t *testing.T, name, text string) {
	t.Helper()
	m, err := ParseModelConfig(name, []byte(text), nil)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if m.Params != 0 || m.ParamsSource != "" {
		t.Errorf("%s: params %d (%q), want unknown", name, m.Params, m.ParamsSource)
	}
}

// countedModel reads config (or, when it is "", the configs.jsonl copy of
// id) and checks its parameter count is exact.
func countedModel(t *testing.T, id, config string, exact int64) *Model {
	t.Helper()
	text := []byte(config)
	if config == "" {
		text = genConfig(t, id)
	}
	m, err := ParseModelConfig(id, text, nil)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	if m.Params != exact {
		t.Errorf("%s: %d params, want %d", id, m.Params, exact)
	}
	return m
}
