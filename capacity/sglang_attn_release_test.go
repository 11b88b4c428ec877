package capacity

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// The default attention backend on Blackwell by pinned SGLang release, and
// the page size it forces: each case pairs the last release without a
// model's SM100 default with the first that has it.
func TestSGLangSM100DefaultByRelease(t *testing.T) {
	for _, tc := range []struct {
		model, release string
		args           []string
		want           int
		said           string // a derivation step that must be there
	}{
		// DeepseekV3ForCausalLM: flashinfer up to 0.5.3.post1, trtllm_mla
		// (page 64) from 0.5.3.post2 (a2b3d9b90).
		{"deepseek-ai/DeepSeek-R1", "0.5.3", nil, 1, "picks flashinfer for MLA models on SM100"},
		{"deepseek-ai/DeepSeek-R1", "0.5.3.post1", nil, 1, "trtllm_mla is DeepSeek's default from v0.5.3.post2 on"},
		{"deepseek-ai/DeepSeek-R1", "0.5.3.post2", nil, 64, "attention backend trtllm_mla (SGLang v0.5.3.post2's default"},
		{"deepseek-ai/DeepSeek-R1", "0.5.4", nil, 64, "attention backend trtllm_mla"},
		{"deepseek-ai/DeepSeek-R1", "", nil, 64, "TensorRT-LLM MLA supports 32 or 64"},
		// A written page size other than 32 or 64 is snapped only where the
		// release picks trtllm_mla.
		{"deepseek-ai/DeepSeek-R1", "0.5.3.post1", []string{"--page-size", "16"}, 16, "page size 16 (--page-size)"},
		{"deepseek-ai/DeepSeek-R1", "0.5.4", []string{"--page-size", "16"}, 64, "TensorRT-LLM MLA supports 32 or 64"},
		// Other non-MLA models: flashinfer (page 1) through 0.5.6,
		// trtllm_mha (page 64) from 0.5.6.post1 (3d1b591aa).
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6", nil, 1, "trtllm_mha is the default for such models from v0.5.6.post1 on"},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6.post1", nil, 64, "TensorRT-LLM MHA"},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6.post2", nil, 64, "TensorRT-LLM MHA"},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.0rc2", nil, 1, "picks flashinfer or triton"},
		// gpt-oss had trtllm_mha on SM100 long before the others.
		{"openai/gpt-oss-120b", "0.5.0rc1", nil, 1, "picks flashinfer or triton"},
		{"openai/gpt-oss-120b", "0.5.0rc2", nil, 64, "attention backend trtllm_mha (SGLang v0.5.0rc2's default for GptOssForCausalLM"},
		{"openai/gpt-oss-120b", "0.5.6", nil, 64, "attention backend trtllm_mha"},
		{"openai/gpt-oss-120b", "0.5.6.post1", nil, 64, "TensorRT-LLM MHA"},
		// Llama 4: no default before 0.5.6, trtllm_mha from it.
		{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "0.5.5.post3", nil, 1, "sets no default attention backend for Llama 4"},
		{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "0.5.6", nil, 64, "attention backend trtllm_mha (SGLang v0.5.6's default for Llama 4"},
		// A backend written on the command line is the release's choice too.
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6", []string{"--attention-backend", "trtllm_mha"}, 64, "TensorRT-LLM MHA"},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6.post1", []string{"--attention-backend", "flashinfer"}, 1, "page size 1 (SGLang's default on CUDA)"},
	} {
		s := server(tc.model, "B200", tc.args...)
		s.Release = deploy.Release{Engine: deploy.EngineSGLang, Version: tc.release, Source: "test"}
		est := EstimateServer(s, Options{})
		if est.PageSize != tc.want {
			t.Errorf("%s v%q %v: page size %d, want %d\n%q", tc.model, tc.release, tc.args, est.PageSize, tc.want, est.Derivation)
		}
		if !containsText(est.Derivation, tc.said) {
			t.Errorf("%s v%q %v: no step says %q:\n%q", tc.model, tc.release, tc.args, tc.said, est.Derivation)
		}
	}
}

// Off Blackwell the pinned release changes nothing: H100 keeps page 1.
func TestSGLangSM100DefaultOnlyOnSM100(t *testing.T) {
	for _, r := range []string{"0.5.3", "0.5.6", ""} {
		s := server("deepseek-ai/DeepSeek-R1", "H100-80GB")
		s.Release = deploy.Release{Engine: deploy.EngineSGLang, Version: r, Source: "test"}
		est := EstimateServer(s, Options{})
		if est.PageSize != 1 || containsText(est.Derivation, "on SM100") {
			t.Errorf("v%q on H100: page size %d\n%q", r, est.PageSize, est.Derivation)
		}
	}
}

// On an SM120 GPU 0.5.6.post1 and 0.5.6.post2 pick trtllm_mha for a Llama
// and refuse it; 0.5.6 (no such choice), the newest release and gpt-oss
// (its own branch) do not.
func TestSGLangSM120MHARaises(t *testing.T) {
	for _, tc := range []struct {
		model, release string
		want           bool
	}{
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6", false},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6.post1", true},
		{"meta-llama/Llama-3.1-8B-Instruct", "0.5.6.post2", true},
		{"meta-llama/Llama-3.1-8B-Instruct", "", false},
		{"meta-llama/Llama-3.1-8B-Instruct", "main", false},
		{"openai/gpt-oss-20b", "0.5.6.post1", false},
	} {
		s := server(tc.model, "RTX-PRO-6000-Blackwell")
		s.Release = deploy.Release{Engine: deploy.EngineSGLang, Version: tc.release, Source: "test"}
		est := EstimateServer(s, Options{})
		if got := containsText(est.Derivation, "TRTLLM MHA backend is only supported"); got != tc.want {
			t.Errorf("%s v%q: said %v, want %v\n%q", tc.model, tc.release, got, tc.want, est.Derivation)
		}
		if est.PageSize != 1 {
			t.Errorf("%s v%q: page size %d on SM120, want 1", tc.model, tc.release, est.PageSize)
		}
	}
}
