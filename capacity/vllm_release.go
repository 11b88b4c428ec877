package capacity

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
)

// vllmV1Release is the first release whose engine is V1 by default.
// VLLM_USE_V1 became "1" by default in vllm-project/vllm d4d93db2c ("[V1]
// V1 Enablement Oracle", #13726, 2025-03-14, vllm/envs.py): the commit is
// not an ancestor of v0.7.3's ed6e9075 and is one of v0.8.3's 296c6572 (read
// in the red-hat-data-services/vllm mirror, which carries both tags). The
// tags v0.8.0–v0.8.2 are in no snapshot here (ROCm/vllm's own
// v0.8.2+rocm, a1c35e76, holds the commit), so that v0.8.0 is the first
// release with it is inferred, not read at its tag.
const vllmV1Release = "0.8.0"

// vllmEngineV0 reports whether the server runs vLLM's V0 engine by
// default: a release known and before vllmV1Release. An unknown release is
// judged as the newest, V1.
func vllmEngineV0(r deploy.Release) bool {
	return r.Version != "" && deploy.CompareVersions(r.Version, vllmV1Release) < 0
}

// V0's profiling batch (max_num_batched_tokens without the flag) changed
// across the V0 releases; read at the tags in the red-hat-data-services/vllm
// mirror (vllm/config.py SchedulerConfig, vllm/engine/arg_utils.py
// EngineArgs.create_engine_config):
//   - vllmV0LongContextRelease: chunked prefill turns itself on when
//     max_model_len > 32,768 (729171ae, #6666, first in v0.5.3, bb2fc080);
//   - vllmV0ChunkedBatchRelease: the chunked-prefill batch is 2,048, 512
//     before (02a43f82, #10544, first in v0.6.5, 2d1b9baa);
//   - vllmV0ROCmNoAutoChunkRelease: not on ROCm (00c1bde5, #11146, first in
//     v0.6.5);
//   - vllmV0MultimodalBatchRelease: a multimodal model's batch is at least
//     _MULTIMODAL_MODEL_MAX_NUM_BATCHED_TOKENS = 5,120 (absent at v0.5.5,
//     present at v0.6.0, 32e7db25).
const (
	vllmV0LongContextRelease     = "0.5.3"
	vllmV0ChunkedBatchRelease    = "0.6.5"
	vllmV0ROCmNoAutoChunkRelease = "0.6.5"
	vllmV0MultimodalBatchRelease = "0.6.0"
)

// vllmAtLeast reports whether the server's known release is r or later.
func vllmAtLeast(rel deploy.Release, r string) bool {
	return rel.Version != "" && deploy.CompareVersions(rel.Version, r) >= 0
}

// The V0 engine's startup checks, vllm/worker/worker.py
// raise_if_cache_size_invalid (at v0.6.3, fd47e57f): the same rule as V1's
// (the cache must hold one max_model_len request), in other words, and with
// no link to the docs.
const vllmV0NoMemory = "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."

// vllmV0ShortOfMemory is V0's error when max_model_len exceeds the tokens
// the cache holds (block_size × num_gpu_blocks).
func vllmV0ShortOfMemory(ctx, maxSeqLen int64) string {
	return fmt.Sprintf("ValueError: The model's max seq len (%d) is larger than the maximum number of tokens that can be stored in KV cache (%d). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", ctx, maxSeqLen)
}

// The V1 startup check's wording changed across releases; kvlint quotes the
// release's own (read at the tags in the red-hat-data-services/vllm and
// ROCm/vllm mirrors, vllm/v1/core/kv_cache_utils.py
// check_enough_kv_cache_memory / _check_enough_kv_cache_memory):
//   - v0.8.0–v0.8.3: no estimate of the longest request that fits
//     (v0.8.3, 296c6572); the estimate came with 4716377fb (#16168,
//     2025-04-08), in v0.8.4 (dc1b4a6f) and after;
//   - up to v0.10.0 (v0.9.2 a5dd03c1; v0.10.0 6d8d0a24c02b, the upstream
//     commit red-hat-data-services/vllm merges as "v0.10.0-tag"): the
//     estimate sentence is "{estimated_msg} " (two spaces when there is no
//     estimate) and neither error links the docs; the link came with
//     8580919ac (#28051, 2025-12-10).
//
// A later release is in no snapshot here, so it (and an unknown release)
// gets main's wording, vllmShortOfMemory.
const (
	vllmEstimateRelease = "0.8.4"
	vllmLastReadRelease = "0.10.0"
)

// vllmReadRelease reports whether the server's release is a V1 release the
// snapshots read (v0.8.0 to v0.10.0).
func vllmReadRelease(r deploy.Release) bool {
	return r.Version != "" && !vllmEngineV0(r) && deploy.CompareVersions(r.Version, vllmLastReadRelease) <= 0
}

// vllmNoMemory is V1's error when the cache gets no memory at all.
func vllmNoMemory(r deploy.Release) string {
	if vllmReadRelease(r) {
		return vllmV0NoMemory // the same sentence, without the docs link
	}
	return "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."
}

// vllmShortOfMemoryAt is V1's error when one max_model_len request does
// not fit, as the release words it.
func vllmShortOfMemoryAt(r deploy.Release, ctx, needed, avail, estimate int64) string {
	if !vllmReadRelease(r) {
		return vllmShortOfMemory(ctx, needed, avail, estimate)
	}
	head := fmt.Sprintf("ValueError: To serve at least one request with the models's max seq len (%d), (%.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). ",
		ctx, float64(needed)/(1<<30), float64(avail)/(1<<30))
	tail := "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."
	if deploy.CompareVersions(r.Version, vllmEstimateRelease) < 0 {
		return head + tail
	}
	based := ""
	if estimate > 0 {
		based = fmt.Sprintf("Based on the available memory, the estimated maximum model length is %d.", estimate)
	}
	return head + based + " " + tail
}
