# METADATA
# title: Flag given more than once
# description: >-
#   The same option appears more than once on one command line (or both in a
#   --config file and on the command line). argparse keeps the last value and
#   drops the others without a word, so whoever reads the first occurrence
#   believes a value that is not in force. Severity low: the server runs with a
#   well-defined value, but the configuration misleads its readers, which is
#   how a KV pool cap or a context length ends up different from what a review
#   approved.
# related_resources:
#   - ref: https://docs.python.org/3/library/argparse.html#action
#     description: store actions keep the last value given
# custom:
#   id: KV403
#   severity: low
#   remediation: Keep one occurrence, with the value you mean.
package kvlint.rules.duplicate_flag

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	some issue in s.flag_issues
	issue.kind == "duplicate"
	finding := {
		"msg": lib.says(issue, sprintf("%s is given more than once; argparse keeps only the last %s and ignores the others", [
			lib.written(issue),
			in_force(s, issue),
		])),
		"server": s.index,
		"issue": issue.index,
	}
}

in_force(s, issue) := sprintf("value (%s)", [arg.value]) if {
	arg := s.args[issue.flag]
	arg.known
	arg.value != ""
} else := "value"
