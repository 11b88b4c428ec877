# METADATA
# title: Suppression that silences nothing
# description: >-
#   A suppression names a rule that produced no finding where it applies: the
#   finding was fixed, moved to another line, or the rule ID is misspelt.
#   Left in place, it would silently swallow the next, unrelated finding of
#   that rule at that spot. Not reported for files kvlint could not analyse,
#   nor for a .kvlint.yaml entry whose path matched no file of this run
#   (pre-commit checks only the changed files). Severity low: nothing is
#   wrong with the deployment; the suppression is only a trap for later.
# related_resources:
#   - ref: https://github.com/kvlint/kvlint/blob/main/README.md#suppressions
#     description: the forms of suppression and what each covers
# custom:
#   id: KV002
#   severity: low
#   remediation: >-
#     Remove the suppression (or the unused rule IDs from it), or move it to
#     the line of the finding or the line above it.
package kvlint.suppressions.unused

deny contains finding if {
	some s in input.suppressions
	s.problem == ""
	s.judged
	not s.expired
	not s.used
	finding := {
		"msg": sprintf("%s silenced no finding %s: remove it%s", [s.text, s.where, unknown_note(s.unknown_rules)]),
		"suppression": s.index,
	}
}

deny contains finding if {
	some s in input.suppressions
	s.problem == ""
	s.judged
	not s.expired
	s.used
	count(s.unused_rules) > 0
	finding := {
		"msg": sprintf("%s: %s silenced no finding %s; drop %s from the list%s", [
			s.text,
			concat(", ", s.unused_rules),
			s.where,
			pronoun(s.unused_rules),
			unknown_note(s.unknown_rules),
		]),
		"suppression": s.index,
	}
}

pronoun(ids) := "it" if count(ids) == 1

else := "them"

unknown_note(ids) := sprintf(" (%s: no such rule in this run; a typo, or a custom rule whose --policy was not given)", [concat(", ", ids)]) if {
	count(ids) > 0
} else := ""
