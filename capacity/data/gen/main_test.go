package main

import "testing"

func TestCheckSource(t *testing.T) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	good := []string{
		"ai-dynamo/aiconfigurator@" + c + ":aic-core/model_configs/Qwen--Qwen3-8B_config.json",
		"mlc-ai/mlc-llm@" + c + ":python/mlc_llm/model/model_preset.py MODEL_PRESETS['gptj']",
		"https://huggingface.co/google/gemma-2b-it/blob/" + c + "/config.json",
		"https://huggingface.co/unsloth/gemma-2b-it/blob/" + c + "/sub/dir/config.json",
		"https://huggingface.co/google/gemma-2b-it/resolve/" + c + "/config.json",
		"https://huggingface.co/google/gemma-2b-it/raw/" + c + "/config.json",
		"https://huggingface.co/unsloth/codegemma-7b-it/blame/" + c + "/config.json",
	}
	bad := []string{
		"",
		"ai-dynamo/aiconfigurator@main:config.json",           // a branch moves
		"ai-dynamo/aiconfigurator@" + c[:39] + ":config.json", // short commit
		"ai-dynamo/aiconfigurator@" + c,                       // no path
		"aiconfigurator@" + c + ":config.json",                // no owner
		"https://huggingface.co/google/gemma-2b-it/blob/main/config.json",
		"https://huggingface.co/google/gemma-2b-it/resolve/main/config.json",
		"https://huggingface.co/google/gemma-2b-it/blob/refs%2Fpr%2F2/config.json",
		"https://huggingface.co/google/gemma-2b-it/tree/" + c + "/config.json",
		"https://huggingface.co/google/gemma-2b-it/commit/" + c,
		"http://huggingface.co/google/gemma-2b-it/blob/" + c + "/config.json",
		"https://huggingface.co.evil.example/google/gemma-2b-it/blob/" + c + "/config.json",
		"https://huggingface.co/google/blob/" + c + "/config.json",
		"https://huggingface.co/google/gemma-2b-it/blob/" + c + "/../config.json",
		"https://huggingface.co/google/gemma-2b-it/blob/" + c + "/config.json?download=true",
		"https://huggingface.co/google/gemma-2b-it/blob/" + c + "/",
		"https://huggingface.co/datasets/x/blob/" + c + "/config.json",
	}
	for _, s := range good {
		if err := checkSource(s); err != nil {
			t.Errorf("checkSource(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range bad {
		if err := checkSource(s); err == nil {
			t.Errorf("checkSource(%q) = nil, want an error", s)
		}
	}
}
