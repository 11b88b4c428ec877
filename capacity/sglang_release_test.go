package capacity

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// An SGLang release before the TensorRT-LLM backends keeps the page size
// of 1 on Blackwell; from the release that has them, and with the release
// unknown (judged as the newest), SGLang picks trtllm_mha and 64.
func TestSGLangPageSizeByRelease(t *testing.T) {
	for _, tc := range []struct {
		release string
		want    int
	}{
		{"0.4.6", 1},
		{"0.4.10", 1},
		{"0.4.10.post1", 64},
		{"", 64},
	} {
		s := server("meta-llama/Llama-3.1-8B-Instruct", "B200")
		s.Release = deploy.Release{Engine: deploy.EngineSGLang, Version: tc.release, Source: "test"}
		est := EstimateServer(s, Options{})
		if est.PageSize != tc.want {
			t.Errorf("v%q: page size %d, want %d\n%q", tc.release, est.PageSize, tc.want, est.Assumptions)
		}
		if said := containsText(est.Assumptions, "no TensorRT-LLM attention backends"); said != (tc.want == 1) {
			t.Errorf("v%q: assumption said %v: %q", tc.release, said, est.Assumptions)
		}
	}
}
