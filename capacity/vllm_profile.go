package capacity

import (
	"fmt"
	"strings"
)

// vLLM sizes its KV cache from what one profiling run leaves: the run pushes
// a dummy batch of max_num_batched_tokens tokens through the model and the
// peak of PyTorch's allocator over the weights is taken from the memory the
// utilization grants. How large that batch is depends on the engine:
//
//   - V1 always chunks prefills and, with no --max-num-batched-tokens, takes
//     EngineArgs' usage-context default for the OpenAI server
//     (vllmDefaultBatchedTokens).
//   - V0 (a plain `vllm serve` before vllmV1Release) takes SchedulerConfig's
//     default: max(max_model_len, 2048) without chunked prefill, 512 or
//     2,048 tokens with it, and turns chunked prefill on by itself for a
//     context above 32K. Its profile_run (vllm/worker/model_runner.py
//     GPUModelRunner.profile_run, v0.6.4.post1 a6221a14) spreads exactly
//     max_num_batched_tokens tokens over max_num_seqs prompt sequences, so a
//     long --max-model-len makes a long profiling batch and a large peak.
//
// vllmV0ActivationMiBPerToken is V0's peak per token of that batch. V0
// computes logits for one token per prompt: profile_run's SamplingParams ask
// for no prompt logprobs, so SamplingMetadata._prepare_seq_groups
// (vllm/model_executor/sampling_metadata.py, v0.6.4.post1) selects only the
// sampled token of each of the max_num_seqs prompts. V0 logs show a peak
// per token several times below V1's calibrated figure (overhead.go), so V0
// gets its own. It is calibrated on one V0 log, vllm-project/vllm#10511
// (2024-12-13, vllm serve meta-llama/Meta-Llama-3-8B on an H100: "PyTorch
// activation peak memory 1.26GiB" with max_model_len 8,192, hence a
// profiling batch of max(8192, 2048) = 8,192 tokens): 1.26 GiB / 8,192 =
// 0.16 MiB. The same log shows 1.26 GiB at TP2, so part of that peak does
// not shrink with tensor parallelism; kvlint does not split it.
const vllmV0ActivationMiBPerToken = 0.16

// vllmV0LongContext is the max_model_len above which V0 turns chunked
// prefill on when the launch does not say (use_long_context in
// EngineArgs.create_engine_config).
const vllmV0LongContext = 32768

// vllmMultimodalBatchedTokens is V0's _MULTIMODAL_MODEL_MAX_NUM_BATCHED_TOKENS.
const vllmMultimodalBatchedTokens = 5120

// maxBatchedTokens bounds --max-num-batched-tokens: a batch of more tokens
// than any context is no launch kvlint sizes, and the arithmetic on it
// (the window plus a batch, the activation peak) would overflow.
const maxBatchedTokens = 1 << 31

// batchedFlag reads --max-num-batched-tokens; a value kvlint cannot size
// with is unknown, and the estimate says why.
func (e *vllmEstimator) batchedFlag() (int64, argState) {
	n, st := e.r.int("--max-num-batched-tokens")
	if st == argSet && (n <= 0 || n > maxBatchedTokens) {
		e.est.notSized("--max-num-batched-tokens %d is outside the 1 to %s tokens kvlint sizes, so the cache is not sized", n, Thousands(maxBatchedTokens))
		return 0, argUnknown
	}
	return n, st
}

