package kvlint.rules.release_change_test

import data.kvlint.rules.release_change
import data.kvlint.test

test_fires_medium_for_a_pool_default if {
	msg := "the default of --max-num-seqs changes from 256 to None (in v0.6.5 (2d1b9baa)) on moving from vLLM v0.6.3 to v0.6.5; this launch does not set it, so it runs with the new default"
	srv := test.server({"engine": "vllm", "flag_issues": [test.flag_issue("release-change", {"flag": "--max-num-seqs", "message": msg})]})
	findings := release_change.deny with input as test.input_with([srv])
	findings == {{"msg": msg, "server": 0, "issue": 0, "severity": "medium"}}
}

test_fires_low_for_another_default if {
	srv := test.server({"flag_issues": [test.flag_issue("release-change", {"flag": "--watchdog-timeout", "message": "m"})]})
	findings := release_change.deny with input as test.input_with([srv])
	findings == {{"msg": "m", "server": 0, "issue": 0}}
}

test_quiet_without_a_move if {
	srv := test.server({"flag_issues": [test.flag_issue("removed-later", {"flag": "--swap-space", "message": "m"})]})
	count(release_change.deny) == 0 with input as test.input_with([srv])
}
