# METADATA
# title: Abbreviated or ambiguous flag
# description: >-
#   argparse accepts any unique prefix of a long option (allow_abbrev is left
#   on in SGLang's parser, server_args.py prepare_server_args), so "--tp"
#   works as "--tp-size" and "--dp" as "--dp-size". An abbreviation is
#   severity low: it works, but it breaks as soon as a release adds another
#   flag with the same prefix. A prefix that already matches several flags
#   ("--pp" matches --pp-size, --pp-max-micro-batch-size and
#   --pp-async-batch-depth) is severity high: argparse exits with "ambiguous
#   option" and the server does not start.
# related_resources:
#   - ref: https://docs.python.org/3/library/argparse.html#allow-abbrev
#     description: argparse prefix matching (allow_abbrev)
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py
#     description: the SGLang parser leaves allow_abbrev at its default
# custom:
#   id: KV402
#   severity: low
#   stops_start: high
#   remediation: Write the full flag name (for example --tp-size, not --tp).
package kvlint.rules.abbreviated_flag

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "abbreviated"
	finding := {
		"msg": lib.says(issue, sprintf("%s is an abbreviation of %s: argparse expands unique prefixes, but once a release adds another flag starting with %s the prefix becomes ambiguous and the server stops starting; write %s", [
			lib.written(issue),
			issue.flag,
			lib.written(issue),
			issue.flag,
		])),
		"server": s.index,
		"issue": issue.index,
	}
}

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "ambiguous"
	finding := {
		"msg": sprintf("%s; write the full flag name", [lib.says(issue, sprintf("%s is a prefix of several flags of %s, so argparse stops the server at startup (\"ambiguous option\")", [
			lib.written(issue),
			lib.program(s.engine),
		]))]),
		"server": s.index,
		"issue": issue.index,
		"severity": "high",
	}
}
