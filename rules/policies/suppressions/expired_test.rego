package kvlint.suppressions.expired_test

import data.kvlint.suppressions.expired

fact(overrides) := object.union(
	{
		"index": 0, "kind": "config", "text": "the ignore entry for deploy/*.yaml", "where": "in files matching deploy/*.yaml",
		"rules": ["KV101"], "reason": "r", "file": ".kvlint.yaml", "line": 4, "used": false,
		"unused_rules": ["KV101"], "unknown_rules": [], "judged": true, "until": "2020-01-31",
		"expired": true, "problem": "",
	},
	overrides,
)

test_fires_when_expired if {
	some f in expired.deny with input as {"suppressions": [fact({})]}
	f.msg == "the ignore entry for deploy/*.yaml expired on 2020-01-31: the findings it covered are reported again; fix them, or move until to a later date"
}

test_quiet_before_the_date if {
	count(expired.deny) == 0 with input as {"suppressions": [fact({"expired": false, "until": "2999-01-01"})]}
}
