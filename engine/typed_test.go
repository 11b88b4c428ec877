package engine

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// TestTypedValues checks the typed value Parse stores for each kind of
// flag: what argparse stores after the flag's type, nothing for a
// placeholder or a value argparse rejects. want is Typed.String() ("" for
// KindNone).
func TestTypedValues(t *testing.T) {
	tests := []struct {
		name    string
		prog    Program
		cmd     string
		flag    string
		want    string
		kind    deploy.Kind
		invalid bool // the parse reports the value
	}{
		{"int", SGLangServer, "--tp-size 8", "--tp-size", "8", deploy.KindInt, false},
		{"int with underscores", SGLangServer, "--tp-size 1_000", "--tp-size", "1000", deploy.KindInt, false},
		{"int with a sign", SGLangServer, "--page-size +16", "--page-size", "16", deploy.KindInt, false},
		{"int via an alias", SGLangServer, "--tensor-parallel-size 4", "--tp-size", "4", deploy.KindInt, false},
		{"int rejected", SGLangServer, "--tp-size eight", "--tp-size", "", deploy.KindNone, true},
		{"int beyond int64", SGLangServer, "--tp-size 99999999999999999999", "--tp-size", "", deploy.KindNone, false},
		{"placeholder", SGLangServer, "--tp-size $TP", "--tp-size", "", deploy.KindNone, false},
		{"float", SGLangServer, "--mem-fraction-static 0.85", "--mem-fraction-static", "0.85", deploy.KindFloat, false},
		{"float written as an int", SGLangServer, "--mem-fraction-static 1", "--mem-fraction-static", "1.0", deploy.KindFloat, false},
		{"float rejected", SGLangServer, "--mem-fraction-static 0x1p-1", "--mem-fraction-static", "", deploy.KindNone, true},
		{"float outside the engine's range keeps its number", SGLangServer, "--swa-full-tokens-ratio 2", "--swa-full-tokens-ratio", "2.0", deploy.KindFloat, true},
		{"human-readable int, SI", SGLangServer, "--context-length 32k", "--context-length", "32000", deploy.KindInt, false},
		{"human-readable int, IEC", SGLangServer, "--context-length 128Ki", "--context-length", "131072", deploy.KindInt, false},
		{"human-readable int, wrong case", SGLangServer, "--context-length 32K", "--context-length", "", deploy.KindNone, true},
		{"store_true", SGLangServer, "--enable-dp-attention", "--enable-dp-attention", "true", deploy.KindBool, false},
		{"store_true written with a value stores true", SGLangServer, "--enable-dp-attention=false", "--enable-dp-attention", "true", deploy.KindBool, true},
		{"store-const writes a choice", SGLangServer, "--enable-breakable-cuda-graph", "--cuda-graph-backend-prefill", `"breakable"`, deploy.KindString, false},
		{"choice", SGLangServer, "--disaggregation-mode prefill", "--disaggregation-mode", `"prefill"`, deploy.KindString, false},
		{"choice rejected", SGLangServer, "--disaggregation-mode both", "--disaggregation-mode", "", deploy.KindNone, true},
		{"string", SGLangServer, "--model-path meta-llama/Llama-3.1-8B", "--model-path", `"meta-llama/Llama-3.1-8B"`, deploy.KindString, false},
		{"nargs list of ints", SGLangServer, "--cuda-graph-bs 1 2 4", "--cuda-graph-bs-decode", "[1, 2, 4]", deploy.KindList, false},
		{"nargs list with a rejected item", SGLangServer, "--cuda-graph-bs 1 two 4", "--cuda-graph-bs-decode", "", deploy.KindNone, true},
		{"nargs list with a placeholder", SGLangServer, "--cuda-graph-bs 1 $MORE", "--cuda-graph-bs-decode", "", deploy.KindNone, false},
		{"JSON object", SGLangServer, `--preferred-sampling-params {"temperature":0.5,"n":2,"stop":["a"]}`, "--preferred-sampling-params", `{"temperature": 0.5, "n": 2, "stop": ["a"]}`, deploy.KindObject, false},
		{"JSON rejected", SGLangServer, `--preferred-sampling-params {"n":}`, "--preferred-sampling-params", "", deploy.KindNone, true},
		{"type kvlint does not interpret", SGLangServer, "--cuda-graph-config x", "--cuda-graph-config", "", deploy.KindNone, false},
		{"vLLM 1k is decimal", VLLMServer, "m --max-num-batched-tokens 1k", "--max-num-batched-tokens", "1000", deploy.KindInt, false},
		{"vLLM 1K is binary", VLLMServer, "m --max-num-batched-tokens 1K", "--max-num-batched-tokens", "1024", deploy.KindInt, false},
		{"vLLM auto", VLLMServer, "m --max-model-len auto", "--max-model-len", "-1", deploy.KindInt, false},
		{"vLLM decimal with a binary suffix", VLLMServer, "m --max-model-len 1.5K", "--max-model-len", "", deploy.KindNone, true},
		{"vLLM optional None", VLLMServer, "m --num-gpu-blocks-override None", "--num-gpu-blocks-override", "null", deploy.KindNull, false},
		{"vLLM --no- form", VLLMServer, "m --no-enable-prefix-caching", "--enable-prefix-caching", "false", deploy.KindBool, false},
		{"vLLM config JSON", VLLMServer, `m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_both"}`, "--kv-transfer-config", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, deploy.KindObject, false},
		{"vLLM config JSON key", VLLMServer, `m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_both"}`, "--kv-transfer-config.kv_role", `"kv_both"`, deploy.KindString, false},
		{"vLLM dotted keys", VLLMServer, "m --kv-transfer-config.kv_role kv_producer --kv-transfer-config.kv_connector NixlConnector --kv-transfer-config.kv_port 2k", "--kv-transfer-config", `{"kv_role": "kv_producer", "kv_connector": "NixlConnector", "kv_port": 2000}`, deploy.KindObject, false},
		{"vLLM dotted key", VLLMServer, "m --kv-transfer-config.kv_port 2k --kv-transfer-config.kv_role kv_producer", "--kv-transfer-config.kv_port", "2000", deploy.KindInt, false},
		{"router append list", SGLangRouter, "--prefill http://a:1 8998 --prefill http://b:2", "--prefill", `[["http://a:1", "8998"], ["http://b:2"]]`, deploy.KindList, false},
		{"router append with a placeholder", SGLangRouter, "--prefill http://a:1 --prefill $URL", "--prefill", "", deploy.KindNone, false},
		{"router store_true", SGLangRouter, "--service-discovery", "--service-discovery", "true", deploy.KindBool, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Lookup(tt.prog).Parse(line(tt.cmd), nil)
			v, ok := res.Args[tt.flag]
			if !ok {
				t.Fatalf("%s not in Args %v", tt.flag, res.Args)
			}
			if got := v.Typed.String(); got != tt.want || v.Typed.Kind() != tt.kind {
				t.Errorf("typed %s (%s), want %s (%s)", got, v.Typed.Kind(), tt.want, tt.kind)
			}
			if invalid := len(issuesOf(res, deploy.FlagInvalidValue)) > 0; invalid != tt.invalid {
				t.Errorf("invalid-value issue: %v, want %v (%v)", invalid, tt.invalid, res.Issues)
			}
		})
	}
}

