package runtime

import (
	"strings"
	"testing"
)

func TestInputLimitsUseSGLangMessages(t *testing.T) {
	w := Worker{PoolTokens: 2048, ContextLength: 4096, PageSize: 16}
	// max_req_len = min(4095, 2047) = 2047; max_req_input_len = 2042.
	cases := []struct {
		name          string
		input, maxNew int
		want          string
	}{
		{"input at the context length", 4096, 1, "The input (4096 tokens) is longer than the model's context length (4096 tokens)."},
		{"input plus output past the context", 3000, 2000, "Requested token count exceeds the model's maximum context length of 4096 tokens. You requested a total of 5000 tokens: 3000 tokens from the input messages and 2000 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit."},
		{"input at the pool's input limit", 2042, 1, "Input length (2042 tokens) exceeds the maximum allowed length (2042 tokens). Use a shorter input or enable --allow-auto-truncate."},
		{"input just under the limit", 2041, 1, ""},
		{"input plus output exactly the context", 2000, 2096, ""},
	}
	for _, tc := range cases {
		r := &request{rid: "r", prompt: make([]byte, tc.input), maxNew: tc.maxNew}
		got := tokenizerCheck(w, tc.input, tc.maxNew)
		if got == "" {
			got = schedulerInputCheck(w, r)
		}
		if got != tc.want {
			t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestOverlongRequestIsRejectedWith400(t *testing.T) {
	sc := twoTenants()
	sc.Prefill[0].PoolTokens = 1024
	sc.Workload.Script = []ScriptedRequest{
		{Label: "long", Tenant: "acme", Prompt: words(1, 2000), MaxTokens: 8},
		{Label: "fits", Tenant: "acme", Prompt: words(2, 500), MaxTokens: 8},
	}
	res := mustRun(t, sc)
	long := byLabel(t, res, "long")
	if long.Outcome != "rejected" || long.Status != 400 || !strings.HasPrefix(long.Error, "Input length (2000 tokens) exceeds the maximum allowed length (1018 tokens).") {
		t.Errorf("over-long request: %s %d %q", long.Outcome, long.Status, long.Error)
	}
	if fits := byLabel(t, res, "fits"); fits.Outcome != "ok" {
		t.Errorf("a request within limits ended %s: %s", fits.Outcome, fits.Error)
	}
}

func TestHandshakeMismatchFailsWithSGLangMessage(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(*Scenario)
		message string
	}{
		{"page size", func(s *Scenario) { s.Decode[0].PageSize = 32 },
			"Page size mismatch: prefill server has page_size=16, but decode server has page_size=32. Both servers must use the same --page-size value."},
		{"kv dtype", func(s *Scenario) { s.Prefill[0].KVDtype = "fp8_e4m3" },
			"KV cache dtype mismatch: prefill server has kv_cache_dtype=fp8_e4m3, but decode server has kv_cache_dtype=auto. Both servers must use the same --kv-cache-dtype value."},
	}
	for _, tc := range cases {
		sc := twoTenants()
		tc.mutate(&sc)
		sc.Workload.Script = []ScriptedRequest{{Label: "a", Tenant: "acme", Prompt: "hello", MaxTokens: 4}}
		res := mustRun(t, sc)
		got := byLabel(t, res, "a")
		if got.Outcome != "failed" || got.Status != 500 || got.Error != tc.message {
			t.Errorf("%s: %s %d %q", tc.name, got.Outcome, got.Status, got.Error)
		}
	}
	if res := mustRun(t, func() Scenario {
		sc := twoTenants()
		sc.Workload.Script = []ScriptedRequest{{Label: "a", Tenant: "acme", Prompt: "hello", MaxTokens: 4}}
		return sc
	}()); byLabel(t, res, "a").Outcome != "ok" {
		t.Error("matching page size and dtype still failed the handshake")
	}
}

func TestMaxNewTokensIsSilentlyClipped(t *testing.T) {
	sc := twoTenants()
	sc.Decode[0].PoolTokens = 1024
	sc.Workload.Script = []ScriptedRequest{{Label: "a", Tenant: "acme", Prompt: words(3, 500), MaxTokens: 600}}
	res := mustRun(t, sc)
	a := byLabel(t, res, "a")
	// min(600, max_req_len - 500 - 1 = 522, 1024 - 512 - 16 - 1 = 495)
	if a.Outcome != "ok" || a.EffectiveMaxTokens != 495 || a.CompletionTokens != 495 || res.Summary.Clipped != 1 {
		t.Fatalf("outcome %s effective %d completion %d clipped %d; want ok 495 495 1", a.Outcome, a.EffectiveMaxTokens, a.CompletionTokens, res.Summary.Clipped)
	}
}
