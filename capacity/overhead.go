package capacity

import "strings"

// The engines size their KV cache from memory they measure at startup, not
// from the data-sheet total. The memory they take before and around the
// weights (CUDA context, NCCL, allocator slack, the activation peak of a
// profiling run, CUDA graphs) is not in any file kvlint reads, so kvlint
// models it with figures calibrated on public startup logs
// (capacity/testdata/startup_logs.json, checked by TestStartupLogs). Each
// figure is reported as an assumption in the derivation.

const gib = float64(1 << 30)

// sglangPreloadGapGiB is the memory SGLang's free-memory reading has lost
// before the weights load: the CUDA context, NCCL communicators and custom
// all-reduce buffers created by model_runner.py ModelRunner.init_torch_distributed
// (modal-projects/sglang@8905cbd4), whose get_available_gpu_memory result is
// the "pre" of kv_cache_configurator.py _profile_available_bytes. Logged
// gaps: 0.84 GiB (H100, TP1), 0.86 GiB (L4, TP4), about 1.0 GiB (32 GB card),
// 3.1 GiB (H200, TP8, NVLink all-reduce buffers over eight peers).
func sglangPreloadGapGiB(tp int) float64 {
	if tp >= 8 {
		return 3.1
	}
	return 0.85
}

// sglangLoadExtraGiB is what loading leaves allocated besides the parameters
// (loader buffers, quantization scales, rotary caches): the "Load weight end"
// mem usage minus the parameter bytes in logs, +0.13 to +0.47 GiB for dense
// and MoE checkpoints.
const sglangLoadExtraGiB = 0.3

// vllmDriverReserveGiB is the gap between nvidia-smi's memory.total and the
// total cudaMemGetInfo reports, which vLLM's MemorySnapshot.measure
// (vllm/utils/mem_utils.py) and request_memory (v1/worker/utils.py) use:
// 79.65 vs 79.18 GiB on an H100, 24.0 vs 23.58 GiB on an RTX 3090.
const vllmDriverReserveGiB = 0.45

// vllmNonTorchGiB is the non-torch increase vLLM's profiler subtracts
// (gpu_worker.py determine_available_memory: CUDA context, cuBLAS and NCCL
// allocations outside PyTorch): 0.13–0.25 GiB in V1 logs.
const vllmNonTorchGiB = 0.2

// vllmActivationMiBPerToken is the profiled activation peak per token of the
// profiling batch (max_num_batched_tokens): 1.59 GiB at 2,048 tokens (RTX
// 5090), 5.66 and about 7.4 GiB at 8,192 tokens (H100) in V1 logs — about
// 0.75 MiB per token across model sizes, the logits and MoE buffers included.
const vllmActivationMiBPerToken = 0.75

// vllmDefaultBatchedTokens is EngineArgs.get_batch_defaults for the OpenAI
// server (vllm/engine/arg_utils.py): 8,192 on GPUs with at least 70 GiB that
// are not A100s, else 2,048.
func vllmDefaultBatchedTokens(g *GPU) int64 {
	total := float64(g.MemoryBytes())/gib - vllmDriverReserveGiB
	if total >= 70 && !strings.Contains(strings.ToLower(g.Name), "a100") {
		return 8192
	}
	return 2048
}

// vllmCUDAGraphGiB is the CUDA-graph memory vLLM 0.21+ counts inside the
// utilization (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, vllm#38284): 1.34
// GiB logged on an H100 (capture sizes up to the 1,024 default sequences),
// 0.09 GiB on an RTX 5090 (256 sequences). 0 with --enforce-eager.
func vllmCUDAGraphGiB(batched int64) float64 {
	if batched >= 8192 {
		return 1.3
	}
	return 0.1
}
