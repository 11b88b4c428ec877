# METADATA
# title: Moving to another release changes what the launch means
# description: >-
#   With --engine-release, kvlint judges every server as if its image were
#   moved to that release. Besides what breaks (KV401, KV404), a move can
#   change what a launch that still starts does: a flag the launch leaves
#   unset takes another default (SGLang's --page-size 1 → None, decided by
#   the attention backend, in 0.4.9.post4; vLLM's --max-num-seqs 256 → None
#   in v0.6.5; vLLM's --gpu-memory-utilization 0.9 → 0.92 in v0.21.0), or a
#   flag it sets takes another type or other choices. The changes are read
#   from the engines' flag history (engine/data/*_history.tsv, each row with
#   the commit it was read at) and, for defaults set outside argparse, a
#   hand-written table citing the engine's commit. SGLang computes its
#   default --mem-fraction-static at startup from the GPU's memory and the
#   parallelism, by a rule that changed across releases (a TP table until
#   0.4.5.post2, reserve tables from 0.4.7.post1, main's reserve formula from
#   0.5.3rc2): when the two releases' rules give a launch that leaves it
#   unset different fractions (capacity.mem_fraction_static_from against
#   capacity.mem_fraction_static), its KV pool changes. Severity low; medium when
#   the flag sizes the KV pool or the batch, whose findings (KV101–KV104)
#   change with it.
# related_resources:
#   - ref: https://github.com/vllm-project/vllm/pull/38284
#     description: vLLM's --gpu-memory-utilization default 0.9 → 0.92
#   - ref: https://github.com/sgl-project/sglang/pull/7054
#     description: SGLang's default --mem-fraction-static from a reserve table by GPU memory (0.4.7.post1)
#   - ref: https://github.com/sgl-project/sglang/pull/10975
#     description: SGLang's default --mem-fraction-static from the activation and CUDA-graph reserve (0.5.3rc2)
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py
#     description: SGLang's server flags and their defaults, read at each release
# custom:
#   id: KV406
#   severity: low
#   remediation: >-
#     Write the flag with the value the launch relies on today (kvlint names
#     it when there is one), or check that the new default suits the
#     deployment before moving the image.
package kvlint.rules.release_change

# Flags whose default sizes the KV pool or the running batch.
pool_flags := {
	"--gpu-memory-utilization",
	"--mem-fraction-static",
	"--page-size",
	"--block-size",
	"--max-num-seqs",
	"--max-running-requests",
	"--chunked-prefill-size",
	"--max-num-batched-tokens",
	"--cuda-graph-max-bs",
	"--mamba-full-memory-ratio",
	"--kv-cache-dtype",
}

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "release-change"
	finding := object.union(
		{
			"msg": issue.message,
			"server": s.index,
			"issue": issue.index,
		},
		raise(issue),
	)
}

raise(issue) := {"severity": "medium"} if {
	issue.flag in pool_flags
} else := {}

# SGLang's default mem_fraction_static by release: capacity computes it
# with each release's rule (capacity/sglang_release.go).
deny contains finding if {
	some s in input.servers
	s.engine == "sglang"
	s.release.upgrade
	not s.opaque_args
	not s.args["--mem-fraction-static"]
	from := s.capacity.mem_fraction_static_from
	to := s.capacity.mem_fraction_static
	is_number(from)
	is_number(to)
	abs(from - to) >= 0.0005
	finding := {
		"msg": sprintf(
			"the default --mem-fraction-static this launch gets changes from %s to %s on moving from SGLang v%s to v%s: the two releases compute it by different rules, so the KV pool %s with it; this launch does not set it: write --mem-fraction-static %s to keep today's pool",
			[sprintf("%.3f", [from]), sprintf("%.3f", [to]), s.release.from, s.release.version, grows(from, to), sprintf("%.3f", [from])],
		),
		"server": s.index,
		"arg": "--mem-fraction-static",
		"severity": "medium",
	}
}

grows(from, to) := "grows" if to > from

else := "shrinks"
