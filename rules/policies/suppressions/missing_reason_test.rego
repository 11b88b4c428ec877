package kvlint.suppressions.missing_reason_test

import data.kvlint.suppressions.missing_reason

fact(overrides) := object.union(
	{
		"index": 0, "kind": "inline", "text": "kvlint:ignore KV101", "where": "on this line",
		"rules": ["KV101"], "reason": "", "file": "a.sh", "line": 3, "used": true,
		"unused_rules": [], "unknown_rules": [], "judged": true, "until": null,
		"expired": false, "problem": "",
	},
	overrides,
)

test_fires_without_reason if {
	some f in missing_reason.deny with input as {"suppressions": [fact({})]}
	f.suppression == 0
	contains(f.msg, "kvlint:ignore KV101 has no reason")
}

test_fires_for_a_blank_reason_of_an_annotation if {
	some f in missing_reason.deny with input as {"suppressions": [fact({"kind": "annotation", "reason": "  "})]}
	contains(f.msg, "kvlint.io/ignore-reason")
}

test_quiet_with_a_reason if {
	count(missing_reason.deny) == 0 with input as {"suppressions": [fact({"reason": "sized for 32k prompts"})]}
}

test_quiet_for_a_malformed_suppression if {
	count(missing_reason.deny) == 0 with input as {"suppressions": [fact({"problem": "no rule ids"})]}
}
