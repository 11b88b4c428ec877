package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// sglangTRTLLMRelease is the first SGLang release with the TensorRT-LLM
// attention backends (trtllm_mla, 4b04998d3, #8632, 2025-07-31;
// trtllm_mha, 40e3b2bee, #8782, 2025-08-05): the version bump of 0.4.10.post1
// (33f0de33) on main descends from the first, that of 0.4.10 (02328864)
// does not (modal-projects/sglang, a mirror of sgl-project/sglang main; the
// version-bump commits stand for the releases, as in
// engine/data/sglang_server_history.tsv). A release before it cannot pick
// them on SM100, so its default page size is argparse's 1 (server_args.py
// at 2272c2a5, v0.4.9.post4: "if self.page_size is None: self.page_size =
// 1"), whatever the GPU. Which model each later release gives them by
// default on SM100 is sglangSM100Default's table.
const sglangTRTLLMRelease = "0.4.10.post1"

// sglangBeforeTRTLLM reports whether the server runs a known SGLang release
// that has no TensorRT-LLM attention backends.
func sglangBeforeTRTLLM(r deploy.Release) bool {
	return r.Version != "" && deploy.CompareVersions(r.Version, sglangTRTLLMRelease) < 0
}

// The default --mem-fraction-static changed rule several times. Each rule
// below was read in server_args.py ServerArgs.__post_init__ (or
// _handle_gpu_memory_settings) at the version-bump commit of the first
// release that has it, in modal-projects/sglang; the commit that brought
// the change is named with it (its first release is the first
// version-bump commit that descends from it).
type memFractionRule int

const (
	// TP table, 0.83 from tp 8 (a63c8275, 0.3.0).
	fracTP83 memFractionRule = iota
	// TP table, 0.81 from tp 8: f719d9aeb (#2053), 0.3.6 (9a00e6f4).
	fracTP
	// The TP table up to 81,920 MiB, (gpu − 13 GiB) / gpu above:
	// e69a21907 (#5604), 0.4.5.post3 (b9c87e78).
	fracTPLargeGPU
	// The table over tp × pp up to 81,920 MiB, 0.88 above, then above
	// 96 GiB min(f + 48 GiB × (1 − f) / gpu, (gpu − 18 GiB) / gpu):
	// e4b6133b7 (#5893) and 11383cec3 (#5724), 0.4.6.post2 (9858113c).
	fracParallel
	// As fracParallel, but 0.79 above 180,000 MiB on CUDA, 20 GiB kept
	// above 96 GiB with speculative decoding, and × 0.95 with it below:
	// f2bd3515f (#6718), 0.4.7 (4f723edd).
	fracB200
	// round((gpu − reserved) / gpu, 3) with reserved from a table by GPU
	// memory and tp × pp, + 2 GiB with speculative decoding (6 GiB for
	// STANDALONE from 8cda5a622, 0.5.2), + 4 GiB with DP attention:
	// 6b12d6a8d (#7054), 0.4.7.post1 (f9dc9dd2).
	fracReservedTable
	// main's rule (memfraction.go): a17e70f5c (#10975) and 05a352665
	// (#10372), 0.5.3rc2 (0b13cbb7). Later refinements of it (the
	// CUDA-graph reserve per phase, DeepEP) are not dated here: every
	// release from 0.5.3rc2 on is sized with main's.
	fracMain
)

// sglangFracRules are the first release of each rule.
var sglangFracRules = []struct {
	from string
	rule memFractionRule
}{
	{"0.3.6", fracTP},
	{"0.4.5.post3", fracTPLargeGPU},
	{"0.4.6.post2", fracParallel},
	{"0.4.7", fracB200},
	{"0.4.7.post1", fracReservedTable},
	{"0.5.3rc2", fracMain},
}

// The multimodal adjustment moved into server_args.py in 14229ccf8
// (#7748, first in 0.4.9, ec5f9c62) as "× 0.90"; 3964b352c (#6881, first
// in 0.4.9.post3, 01c00004) made it the vision-tower formula main keeps.
// Before 0.4.9 it lived outside server_args.py and is not read here.
const (
	sglangVLMInArgs  = "0.4.9"
	sglangVLMFormula = "0.4.9.post3"
	sglangStandalone = "0.5.2"
)

// sglangFracRule is the rule of a release; "" (unknown) is main's.
func sglangFracRule(version string) memFractionRule {
	if version == "" || version == "main" {
		return fracMain
	}
	rule := fracTP83
	for _, r := range sglangFracRules {
		if deploy.CompareVersions(version, r.from) >= 0 {
			rule = r.rule
		}
	}
	return rule
}

