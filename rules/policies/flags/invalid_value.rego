# METADATA
# title: Invalid or missing flag value
# description: >-
#   A flag's value has the wrong type, is not one of the flag's choices, is out
#   of its range, or is missing altogether (an option that takes a value is
#   last on the line or followed by another option). argparse exits on a
#   value it cannot convert or that is not among the choices ("invalid int
#   value", "invalid choice", "expected one argument"), and SGLang's
#   ServerArgs checks raise at startup for values out of range. Severity
#   high: the server does not start.
# related_resources:
#   - ref: https://docs.python.org/3/library/argparse.html#type
#     description: argparse rejects values its type= or choices= do not accept
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py
#     description: SGLang's flag types, choices and startup checks
# custom:
#   id: KV405
#   severity: high
#   stops_start: true
#   remediation: >-
#     Give the flag a value of its type and range (kvlint's message names
#     what it expected), or remove the flag to get the engine's default.
package kvlint.rules.invalid_value

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "invalid"
	finding := {
		"msg": concat("", [
			lib.says(issue, sprintf("invalid value for %s", [issue.flag])),
			lib.unless_said(issue, "exit", sprintf("; %s would exit at startup", [lib.program(s.engine)])),
		]),
		"server": s.index,
		"issue": issue.index,
	}
}

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "missingvalue"
	finding := {
		"msg": lib.says(issue, sprintf("%s expects a value but none follows it: argparse stops the server at startup (\"expected one argument\")", [lib.written(issue)])),
		"server": s.index,
		"issue": issue.index,
	}
}
