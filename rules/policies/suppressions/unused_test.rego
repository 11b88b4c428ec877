package kvlint.suppressions.unused_test

import data.kvlint.suppressions.unused

fact(overrides) := object.union(
	{
		"index": 0, "kind": "inline", "text": "kvlint:ignore KV101", "where": "on this line",
		"rules": ["KV101"], "reason": "r", "file": "a.sh", "line": 3, "used": false,
		"unused_rules": ["KV101"], "unknown_rules": [], "judged": true, "until": null,
		"expired": false, "problem": "",
	},
	overrides,
)

test_fires_when_nothing_was_silenced if {
	some f in unused.deny with input as {"suppressions": [fact({})]}
	f.msg == "kvlint:ignore KV101 silenced no finding on this line: remove it"
}

test_fires_for_the_unused_ids_of_a_used_suppression if {
	s := fact({"text": "kvlint:ignore KV101,KV1O4", "rules": ["KV101", "KV1O4"], "used": true, "unused_rules": ["KV1O4"], "unknown_rules": ["KV1O4"]})
	some f in unused.deny with input as {"suppressions": [s]}
	f.msg == "kvlint:ignore KV101,KV1O4: KV1O4 silenced no finding on this line; drop it from the list (KV1O4: no such rule in this run; a typo, or a custom rule whose --policy was not given)"
}

test_quiet_when_used if {
	count(unused.deny) == 0 with input as {"suppressions": [fact({"used": true, "unused_rules": []})]}
}

test_quiet_when_not_judged if {
	count(unused.deny) == 0 with input as {"suppressions": [fact({"judged": false})]}
}

test_quiet_when_expired if {
	count(unused.deny) == 0 with input as {"suppressions": [fact({"expired": true, "until": "2020-01-01"})]}
}
