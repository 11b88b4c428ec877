// Command gen builds capacity/data/models.json from its inputs:
//
//   - curated.json: rows written from the reference table model-configs.tsv
//     (each cites its config.json copy; kept as they are);
//   - configs.jsonl: one line per model id, {"id", "aliases", "source",
//     "hf_quant_source", "config", "hf_quant_config"}, where config holds the
//     keys kvlint reads from a verbatim config.json copy named by source
//     (repository@commit:path).
//
// Each configs.jsonl row is read with capacity.ParseModelConfig, the same code
// that reads a local config.json, so a catalog row says what kvlint would
// read from the checkpoint itself, parameter counts included: they are
// computed from the config shapes for the layouts whose tensors are known
// (capacity/modelconfig_params.go); other rows leave them unknown.
//
//	go run ./capacity/data/gen extract ID SOURCE [HF_QUANT_SOURCE] < config.json >> configs.jsonl
//	go run ./capacity/data/gen build   # writes ../models.json
//
// SOURCE is either OWNER/REPO@COMMIT:PATH (a GitHub repository at a full
// commit, optionally followed by a space and a note naming the part of the
// file, such as MLC LLM's MODEL_PRESETS['key']) or a Hugging Face file URL
// pinned to a commit, https://huggingface.co/ORG/NAME/blob/COMMIT/PATH
// (or its raw, resolve or blame view of the same file; checkSource).
//
// extract reads the config text on stdin (and the hf_quant_config.json text
// from the file named by the environment variable HF_QUANT when set) and
// keeps only the keys listed in keptKeys.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/capacity"
)

type row struct {
	ID            string          `json:"id"`
	Aliases       []string        `json:"aliases,omitempty"`
	Source        string          `json:"source"`
	HFQuantSource string          `json:"hf_quant_source,omitempty"`
	Config        json.RawMessage `json:"config"`
	HFQuant       json.RawMessage `json:"hf_quant_config,omitempty"`
}

// keptKeys are the config.json keys kvlint (capacity.ParseModelConfig and
// its parameter counting) reads; everything else in a config is left out of the inputs.
var keptKeys = map[string]bool{
	"architectures": true, "model_type": true, "num_hidden_layers": true, "hidden_size": true,
	"num_attention_heads": true, "num_key_value_heads": true, "head_dim": true, "v_head_dim": true,
	"kv_lora_rank": true, "qk_rope_head_dim": true, "qk_nope_head_dim": true, "q_lora_rank": true,
	"index_head_dim": true, "index_topk": true, "index_n_heads": true,
	"sliding_window": true, "sliding_window_size": true, "window_size": true, "layer_types": true,
	"sliding_window_pattern": true, "hybrid_layer_pattern": true, "use_sliding_window": true,
	"swa_num_key_value_heads": true, "swa_head_dim": true, "swa_v_head_dim": true, "is_hybrid_swa": true,
	"max_sequence_length": true, "seq_length": true, "max_seq_len": true, "model_max_length": true,
	"max_position_embeddings": true, "rope_scaling": true, "rope_parameters": true,
	"torch_dtype": true, "dtype": true, "quantization_config": true,
	"vocab_size": true, "tie_word_embeddings": true, "intermediate_size": true,
	"moe_intermediate_size": true, "shared_expert_intermediate_size": true, "n_shared_experts": true,
	"n_routed_experts": true, "num_experts": true, "num_local_experts": true,
	"num_experts_per_tok": true, "experts_per_token": true, "num_nextn_predict_layers": true,
	"first_k_dense_replace": true, "decoder_sparse_step": true, "mlp_only_layers": true,
	"attention_bias": true, "multi_query": true, "n_head_kv": true, "num_kv_heads": true,
	"multi_query_group_num": true, "num_attention_groups": true, "new_decoder_architecture": true,
	"full_attention_interval": true, "linear_num_key_heads": true, "mamba_d_state": true,
	"ssm_state_size": true, "mamba_n_heads": true, "hybrid_override_pattern": true, "layers_block_type": true,
	"text_config": true, "llm_config": true, "language_config": true, "thinker_config": true,
	"vision_config": true,
	// Shapes parameter counting reads (capacity/modelconfig_params.go).
	"intermediate_size_mlp": true, "interleave_moe_layer_step": true, "moe_layer_freq": true,
	"topk_method": true, "use_qk_norm": true, "bias": true, "mlp_bias": true,
	"index_k_norm_type": true, "use_qkv_bias": true, "qk_layernorm": true, "use_bias": true,
	"use_routing_bias": true, "qk_norm_type": true,
	// Llama 4's chunked local attention (capacity.readChunkedAttention).
	"attention_chunk_size": true, "no_rope_layers": true, "no_rope_layer_interval": true,
	// The older layouts (capacity/modelconfig_params_more.go): OPT, Falcon,
	// MPT and DBRX (with their attn_config/ffn_config objects), ChatGLM.
	"ffn_dim": true, "word_embed_proj_dim": true, "enable_bias": true,
	"layer_norm_elementwise_affine": true, "do_layer_norm_before": true, "_remove_final_layer_norm": true,
	"parallel_attn": true, "num_ln_in_parallel_attn": true, "ffn_hidden_size": true,
	"d_model": true, "n_heads": true, "n_layers": true, "expansion_ratio": true, "no_bias": true,
	"attn_config": true, "ffn_config": true, "padded_vocab_size": true,
	"multi_query_attention": true, "add_bias_linear": true, "add_qkv_bias": true,
	"rmsnorm": true, "post_layer_norm": true,
	// GPT-2-style names that transformers' attribute_map reads as the
	// standard ones (capacity.attributeMaps).
	"n_embd": true, "n_embed": true, "n_layer": true, "n_head": true, "n_positions": true, "n_inner": true,
	"num_layers": true,
}

