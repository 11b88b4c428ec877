package capacity

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// llama8BConfig has Llama-3.1-8B's shapes: 32 layers, hidden 4,096, 32
// attention and 8 KV heads, MLP 14,336, vocabulary 128,256, untied head.
const llama8BConfig = `{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
 "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
 "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
 "max_position_embeddings": 131072, "rope_theta": 500000.0,
 "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`

// writeLlamaCheckpoint writes a checkpoint of llama8BConfig's shapes with no
// index: config.json and the BF16 tensors' safetensors headers spread over
// shards files, as a downloaded checkpoint whose weights kvlint sums from
// the headers.
func writeLlamaCheckpoint(t testing.TB, dir string, shards int) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "config.json"), llama8BConfig)
	type tensor struct {
		name  string
		shape []int64
	}
	tensors := []tensor{{"model.embed_tokens.weight", []int64{128256, 4096}}}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		tensors = append(tensors,
			tensor{p + "self_attn.q_proj.weight", []int64{4096, 4096}},
			tensor{p + "self_attn.k_proj.weight", []int64{1024, 4096}},
			tensor{p + "self_attn.v_proj.weight", []int64{1024, 4096}},
			tensor{p + "self_attn.o_proj.weight", []int64{4096, 4096}},
			tensor{p + "mlp.gate_proj.weight", []int64{14336, 4096}},
			tensor{p + "mlp.up_proj.weight", []int64{14336, 4096}},
			tensor{p + "mlp.down_proj.weight", []int64{4096, 14336}},
			tensor{p + "input_layernorm.weight", []int64{4096}},
			tensor{p + "post_attention_layernorm.weight", []int64{4096}})
	}
	tensors = append(tensors, tensor{"model.norm.weight", []int64{4096}}, tensor{"lm_head.weight", []int64{128256, 4096}})
	per := (len(tensors) + shards - 1) / shards
	for i := range shards {
		header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
		var off int64
		for _, x := range tensors[i*per : min((i+1)*per, len(tensors))] {
			size := int64(2)
			for _, d := range x.shape {
				size *= d
			}
			header[x.name] = map[string]any{"dtype": "BF16", "shape": x.shape, "data_offsets": []int64{off, off + size}}
			off += size
		}
		text, err := json.Marshal(header)
		if err != nil {
			t.Fatal(err)
		}
		writeSafetensors(t, filepath.Join(dir, fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, shards)), string(text))
	}
}

// reresolving is est as it would be had it kept no model resolution: With
// then resolves the model again on every call.
func reresolving(est Estimate) Estimate {
	in := *est.inputs
	in.model = nil
	est.inputs = &in
	return est
}

