# METADATA
# title: Deprecated or removed flag
# description: >-
#   A deprecated flag still works: SGLang keeps aliases such as
#   --cuda-graph-max-bs → --cuda-graph-max-bs-decode and --disable-cuda-graph
#   (server_args.py add_cli_args). Severity low: nothing breaks today, but the
#   alias goes away in a later release. A removed flag is severity high: the
#   parser no longer has it, argparse exits with "unrecognized arguments", and
#   the server does not start (for example --disaggregation-decode-tp and
#   --disaggregation-decode-dp, removed by sglang#19618; KV209 reports the
#   removed --disaggregation-* flags of SGLang servers, with what they do to
#   the deployment, so they are not reported twice). A flag that the release
#   the server runs (its image tag, a pinned release) still accepts but a
#   later release removed is low: this launch breaks when the image moves
#   past it. A deprecation is judged against that release too (the flag
#   history, engine/data/*_history.tsv): a flag deprecated only after it
#   is the option itself there and no finding (--cuda-graph-max-bs on the
#   image lmsysorg/sglang with tag v0.5.3: an alias of
#   --cuda-graph-max-bs-decode only since sglang#23906); moved past it with
#   --engine-release, it is this rule's low finding naming the release that
#   deprecated it, not also KV406's.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py
#     description: deprecated aliases kept in add_cli_args
#   - ref: https://github.com/sgl-project/sglang/pull/23906
#     description: made --cuda-graph-max-bs a deprecated alias of --cuda-graph-max-bs-decode, after v0.5.6.post2
#   - ref: https://github.com/sgl-project/sglang/pull/19618
#     description: removed the --disaggregation-decode-tp/-dp and --disaggregation-prefill-pp flags
# custom:
#   id: KV404
#   severity: low
#   stops_start: high
#   remediation: >-
#     Write the flag's replacement (kvlint names it when there is one), or drop
#     a removed flag whose setting the engine now derives itself.
package kvlint.rules.deprecated_flag

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "deprecated"
	finding := {
		"msg": concat("", [
			lib.says(issue, sprintf("%s is deprecated and will be removed from %s in a later release", [
				lib.written(issue),
				lib.program(s.engine),
			])),
			replacement(issue),
		]),
		"server": s.index,
		"issue": issue.index,
	}
}

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "removed"
	not pd_flag(s, issue)
	finding := {
		"msg": concat("", [
			lib.says(issue, sprintf("%s was removed from %s: argparse stops the server at startup (\"unrecognized arguments\")", [
				lib.written(issue),
				lib.program(s.engine),
			])),
			replacement(issue),
		]),
		"server": s.index,
		"issue": issue.index,
		"severity": "high",
	}
}

# A flag the release the server runs accepts but a later release removed
# (engine/data/*_history.tsv): the launch works today and breaks on the
# next image bump. Severity low, the rule's own.
deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "removed-later"
	finding := {
		"msg": lib.says(issue, sprintf("%s was removed from %s in a later release: this launch breaks when the image moves past it", [
			lib.written(issue),
			lib.program(s.engine),
		])),
		"server": s.index,
		"issue": issue.index,
	}
}

replacement(issue) := lib.unless_said(issue, issue.suggestion, sprintf("; write %s instead", [issue.suggestion])) if {
	issue.suggestion != ""
} else := ""

# pd_flag: a removed SGLang disaggregation flag, which KV209
# (disaggregation/pd_flag_hazards.rego) reports.
pd_flag(s, issue) if {
	s.engine == "sglang"
	startswith(issue.flag, "--disaggregation-")
}