// visionKept are the vision_config keys kvlint reads.
var visionKept = map[string]bool{"num_hidden_layers": true, "hidden_size": true, "depth": true}

func main() {
	if len(os.Args) < 2 {
		fail("usage: gen extract ID SOURCE [HF_QUANT_SOURCE] | gen build")
	}
	dir := "capacity/data/gen"
	switch os.Args[1] {
	case "extract":
		if len(os.Args) < 4 {
			fail("usage: gen extract ID SOURCE [HF_QUANT_SOURCE] < config.json")
		}
		extract(os.Args[2], os.Args[3], os.Args[4:])
	case "build":
		build(dir)
	default:
		fail("unknown command " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "gen:", msg)
	os.Exit(2)
}

func trim(obj map[string]any, keep map[string]bool) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		if !keep[k] {
			continue
		}
		switch k {
		case "text_config", "llm_config", "language_config", "thinker_config":
			if sub, ok := v.(map[string]any); ok {
				v = trim(sub, keptKeys)
			}
		case "vision_config":
			if sub, ok := v.(map[string]any); ok {
				v = trim(sub, visionKept)
			}
		}
		out[k] = v
	}
	return out
}

func decode(data []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		fail("config: " + err.Error())
	}
	return obj
}

func extract(id, source string, rest []string) {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err.Error())
	}
	if err := checkSource(source); err != nil {
		fail(id + ": " + err.Error())
	}
	for _, q := range rest {
		if err := checkSource(q); err != nil {
			fail(id + ": hf_quant source: " + err.Error())
		}
	}
	r := row{ID: id, Source: source}
	cfg, _ := json.Marshal(trim(decode(data), keptKeys))
	r.Config = cfg
	if len(rest) > 0 && os.Getenv("HF_QUANT") != "" {
		q, err := os.ReadFile(os.Getenv("HF_QUANT"))
		if err != nil {
			fail(err.Error())
		}
		obj := decode(q)
		keep := map[string]any{}
		if sec, ok := obj["quantization"].(map[string]any); ok {
			keep["quantization"] = trim(sec, map[string]bool{"quant_algo": true, "kv_cache_quant_algo": true})
		}
		r.HFQuantSource = rest[0]
		r.HFQuant, _ = json.Marshal(keep)
	}
	// Re-read what was kept, so a row that kvlint cannot read never lands.
	if _, err := capacity.ParseModelConfig(id, r.Config, nilIfEmpty(r.HFQuant)); err != nil {
		fail(id + ": " + err.Error())
	}
	line, _ := json.Marshal(r)
	fmt.Println(string(line))
}

