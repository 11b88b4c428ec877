// Package runtime is a miniature prefill/decode-disaggregated LLM serving runtime that
// reproduces SGLang's KV-cache bookkeeping closely enough to show, with numbers, whether a
// configuration reaches the paths that leak data across tenants.
//
// Everything runs on a deterministic virtual clock: the same Scenario and seed give
// byte-identical Results. A request goes through
//
//	router ─▶ decode pre-allocation ─▶ prefill (radix match, admission, chunked prefill)
//	       ─▶ KV transfer into the decode's pages ─▶ decode batch (one token per step) ─▶ client
//
// and every byte delivered to a client is scanned for every tenant's canary.
//
// The semantics modelled, with the SGLang source they come from (paths relative to
// python/sglang/srt/ of sgl-project/sglang, as mirrored by modal-projects/sglang; see
// reference/sglang.md §3–§5 of the kvlint design notes):
//
//   - input-length limits and their messages: managers/tokenizer_manager.py
//     _validate_one_request, managers/utils.py validate_input_length,
//     managers/tp_worker.py (max_req_len, max_req_input_len),
//     managers/scheduler.py init_req_max_new_tokens, disaggregation/prefill.py and
//     disaggregation/decode.py _check_if_req_exceed_kv_capacity;
//   - the paged allocator: mem_cache/allocator/paged.py (need_sort staging in PD mode);
//   - the radix cache: mem_cache/radix_cache.py (RadixKey extra_key namespaces, lock_ref,
//     evict over unlocked leaves) and mem_cache/evict_policy.py (lru, lfu);
//   - prefill admission: managers/schedule_policy.py PrefillAdder.add_one_req (NO_TOKEN);
//   - the PD handshake: disaggregation/common/conn.py try_ensure_parallel_info;
//   - decode pre-allocation: disaggregation/decode.py pop_preallocated and
//     _allocatable_token_budgets;
//   - decode retraction: managers/schedule_batch.py retract_decode and
//     _get_decode_retraction_order (abort of the last request from PR #19881);
//   - the router's bootstrap room: sglang_router mini_lb.py.
//
// Engine paths (Mechanism: abort-still-transfers, release-in-flight,
// unchecked-bootstrap-room, salt-dropped) are known bugs of SGLang releases; the caller
// names those of the release it models. Hypotheses (Fault: stale-pages) are mechanisms no
// engine is known to have, run only on request. Both are off by default and only change
// the path they name, so a configuration that never reaches that path shows no effect.
//
// Not modelled: colocated (non-PD) serving, the hierarchical cache tiers (HiCache, L3
// stores), a radix cache on the decode side, speculative decoding, the overlap scheduler,
// priority scheduling, multiple TP/DP ranks inside one worker.
package runtime
