# METADATA
# title: Suppression kvlint cannot read
# description: >-
#   A comment or annotation starts like a kvlint suppression but does not
#   follow its grammar (no rule IDs, an ID of the wrong form, text after the
#   IDs without " -- "), so it silences nothing. Reported so that a typo does
#   not leave a finding visible for reasons the author cannot see, or hide
#   the intent of a suppression that never worked. Severity medium: the
#   author believes something is silenced that is not, or the reverse.
# related_resources:
#   - ref: https://github.com/kvlint/kvlint/blob/main/README.md#suppressions
#     description: the grammar of suppression comments and annotations
# custom:
#   id: KV004
#   severity: medium
#   remediation: >-
#     Write it as kvlint:ignore KV101,KV104 -- reason (or kvlint:ignore-file
#     [IDs] -- reason; annotation kvlint.io/ignore: "KV101,KV104").
package kvlint.suppressions.malformed

deny contains finding if {
	some s in input.suppressions
	s.problem != ""
	finding := {
		"msg": s.problem,
		"suppression": s.index,
	}
}