// legacyFracInput is what the rules before 0.5.3rc2 read.
type legacyFracInput struct {
	Version    string
	GPUMiB     int64 // 0 unknown
	CUDA       bool
	TP, PP     int
	Spec       string // --speculative-algorithm, "" unset
	DPAttn     bool   // --enable-dp-attention as written
	Multimodal bool
	ModelKnown bool
	Vision     memFractionInput // the vision-tower fields, for the 0.4.9.post3 formula
}

// legacyMemFraction computes the default of a release before 0.5.3rc2.
// The string is empty when it is known, else it says why not ("the
// default --mem-fraction-static " + it + ", so it is not computed").
func legacyMemFraction(rule memFractionRule, in legacyFracInput) (float64, []string, string) {
	v := in.Version
	tpTable := func(n int, at8 float64) float64 {
		switch {
		case n >= 16:
			return 0.79
		case n >= 8:
			return at8
		case n >= 4:
			return 0.85
		case n >= 2:
			return 0.87
		}
		return 0.88
	}
	gib := float64(1024)
	gpu := float64(in.GPUMiB)
	var frac float64
	var steps []string
	switch rule {
	case fracTP83, fracTP:
		at8 := 0.81
		if rule == fracTP83 {
			at8 = 0.83
		}
		frac = tpTable(in.TP, at8)
		steps = append(steps, fmt.Sprintf("mem_fraction_static = %.2f (SGLang v%s's table by tp %d)", frac, v, in.TP))
	case fracTPLargeGPU:
		if in.GPUMiB <= 0 {
			return 0, nil, "of SGLang v" + v + " depends on the GPU's memory, which is unknown"
		}
		if in.GPUMiB <= 81920 {
			frac = tpTable(in.TP, 0.81)
			steps = append(steps, fmt.Sprintf("mem_fraction_static = %.2f (SGLang v%s's table by tp %d, GPU ≤ 81,920 MiB)", frac, v, in.TP))
		} else {
			frac = (gpu - 13*gib) / gpu
			steps = append(steps, fmt.Sprintf("mem_fraction_static = (%d − 13,312) / %d = %.4f (SGLang v%s, GPU above 81,920 MiB)", in.GPUMiB, in.GPUMiB, frac, v))
		}
	case fracParallel, fracB200:
		if in.GPUMiB <= 0 && rule == fracParallel {
			return 0, nil, "of SGLang v" + v + " depends on the GPU's memory, which is unknown"
		}
		n := in.TP * in.PP
		if in.GPUMiB > 0 && in.GPUMiB <= 81920 {
			frac = tpTable(n, 0.81)
			steps = append(steps, fmt.Sprintf("mem_fraction_static = %.2f (SGLang v%s's table by tp × pp %d)", frac, v, n))
		} else {
			frac = 0.88
			steps = append(steps, fmt.Sprintf("mem_fraction_static = 0.88 (SGLang v%s, GPU above 81,920 MiB or unknown)", v))
		}
		switch {
		case rule == fracB200 && in.GPUMiB > 180000 && in.CUDA:
			frac = 0.79
			steps = append(steps, "mem_fraction_static = 0.79 on a CUDA GPU above 180,000 MiB")
		case in.GPUMiB > 96*1024:
			reserve := 18 * gib
			if rule == fracB200 && in.Spec != "" {
				reserve = 20 * gib
			}
			f := frac
			frac = math.Min(f+48*gib*(1-f)/gpu, (gpu-reserve)/gpu)
			steps = append(steps, fmt.Sprintf("above 96 GiB: min(%.2f + 49,152 × (1 − %.2f) / %d, (%d − %.0f) / %d) = %.4f", f, f, in.GPUMiB, in.GPUMiB, reserve, in.GPUMiB, frac))
		case rule == fracB200 && in.Spec != "":
			frac *= 0.95
			steps = append(steps, fmt.Sprintf("× 0.95 with speculative decoding = %.4f", frac))
		}
	case fracReservedTable:
		if in.GPUMiB <= 0 {
			frac = 0.88
			steps = append(steps, fmt.Sprintf("mem_fraction_static = 0.88 (SGLang v%s's value when the GPU memory is unknown)", v))
			break
		}
		n := float64(in.TP * in.PP)
		var reserved float64
		switch {
		case in.GPUMiB < 35*1024: // T4, 4080; A10, L40, 4090, 5090
			reserved = (2.8 + n/10) * gib
		case in.GPUMiB < 90*1024: // H100, A100
			reserved = (9.5 + n/2) * gib
		case in.GPUMiB < 160*1024: // H20, H200
			reserved = (12 + n/2) * gib
		default: // B200, MI300
			reserved = 32 * gib
		}
		steps = append(steps, fmt.Sprintf("reserved = %.0f MiB (SGLang v%s's table by GPU memory %d MiB and tp × pp %.0f)", reserved, v, in.GPUMiB, n))
		if in.Spec != "" {
			add := 2 * gib
			if in.Spec == "STANDALONE" && deploy.CompareVersions(v, sglangStandalone) >= 0 {
				add = 6 * gib
			}
			reserved += add
			steps = append(steps, fmt.Sprintf("+ %.0f MiB for speculative decoding (%s)", add, in.Spec))
		}
		if in.DPAttn {
			reserved += 4 * gib
			steps = append(steps, "+ 4,096 MiB for DP attention")
		}
		frac = pyRound3((gpu - reserved) / gpu)
		steps = append(steps, fmt.Sprintf("mem_fraction_static = round((%d − %.0f) / %d, 3) = %.3f", in.GPUMiB, reserved, in.GPUMiB, frac))
	default:
		return 0, nil, "has no rule here"
	}
	switch {
	case !in.ModelKnown && deploy.CompareVersions(v, sglangVLMInArgs) >= 0:
		return 0, nil, "of SGLang v" + v + " is lowered for a multimodal model, and the model is unknown"
	case !in.Multimodal:
	case deploy.CompareVersions(v, sglangVLMInArgs) < 0:
		return 0, nil, "of SGLang v" + v + " is lowered for a multimodal model outside server_args.py, which kvlint does not read"
	case deploy.CompareVersions(v, sglangVLMFormula) < 0:
		frac *= 0.90
		steps = append(steps, fmt.Sprintf("multimodal: × 0.90 = %.4f", frac))
	case in.Vision.VisionConfigFound:
		frac, steps = vlmAdjust(in.Vision, frac, steps)
	}
	return frac, steps, ""
}

