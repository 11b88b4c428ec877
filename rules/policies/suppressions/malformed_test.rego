package kvlint.suppressions.malformed_test

import data.kvlint.suppressions.malformed

test_fires_with_a_problem if {
	s := {"index": 0, "kind": "inline", "problem": "kvlint:ignore names no rule"}
	some f in malformed.deny with input as {"suppressions": [s]}
	f.msg == "kvlint:ignore names no rule"
}

test_quiet_without_a_problem if {
	count(malformed.deny) == 0 with input as {"suppressions": [{"index": 0, "kind": "inline", "problem": ""}]}
}