// profileBatchVLLM returns the tokens of vLLM's profiling batch and whether
// the server runs V0; ok is false when the batch cannot be known, with the
// reason given as an assumption.
func (e *vllmEstimator) profileBatchVLLM() (batched int64, v0, ok bool) {
	v0 = vllmEngineV0(e.s.Release)
	n, st := e.batchedFlag()
	switch {
	case st == argSet && n > 0:
		return n, v0, true
	case st == argUnknown:
		return 0, v0, false
	}
	if !v0 {
		// V1, or a release kvlint does not know, judged as the newest.
		batched = vllmDefaultBatchedTokens(e.gpu)
		if e.s.Release.Version == "" && st == argUnset {
			e.est.assume("the vLLM release is unknown: kvlint takes V1's profiling batch of %s tokens; a release before v%s runs V0, which profiles max(max_model_len, 2048) tokens without chunked prefill (pin the image or declare --max-num-batched-tokens)", Thousands(batched), vllmV1Release)
		}
		return batched, false, true
	}
	if st == argUnknown {
		return 0, true, false
	}
	ver := e.s.Release.Version
	chunked, cst := e.r.bool("--enable-chunked-prefill")
	why := ""
	switch cst {
	case argUnknown:
		return 0, true, false
	case argSet:
		why = fmt.Sprintf("--enable-chunked-prefill %v", chunked)
	default:
		var known bool
		chunked, known, why = e.v0AutoChunked()
		if !known {
			return 0, true, false
		}
	}
	if chunked {
		// SchedulerConfig: "the values that have the best balance between
		// ITL and TTFT"; with --num-scheduler-steps > 1 (a flag kvlint's
		// tables no longer hold) it is max(max_model_len, 2048) instead.
		batched = 512
		if vllmAtLeast(e.s.Release, vllmV0ChunkedBatchRelease) {
			batched = 2048
		}
		why += fmt.Sprintf(": chunked prefill, %d tokens on v%s", batched, ver)
	} else {
		if !e.ctxKnown || e.ctx <= 0 {
			e.est.assume("vLLM v%s runs the V0 engine, whose profiling batch without chunked prefill is max(max_model_len, 2048) tokens: max_model_len is unknown, so the memory the profile takes is too", ver)
			return 0, true, false
		}
		batched = max(e.ctx, 2048)
		where := ""
		if v, ok := e.s.Args["--max-model-len"]; ok && v.Known && !e.ctxAuto {
			where = at(v.Span) // the value that sets the batch
		}
		why += fmt.Sprintf(": no chunked prefill, max(max_model_len %s%s, 2048)", Thousands(e.ctx), where)
	}
	if e.model != nil && e.model.isMultimodal() && vllmAtLeast(e.s.Release, vllmV0MultimodalBatchRelease) && batched < vllmMultimodalBatchedTokens {
		batched = vllmMultimodalBatchedTokens
		why += fmt.Sprintf(", raised to %d for a multimodal model", vllmMultimodalBatchedTokens)
	}
	e.est.assume("vLLM v%s runs the V0 engine (V1 is the default from v%s on): its profiling run pushes max_num_batched_tokens = %s tokens through the model (%s; vllm/config.py SchedulerConfig), not V1's default batch", ver, vllmV1Release, Thousands(batched), why)
	return batched, true, true
}

// v0AutoChunked decides whether V0 turns chunked prefill on by itself: a
// release from vllmV0LongContextRelease on, max_model_len above 32K, a CUDA
// device, no sliding window, no speculative model, no LoRA, no prompt
// adapter, not a multimodal model (EngineArgs.create_engine_config at
// v0.6.4.post1; from v0.6.5 also not on ROCm and not a pooling model).
// known is false when what decides it is not in the files kvlint read.
// Pooling (embedding) models, whose V0 batch is at least 32,768 tokens, are
// not told apart: kvlint sizes a generative model.
func (e *vllmEstimator) v0AutoChunked() (chunked, known bool, why string) {
	rel := e.s.Release
	if !vllmAtLeast(rel, vllmV0LongContextRelease) {
		return false, true, fmt.Sprintf("no --enable-chunked-prefill: off by default before v%s", vllmV0LongContextRelease)
	}
	if !e.ctxKnown || e.ctx <= 0 {
		e.est.assume("vLLM v%s turns chunked prefill on by itself when max_model_len exceeds %s: max_model_len is unknown, so the profiling batch is too; declare --max-model-len, --enable-chunked-prefill or --max-num-batched-tokens", rel.Version, Thousands(vllmV0LongContext))
		return false, false, ""
	}
	if e.ctx <= vllmV0LongContext {
		return false, true, fmt.Sprintf("no --enable-chunked-prefill and max_model_len %s is not above %s", Thousands(e.ctx), Thousands(vllmV0LongContext))
	}
	off := func(reason string) (bool, bool, string) {
		return false, true, fmt.Sprintf("no --enable-chunked-prefill: max_model_len %s is above %s, but V0 leaves chunked prefill off %s", Thousands(e.ctx), Thousands(vllmV0LongContext), reason)
	}
	if e.model != nil && e.model.isMultimodal() {
		return off("for a multimodal model")
	}
	if e.gpu != nil && strings.EqualFold(e.gpu.Vendor, "AMD") && vllmAtLeast(rel, vllmV0ROCmNoAutoChunkRelease) {
		return off("on ROCm")
	}
	switch lora, st := e.r.bool("--enable-lora"); {
	case st == argUnknown:
		return false, false, ""
	case st == argSet && lora:
		return off("with --enable-lora")
	}
	if e.model != nil && e.model.SlidingWindow > 0 {
		if off, _ := e.r.bool("--disable-sliding-window"); !off {
			// get_sliding_window is None when the config sets
			// use_sliding_window false (Qwen2), which kvlint's model facts
			// do not keep.
			e.est.assume("vLLM v%s turns chunked prefill on for max_model_len %s unless the model uses its sliding window (config use_sliding_window), which kvlint does not know for %s: declare --enable-chunked-prefill or --max-num-batched-tokens", rel.Version, Thousands(e.ctx), e.model.ID)
			return false, false, ""
		}
	}
	return true, true, fmt.Sprintf("no --enable-chunked-prefill: on by default for max_model_len %s > %s (unless a speculative model or a prompt adapter is set, flags kvlint's tables no longer hold)", Thousands(e.ctx), Thousands(vllmV0LongContext))
}