// TestTypedStripsLikePython: Python's int() strips the white space a quoted
// shell word can keep, so " 8 " is 8.
func TestTypedStripsLikePython(t *testing.T) {
	argv := []deploy.Value{deploy.Known("--tp-size", deploy.Span{}), deploy.Known(" 8 ", deploy.Span{})}
	res := Lookup(SGLangServer).Parse(argv, nil)
	if n, ok := res.Args["--tp-size"].Typed.Int(); !ok || n != 8 {
		t.Errorf("--tp-size ' 8 ': got %d, %v; want 8", n, ok)
	}
	if len(res.Issues) != 0 {
		t.Errorf("issues: %v", res.Issues)
	}
}

// TestTypedFromConfigFile: values merged from --config are typed like the
// command line's, and a false store_true key sets nothing.
func TestTypedFromConfigFile(t *testing.T) {
	read := files(map[string]string{"c.yaml": "tp-size: 4\ncontext-length: 32k\nenable-dp-attention: false\ncuda-graph-bs: [1, 2]\n"})
	res := Lookup(SGLangServer).Parse(line("--config c.yaml"), read)
	for flag, want := range map[string]string{"--tp-size": "4", "--context-length": "32000", "--cuda-graph-bs-decode": "[1, 2]"} {
		if got := res.Args[flag].Typed.String(); got != want {
			t.Errorf("%s: typed %q, want %q", flag, got, want)
		}
	}
	if v, ok := res.Args["--enable-dp-attention"]; ok {
		t.Errorf("--enable-dp-attention: false set %+v", v)
	}
}