// SGLang's default attention backend on SM100 changed release by release
// after the TensorRT-LLM backends came (sglangTRTLLMRelease). Each date
// below is the commit that brought the default and the first version-bump
// commit on modal-projects/sglang main that descends from it (as for
// sglangFracRules). Main's rule (settings.go pageSize) applies from
// sglangSM100MHARelease on; main later widened the DeepSeek family list and
// added per-model defaults (Qwen3.5, Gemma 4) that are not dated here.
const (
	// GptOssForCausalLM: trtllm_mha on SM100 whenever no backend is given,
	// speculative or not: 27985c27a (#9202), first in 0.5.0rc2 (fab0f6e7),
	// server_args.py ServerArgs._handle_model_specific_adjustments. Before
	// it the model defaults to triton, page size 1.
	sglangGptOssMHARelease = "0.5.0rc2"
	// DeepseekV3ForCausalLM without DSA: trtllm_mla on SM100 when no
	// backend flag is given: a2b3d9b90 (#11512), first in 0.5.3.post2
	// (baf277a9), server_args.py _handle_model_specific_adjustments. In
	// 0.5.3.post1 (758b887a) and before, model_runner.py
	// ModelRunner.model_specific_adjustment picks flashinfer for every MLA
	// model on SM100 ("elif is_sm100_supported(): ... = \"flashinfer\""),
	// which keeps the page size of 1.
	sglangDeepseekMLARelease = "0.5.3.post2"
	// Olmo2ForCausalLM: trtllm_mha on SM100 when --attention-backend is
	// unset: d383e6616 (#11396), first in 0.5.4 (1053e1be),
	// _handle_model_specific_adjustments.
	sglangOlmo2MHARelease = "0.5.4"
	// Llama 4: trtllm_mha on SM100 when --attention-backend is unset:
	// fcccaf900 (#13421), first in 0.5.6 (7ae368ef). Before it no release
	// picks one: 0.4.10.post1's check_server_args asserts
	// attention_backend == "fa3", and from 0.5.4.post1 (47e12e082, #12003)
	// the assignment in _handle_model_specific_adjustments comes after an
	// assert that the backend is one of fa3/aiter/triton/trtllm_mha, which
	// an unset backend fails first.
	sglangLlama4MHARelease = "0.5.6"
	// Every other non-MLA model: trtllm_mha on Blackwell unless speculative
	// decoding uses topk > 1: 3d1b591aa (#14291), server_args.py
	// _handle_attention_backend_compatibility, first in 0.5.6.post1
	// (9a327bdf), not in 0.5.6 (7ae368ef), where such a model gets
	// flashinfer (or triton) and the page size of 1.
	sglangSM100MHARelease = "0.5.6.post1"
)