func nilIfEmpty(b json.RawMessage) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func build(dir string) {
	curatedText, err := os.ReadFile(filepath.Join(dir, "curated.json"))
	if err != nil {
		fail(err.Error())
	}
	var curated []json.RawMessage
	if err := json.Unmarshal(curatedText, &curated); err != nil {
		fail("curated.json: " + err.Error())
	}
	seen := map[string]bool{}
	var out []any
	for _, c := range curated {
		var m capacity.Model
		if err := json.Unmarshal(c, &m); err != nil {
			fail("curated.json: " + err.Error())
		}
		for _, id := range append([]string{m.ID}, m.Aliases...) {
			seen[strings.ToLower(id)] = true
		}
		out = append(out, c)
	}
	f, err := os.Open(filepath.Join(dir, "configs.jsonl"))
	if err != nil {
		fail(err.Error())
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var generated []*capacity.Model
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r row
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			fail(fmt.Sprintf("configs.jsonl:%d: %v", n, err))
		}
		if r.ID == "" || r.Source == "" {
			fail(fmt.Sprintf("configs.jsonl:%d: id and source are required", n))
		}
		if err := checkSource(r.Source); err != nil {
			fail(fmt.Sprintf("configs.jsonl:%d: %v", n, err))
		}
		if r.HFQuantSource != "" {
			if err := checkSource(r.HFQuantSource); err != nil {
				fail(fmt.Sprintf("configs.jsonl:%d: hf_quant_source: %v", n, err))
			}
		}
		if seen[strings.ToLower(r.ID)] {
			continue // curated rows win
		}
		m, err := capacity.ParseModelConfig(r.ID, r.Config, nilIfEmpty(r.HFQuant))
		if err != nil {
			fail(fmt.Sprintf("configs.jsonl:%d: %v", n, err))
		}
		if m.Unsupported != "" || variableBlocks(m) {
			continue // a pool layout kvlint does not model: left out, as README.md says
		}
		m.ID, m.Aliases = r.ID, r.Aliases
		m.Source = r.Source
		if r.HFQuantSource != "" {
			m.Source += "; hf_quant_config.json: " + r.HFQuantSource
		}
		m.Confidence = "config-read"
		for _, id := range append([]string{m.ID}, m.Aliases...) {
			if seen[strings.ToLower(id)] {
				fail(fmt.Sprintf("configs.jsonl:%d: id %s listed twice", n, id))
			}
			seen[strings.ToLower(id)] = true
		}
		generated = append(generated, m)
	}
	if err := sc.Err(); err != nil {
		fail(err.Error())
	}
	sort.SliceStable(generated, func(i, j int) bool { return generated[i].ID < generated[j].ID })
	for _, m := range generated {
		out = append(out, m)
	}
	text, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		fail(err.Error())
	}
	if err := os.WriteFile(filepath.Join(dir, "..", "models.json"), append(text, '\n'), 0o644); err != nil {
		fail(err.Error())
	}
	fmt.Fprintf(os.Stderr, "gen: %d curated + %d generated rows\n", len(curated), len(generated))
}

// variableBlocks reports a DeciLM (Nemotron-NAS) checkpoint, whose
// block_configs give each layer its own head count and may drop attention
// from a layer: a uniform cell would misstate its pool.
func variableBlocks(m *capacity.Model) bool {
	for _, a := range m.Architectures {
		if a == "DeciLMForCausalLM" {
			return true
		}
	}
	return false
}

// A source names a verbatim copy of a config at a fixed revision, so a reader
// can fetch exactly the bytes a row was extracted from. Branch names
// ("main", "refs/pr/N") move and are refused, as are commit-diff and tree
// pages. The Hub serves one file at one commit under four views: blob (the
// rendered page), raw and resolve (the bytes) and blame (the bytes with
// line history); each is accepted, so a row cites the view it was read from.
var (
	// OWNER/REPO@COMMIT:PATH, then an optional " NOTE" (MODEL_PRESETS['key']).
	repoSource = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*@[0-9a-f]{40}:[^\s:@]+( \S.*)?$`)
	// https://huggingface.co/ORG/NAME/blob/COMMIT/PATH. Hugging Face model ids
	// are ORG/NAME with letters, digits, '-', '_' and '.'.
	hfSource = regexp.MustCompile(`^https://huggingface\.co/[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*/(blob|raw|resolve|blame)/[0-9a-f]{40}/[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$`)
)

// checkSource accepts the two citation forms extract and build allow.
func checkSource(s string) error {
	if strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") {
		if !hfSource.MatchString(s) {
			return fmt.Errorf("source %q: a URL must be https://huggingface.co/ORG/NAME/{blob,raw,resolve,blame}/COMMIT/PATH with a 40-hex commit", s)
		}
		segs := strings.Split(strings.TrimPrefix(s, "https://huggingface.co/"), "/")
		// Dataset and Space repositories live under these prefixes; a
		// model config is cited from a model repository only.
		if segs[0] == "datasets" || segs[0] == "spaces" {
			return fmt.Errorf("source %q: not a model repository", s)
		}
		for _, seg := range segs {
			if seg == "." || seg == ".." {
				return fmt.Errorf("source %q: dot path segment", s)
			}
		}
		return nil
	}
	if !repoSource.MatchString(s) {
		return fmt.Errorf("source %q: want OWNER/REPO@COMMIT:PATH (40-hex commit) or a pinned huggingface.co blob URL", s)
	}
	return nil
}