func estimateJSON(t *testing.T, e Estimate) string {
	t.Helper()
	b, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// With reuses the model and the draft its estimate resolved: the
// recomputed estimate is the one resolving them again gives, notes and their order included,
// for every way a model is resolved or not, and a checkpoint's files are not
// read again, nor are a local draft's (they are gone by the second
// recompute).
func TestWithReusesModel(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	writeLlamaCheckpoint(t, ckpt, 2)
	draft := filepath.Join(t.TempDir(), "draft")
	writeFile(t, filepath.Join(draft, "config.json"), tinyLlama)
	local := Options{ModelConfigs: map[string]string{"acme/llama": ckpt, "acme/draft": draft}}
	speculative := []string{"--mem-fraction-static", "0.8", "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path"}
	placeholder := server("", "H100-80GB", "--mem-fraction-static", "0.8")
	placeholder.Model = deploy.Value{Raw: "$(MODEL_ID)", Span: deploy.Span{File: "serve.sh", Line: 1, Col: 40}}
	cases := []struct {
		name   string
		s      *deploy.Server
		opt    Options
		change Change
	}{
		{"local checkpoint", server("acme/llama", "H100-80GB", "--mem-fraction-static", "0.8"), local, SetFloat("--mem-fraction-static", 0.7)},
		{"vLLM local checkpoint", vllmServer("acme/llama", "H100-80GB", "--gpu-memory-utilization", "0.8"), local, SetFloat("--gpu-memory-utilization", 0.7)},
		{"local draft", server("acme/llama", "H100-80GB", append(speculative, "acme/draft")...), local, SetFloat("--mem-fraction-static", 0.7)},
		{"draft by the variant rules", server("meta-llama/Llama-3.1-8B", "H100-80GB", append(speculative, "meta-llama/Llama-3.1-8B-Chat")...), Options{Catalog: variantCatalog(t)}, SetFloat("--mem-fraction-static", 0.7)},
		{"draft not resolved", server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", append(speculative, "acme/unknown-head")...), Options{}, SetFloat("--mem-fraction-static", 0.7)},
		{"catalog", server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB"), Options{}, SetInt("--tp-size", 2)},
		{"variant rules", server("meta-llama/Llama-3.1-8B-Chat", "H100-80GB"), Options{Catalog: variantCatalog(t)}, SetInt("--context-length", 8192)},
		{"path component", server("/models/Llama-3.1-8B-Instruct", "L4"), Options{}, Unset("--mem-fraction-static")},
		{"not in the catalog", server("acme/unknown-7b", "H100-80GB"), Options{}, SetFloat("--mem-fraction-static", 0.7)},
		{"placeholder", placeholder, Options{}, SetFloat("--mem-fraction-static", 0.7)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			est := EstimateServer(c.s, c.opt)
			if est.inputs == nil || est.inputs.model == nil {
				t.Fatal("the estimate kept no model resolution")
			}
			fresh := reresolving(est)
			want, ok := fresh.With(c.change)
			if !ok {
				t.Fatal("With refused the estimate")
			}
			got, _ := est.With(c.change)
			if g, w := estimateJSON(t, got), estimateJSON(t, want); g != w {
				t.Errorf("reused model:\n%s\nresolved again:\n%s", g, w)
			}
			if gh, wh := fmt.Sprint(got.SplitsHeads(2)), fmt.Sprint(want.SplitsHeads(2)); gh != wh {
				t.Errorf("heads split over tp 2: %s reused, %s resolved again", gh, wh)
			}
			// A recompute of a recompute still holds the first resolution.
			if again, _ := got.With(c.change); estimateJSON(t, again) != estimateJSON(t, got) {
				t.Error("a second With differs from the first")
			}
		})
	}

	est := EstimateServer(cases[2].s, local)
	if est.PoolTokens == nil || !strings.HasPrefix(est.Model, ckpt) || !containsText(est.Derivation, "with draft "+draft) {
		t.Fatalf("checkpoint and draft not sized: model %q, assumptions %q", est.Model, est.Assumptions)
	}
	before, _ := est.With(SetFloat("--mem-fraction-static", 0.7))
	for _, dir := range []string{ckpt, draft} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := est.With(SetFloat("--mem-fraction-static", 0.7))
	if estimateJSON(t, after) != estimateJSON(t, before) {
		t.Errorf("With read the checkpoint again: %q", after.Assumptions)
	}
}

// BenchmarkEstimateWith measures what kvlint fix pays to judge a fix on a
// server whose model is a local checkpoint (llama8BConfig, four
// safetensors shards whose headers give the weights): one With, and one
// FractionForPool (a binary search over hundredths, about eight Withs).
// "reresolve" resolves the model on every With, as With did before the
// estimate kept its model; "reuse" is With as it is.
func BenchmarkEstimateWith(b *testing.B) {
	ckpt := filepath.Join(b.TempDir(), "ckpt")
	writeLlamaCheckpoint(b, ckpt, 4)
	est := EstimateServer(server("acme/llama", "H100-80GB", "--mem-fraction-static", "0.8"),
		Options{ModelConfigs: map[string]string{"acme/llama": ckpt}})
	if est.PoolTokens == nil {
		b.Fatalf("checkpoint not sized: %q", est.Assumptions)
	}
	need := *est.PoolTokens * 9 / 10
	fresh := reresolving(est)
	for _, v := range []struct {
		name string
		est  *Estimate
	}{{"reresolve", &fresh}, {"reuse", &est}} {
		b.Run("With/"+v.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok := v.est.With(SetFloat("--mem-fraction-static", 0.7)); !ok {
					b.Fatal("With refused the estimate")
				}
			}
		})
		b.Run("FractionForPool/"+v.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, ok := v.est.FractionForPool(need, 0.9); !ok {
					b.Fatal("no fraction holds the pool")
				}
			}
		})
	}
}
