# METADATA
# title: Unknown flag
# description: >-
#   The command line passes an option the program does not have. SGLang,
#   vLLM and the SGLang router parse their command lines with Python's
#   argparse parse_args (sglang server_args.py prepare_server_args), which
#   exits with "unrecognized arguments" before anything is loaded. Severity
#   high: the server does not start. Flags are judged against the release
#   the server runs (its image tag, a pip pin in its Dockerfile, .kvlint.yaml
#   engine_release:, or --engine-release): a flag added after that release is
#   reported here, naming the release that added it. With the release
#   unknown, the newest flag table is used.
# related_resources:
#   - ref: https://docs.python.org/3/library/argparse.html#argparse.ArgumentParser.parse_args
#     description: parse_args exits on arguments it does not recognise
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py
#     description: prepare_server_args parses the SGLang server's flags with argparse
# custom:
#   id: KV401
#   severity: high
#   stops_start: true
#   remediation: >-
#     Fix the spelling (kvlint suggests the closest flag), or remove the
#     option if the engine version you deploy does not have it.
package kvlint.rules.unknown_flag

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "unknown"
	finding := {
		"msg": concat("", [
			lib.says(issue, sprintf("%s is not a flag of %s: argparse stops the server at startup (\"unrecognized arguments: %s\")", [
				lib.written(issue),
				lib.program(s.engine),
				lib.written(issue),
			])),
			hint(issue),
		]),
		"server": s.index,
		"issue": issue.index,
	}
}

hint(issue) := lib.unless_said(issue, issue.suggestion, sprintf("; did you mean %s?", [issue.suggestion])) if {
	issue.suggestion != ""
} else := "; remove it, or check that the engine version you deploy has it"
