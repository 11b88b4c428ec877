package main

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

func TestCheckSource(t *testing.T) {
	const commit = "dffc6e53e6cb6e3b4ca5a4b2c7a4d2e0f1a2b3c4"
	good := []string{
		"ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/model_configs/Qwen--Qwen3-8B_config.json",
		"mlc-ai/mlc-llm@0123456789abcdef0123456789abcdef01234567:python/mlc_llm/model/model_preset.py MODEL_PRESETS['gpt_j']",
		"https://huggingface.co/unsloth/gemma-2b-it/blob/" + commit + "/config.json",
		"https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/resolve/" + commit + "/config.json",
		"https://huggingface.co/org/name/raw/" + commit + "/sub/dir/config.json",
		"https://huggingface.co/upstage/SOLAR-10.7B-Instruct-v1.0/blame/" + commit + "/config.json",
	}
	for _, s := range good {
		if err := checkSource(s); err != nil {
			t.Errorf("checkSource(%q) = %v, want nil", s, err)
		}
	}
	bad := []string{
		"",
		"https://huggingface.co/unsloth/gemma-2b-it/blob/main/config.json",                // a branch moves
		"https://huggingface.co/unsloth/gemma-2b-it/blob/dffc6e53/config.json",            // short hash
		"http://huggingface.co/unsloth/gemma-2b-it/blob/" + commit + "/config.json",       // not https
		"https://huggingface.co.evil.example/u/g/blob/" + commit + "/config.json",         // other host
		"https://huggingface.co/unsloth/gemma-2b-it/commit/" + commit,                     // a diff, not a file
		"https://huggingface.co/unsloth/gemma-2b-it/commits/" + commit + "/config.json",   // a history page
		"https://huggingface.co/unsloth/gemma-2b-it/blob/" + commit + "/",                 // no path
		"https://huggingface.co/unsloth/gemma-2b-it/blob/" + commit + "/../x/config.json", // escapes
		"https://huggingface.co/gemma-2b-it/blob/" + commit + "/config.json",              // no org
		"https://huggingface.co/unsloth/gemma-2b-it/blob/" + commit + "/config.json?x=1",  // query
		"https://huggingface.co/datasets/u/g/blob/" + commit + "/config.json",             // a dataset repo
		"ai-dynamo/aiconfigurator@main:config.json",
		"ai-dynamo/aiconfigurator:config.json",
		"aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:config.json",
	}
	for _, s := range bad {
		if err := checkSource(s); err == nil {
			t.Errorf("checkSource(%q) = nil, want an error", s)
		}
	}
}

// TestConfigsCiteSources holds every row of configs.jsonl to the forms
// checkSource accepts.
func TestConfigsCiteSources(t *testing.T) {
	f, err := os.Open("configs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("configs.jsonl:%d: %v", n, err)
		}
		if err := checkSource(r.Source); err != nil {
			t.Errorf("configs.jsonl:%d: %v", n, err)
		}
		if r.HFQuantSource != "" {
			if err := checkSource(r.HFQuantSource); err != nil {
				t.Errorf("configs.jsonl:%d: %v", n, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("configs.jsonl is empty")
	}
}
