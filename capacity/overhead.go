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
// before the weights load, the "pre" of kv_cache_configurator.py
// _profile_available_bytes: distributed/bootstrap.py init_torch_distributed
// measures it with get_available_gpu_memory(distributed=True), the MIN over
// ranks of cudaMemGetInfo's free memory (utils/common.py), after the CUDA
// context, the NCCL communicators and the custom all-reduce buffers exist
// (modal-projects/sglang@8905cbd4). kvlint models it as the CUDA context and
// driver reserve, the same on every GPU, plus communication buffers for each
// peer on an NVLink fabric. On more than two PCIe-only GPUs SGLang disables
// its custom all-reduce (custom_all_reduce_utils.py
// can_use_custom_all_reduce_with_nvlink: "not supported on more than two
// PCIe-only GPUs") and the logged gap stays at the single-GPU figure.
//
// The two constants are fitted on the pre-load figures of public logs
// (memory.total − "Load weight begin. avail mem"), listed with their sources
// in sglangPreloadObservations (overhead_test.go), which checks every one.
//
// A rank's NVLink peers are the other ranks of its tensor-parallel group on
// its machine, at most seven on the eight-GPU boards these parts ship in:
// the pipeline group gets no custom all-reduce ("pipeline parallel does not
// need custom allreduce", use_custom_allreduce=False for _PP in
// python/sglang/srt/distributed/parallel_state.py at
// modal-projects/sglang@8905cbd42f4a), and ranks on other nodes talk over
// the network.
func sglangPreloadGapGiB(g *GPU, tp int) float64 {
	return sglangContextGiB + float64(sglangNVLinkPeers(g, tp))*sglangPeerBufferGiB
}

// sglangNVLinkPeers is the number of NVLink peers a rank of a tp-way
// tensor-parallel group allocates custom all-reduce buffers for.
func sglangNVLinkPeers(g *GPU, tp int) int {
	if tp <= 1 || !nvlinkFabric(g) {
		return 0
	}
	return min(tp, 8) - 1
}

// sglangContextGiB is the gap on one GPU, the mean of the observations
// without peer buffers: 0.84 GiB on an H100 (TP1), 0.86 GiB on four PCIe
// L4s and 0.72 GiB on a 49,140 MiB Ada/Ampere workstation card (TP1),
// 0.81 GiB. The gap varies by driver and CUDA release as much as by GPU;
// the Blackwell observations (1.49 GiB on a B200, 1.80 GiB on a GB300, both
// 2026) are larger and not modelled (sglangPreloadUnmodelled).
const sglangContextGiB = 0.81

// sglangPeerBufferGiB is the further gap per NVLink peer: 3.11 GiB was
// logged on eight 141 GB Hopper GPUs (sgl-project/sglang#11716),
// (3.11 − 0.81) / 7 peers. Linear in the peers is an
// assumption: no TP2 or TP4 pre-load figure on an NVLink machine is among
// the observations.
const sglangPeerBufferGiB = 0.329

// nvlinkFabric says the GPU is sold as an NVLink-switch (SXM/HGX) part, where
// SGLang's custom all-reduce runs between all TP ranks. PCIe cards (L4, A10G,
// RTX, L40S, the PCIe and NVL H100s) and AMD GPUs (not calibrated) are not.
// SGLang sets the all-reduce up only when the TP group is on one node and
// either fully NVLink-connected or two GPUs ("not supported on more than
// two PCIe-only GPUs": modal-projects/sglang@8905cbd42f4a
// python/sglang/srt/distributed/device_communicators/custom_all_reduce_utils.py
// can_use_custom_all_reduce_with_nvlink, is_full_nvlink); kvlint cannot
// query the links, so it reads the form factor from the catalog name: SXM
// in the name, or a part NVIDIA ships only as an HGX/SXM board (H20,
// H800, B200, B300, GB200, GB300).
func nvlinkFabric(g *GPU) bool {
	if g == nil || g.Vendor != "NVIDIA" {
		return false
	}
	n := strings.ToUpper(g.Name)
	if strings.Contains(n, "SXM") {
		return true
	}
	for _, p := range []string{"H20-", "H800", "B200", "B300", "GB200", "GB300"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
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
// It is V1's figure: a release that runs V0 profiles another batch with
// another figure (profileBatchVLLM, vllmV0ActivationMiBPerToken).
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
