package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// A release before V1 became the default fails vLLM's startup check with
// V0's error (worker.py raise_if_cache_size_invalid), in tokens; V1's and an
// unknown release's (judged as the newest) is in GiB.
func TestVLLMStartupErrorByRelease(t *testing.T) {
	for _, tc := range []struct {
		release  string
		want     string
		wantNot  string
		v0Assume bool
	}{
		{"0.6.3", "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (", "GiB", true},
		{"0.7.3", "stored in KV cache (", "GiB", true},
		{"0.8.3", "ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed", "estimated maximum", false},
		{"0.9.2", "GiB). Based on the available memory, the estimated maximum model length is ", "conserving_memory", false},
		{"", "for more details.", "stored in KV cache", false},
	} {
		t.Run(tc.release, func(t *testing.T) {
			s := vllmServer("meta-llama/Llama-3.1-8B-Instruct", "L4", "--max-model-len", "128K")
			s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: tc.release, Source: "test"}
			est := EstimateServer(s, Options{})
			if !strings.Contains(est.StartupError, tc.want) || strings.Contains(est.StartupError, tc.wantNot) {
				t.Errorf("startup error %q, want %q without %q", est.StartupError, tc.want, tc.wantNot)
			}
			said := strings.Contains(strings.Join(est.Assumptions, "\n"), "runs the V0 engine")
			if said != tc.v0Assume {
				t.Errorf("V0 assumption %v, want %v: %q", said, tc.v0Assume, est.Assumptions)
			}
		})
	}
	// No memory at all: V0's sentence has no link to the docs. 70B in BF16
	// on two 48 GB cards: the weights alone are above the 0.9 share.
	s := vllmServer("meta-llama/Llama-3.1-70B-Instruct", "L40S", "--tensor-parallel-size", "2")
	s.Release = deploy.Release{Engine: deploy.EngineVLLM, Version: "0.6.3", Source: "test"}
	if est := EstimateServer(s, Options{}); est.StartupError != vllmV0NoMemory {
		t.Errorf("startup error %q, want V0's %q", est.StartupError, vllmV0NoMemory)
	}
}
