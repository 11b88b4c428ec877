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

sglang_moved(cap, args) := test.server({
	"engine": "sglang",
	"args": args,
	"release": {"version": "0.5.3", "source": "--engine-release sglang=0.5.3", "floating": false, "judged": "0.5.3", "judged_commit": "c", "upgrade": true, "from": "0.4.6"},
	"capacity": object.union(test.server({}).capacity, cap),
})

test_fires_when_the_default_fraction_changes if {
	srv := sglang_moved({"mem_fraction_static": 0.831, "mem_fraction_static_from": 0.88}, {})
	findings := release_change.deny with input as test.input_with([srv])
	some f in findings
	f.arg == "--mem-fraction-static"
	f.severity == "medium"
	contains(f.msg, "from 0.880 to 0.831 on moving from SGLang v0.4.6 to v0.5.3")
	contains(f.msg, "shrinks")
}

test_quiet_when_the_fraction_is_kept if {
	srv := sglang_moved({"mem_fraction_static": 0.88, "mem_fraction_static_from": 0.88}, {})
	count(release_change.deny) == 0 with input as test.input_with([srv])
}

test_quiet_when_the_launch_sets_the_fraction if {
	srv := sglang_moved({"mem_fraction_static": 0.8, "mem_fraction_static_from": 0.88}, {"--mem-fraction-static": {"value": "0.8", "known": true, "typed": 0.8}})
	count(release_change.deny) == 0 with input as test.input_with([srv])
}