// sglangSM100Default is the attention backend a known SGLang release from
// sglangTRTLLMRelease up to sglangSM100MHARelease picks on SM100 for model
// m when no backend flag is given: "" when it picks one that keeps the page
// size (flashinfer or triton). ok is false when main's rule applies: the
// release is unknown ("main" included), before the TensorRT-LLM backends
// (handled by sglangBeforeTRTLLM), or from sglangSM100MHARelease on.
func sglangSM100Default(r deploy.Release, m *Model) (backend, why string, ok bool) {
	v := r.Version
	if v == "" || v == "main" || sglangBeforeTRTLLM(r) || deploy.CompareVersions(v, sglangSM100MHARelease) >= 0 {
		return "", "", false
	}
	from := func(release string) bool { return deploy.CompareVersions(v, release) >= 0 }
	a := m.arch0()
	switch {
	case a == "DeepseekV3ForCausalLM" && !m.isDSA() && from(sglangDeepseekMLARelease):
		return "trtllm_mla", fmt.Sprintf("SGLang v%s's default for DeepseekV3ForCausalLM on SM100", v), true
	case a == "DeepseekV3ForCausalLM" && !m.isDSA():
		return "", fmt.Sprintf("SGLang v%s picks flashinfer for MLA models on SM100 (trtllm_mla is DeepSeek's default from v%s on)", v, sglangDeepseekMLARelease), true
	case m.isMLA():
		return "", fmt.Sprintf("SGLang v%s picks flashinfer for MLA models on SM100", v), true
	case a == "GptOssForCausalLM" && from(sglangGptOssMHARelease):
		return "trtllm_mha", fmt.Sprintf("SGLang v%s's default for GptOssForCausalLM on SM100", v), true
	case a == "Olmo2ForCausalLM" && from(sglangOlmo2MHARelease):
		return "trtllm_mha", fmt.Sprintf("SGLang v%s's default for Olmo2ForCausalLM on SM100", v), true
	case strings.Contains(a, "Llama4") && from(sglangLlama4MHARelease):
		return "trtllm_mha", fmt.Sprintf("SGLang v%s's default for Llama 4 on SM100", v), true
	case strings.Contains(a, "Llama4"):
		return "", fmt.Sprintf("SGLang v%s sets no default attention backend for Llama 4 (it asserts one is given; trtllm_mha is the default on SM100 from v%s on)", v, sglangLlama4MHARelease), true
	}
	return "", fmt.Sprintf("SGLang v%s picks flashinfer or triton for %s on SM100 (trtllm_mha is the default for such models from v%s on)", v, a, sglangSM100MHARelease), true
}

// sglangSM120MHARaises reports whether the release picks trtllm_mha for a
// non-MLA model on an SM120 GPU (RTX PRO 6000 Blackwell) and then refuses
// it. 3d1b591aa chose trtllm_mha when is_blackwell(), which is compute
// capability 10 or 12 (utils/common.py at 9a327bdf), and
// _handle_attention_backend_compatibility then raises "TRTLLM MHA backend is
// only supported on Blackwell GPUs (SM100)" unless is_sm100_supported()
// (capability 10). fe6d38d2f (#14842) narrowed the choice to SM100; the
// version bumps of 0.5.6.post1 (9a327bdf) and 0.5.6.post2 (5c8bd8b5) do
// not descend from it, so both releases raise. Later releases have no
// version-bump commit on main and are taken to have the fix (inferred).
// The models whose _handle_model_specific_adjustments branch sets a
// backend first (gpt-oss, Llama 4, Olmo2) never reach the choice.
func sglangSM120MHARaises(r deploy.Release, m *Model) bool {
	v := r.Version
	if v == "" || v == "main" || deploy.CompareVersions(v, sglangSM100MHARelease) < 0 || deploy.CompareVersions(v, "0.5.6.post2") > 0 {
		return false
	}
	a := m.arch0()
	return !m.isMLA() && a != "GptOssForCausalLM" && a != "Olmo2ForCausalLM" && !strings.Contains(a, "Llama4")
}
