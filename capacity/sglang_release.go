package capacity

import "github.com/kvlint/kvlint/deploy"

// sglangTRTLLMRelease is the first SGLang release with the TensorRT-LLM
// attention backends (trtllm_mla, 4b04998d3, #8632, 2025-07-31;
// trtllm_mha, 40e3b2bee, #8782, 2025-08-05): the version bump of 0.4.10.post1
// (33f0de33) on main descends from the first, that of 0.4.10 (02328864)
// does not (modal-projects/sglang, a mirror of sgl-project/sglang main; the
// version-bump commits stand for the releases, as in
// engine/data/sglang_server_history.tsv). A release before it cannot pick
// them on SM100, so its default page size is argparse's 1 (server_args.py
// at 2272c2a5, v0.4.9.post4: "if self.page_size is None: self.page_size =
// 1"), whatever the GPU. Releases after it get main's rules; when each
// release started choosing them by default on SM100 is not read here.
const sglangTRTLLMRelease = "0.4.10.post1"

// sglangBeforeTRTLLM reports whether the server runs a known SGLang release
// that has no TensorRT-LLM attention backends.
func sglangBeforeTRTLLM(r deploy.Release) bool {
	return r.Version != "" && deploy.CompareVersions(r.Version, sglangTRTLLMRelease) < 0
}
