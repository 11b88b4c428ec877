package capacity

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// An SGLang release before the TensorRT-LLM backends keeps the page size
// of 1 on Blackwell, and says why; so does a release that has them but does
// not yet pick trtllm_mha for a Llama (before 0.5.6.post1); from that
// release on, and with the release unknown (judged as the newest), SGLang
// picks trtllm_mha and 64.
func TestSGLangPageSizeByRelease(t *testing.T) {
	for _, tc := range []struct {
		release string
		want    int
		noTRT   bool
	}{
		{"0.4.6", 1, true},
		{"0.4.10", 1, true},
		{"0.4.10.post1", 1, false},
		{"0.5.6.post1", 64, false},
		{"", 64, false},
	} {
		s := server("meta-llama/Llama-3.1-8B-Instruct", "B200")
		s.Release = deploy.Release{Engine: deploy.EngineSGLang, Version: tc.release, Source: "test"}
		est := EstimateServer(s, Options{})
		if est.PageSize != tc.want {
			t.Errorf("v%q: page size %d, want %d\n%q", tc.release, est.PageSize, tc.want, est.Assumptions)
		}
		if said := containsText(est.Assumptions, "no TensorRT-LLM attention backends"); said != tc.noTRT {
			t.Errorf("v%q: assumption said %v: %q", tc.release, said, est.Assumptions)
		}
	}
}
