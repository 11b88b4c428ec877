# METADATA
# title: Suppression past its expiry date
# description: >-
#   A .kvlint.yaml ignore entry has an until date that has passed. It no
#   longer silences anything: the findings it covered are reported again, and
#   this finding says why they came back. An expiry date turns "we will fix
#   it later" into a date the linter enforces. Severity low: the findings
#   themselves are reported again at their own severity.
# related_resources:
#   - ref: https://github.com/kvlint/kvlint/blob/main/README.md#suppressions
#     description: ignore entries in .kvlint.yaml, with until
# custom:
#   id: KV003
#   severity: low
#   remediation: >-
#     Fix the findings the entry covered and remove it, or, if they are still
#     acceptable, move until to a later date and say why in reason.
package kvlint.suppressions.expired

deny contains finding if {
	some s in input.suppressions
	s.problem == ""
	s.expired
	finding := {
		"msg": sprintf("%s expired on %s: the findings it covered are reported again; fix them, or move until to a later date", [s.text, s.until]),
		"suppression": s.index,
	}
}
