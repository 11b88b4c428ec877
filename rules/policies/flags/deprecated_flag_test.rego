package kvlint.rules.deprecated_flag_test

import data.kvlint.rules.deprecated_flag
import data.kvlint.rules.release_change
import data.kvlint.test

test_fires_low_on_a_deprecated_alias if {
	srv := test.server({"flag_issues": [test.flag_issue("deprecated", {
		"flag": "--cuda-graph-max-bs",
		"written": "--cuda-graph-max-bs",
		"suggestion": "--cuda-graph-max-bs-decode",
	})]})
	findings := deprecated_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--cuda-graph-max-bs is deprecated and will be removed from sglang.launch_server in a later release; write --cuda-graph-max-bs-decode instead",
		"server": 0,
		"issue": 0,
	}}
}

test_fires_high_on_a_removed_flag if {
	srv := test.server({"flag_issues": [test.flag_issue("removed", {
		"flag": "--enable-flashinfer",
		"written": "--enable-flashinfer",
		"message": "--enable-flashinfer was removed from SGLang (2024-07-02, #578); argparse exits with \"unrecognized arguments: --enable-flashinfer\"",
	})]})
	findings := deprecated_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--enable-flashinfer was removed from SGLang (2024-07-02, #578); argparse exits with \"unrecognized arguments: --enable-flashinfer\"",
		"server": 0,
		"issue": 0,
		"severity": "high",
	}}
}

test_quiet_on_removed_disaggregation_flags_which_kv209_reports if {
	srv := test.server({"role": "decode", "flag_issues": [test.flag_issue("removed", {
		"flag": "--disaggregation-decode-tp",
		"written": "--disaggregation-decode-tp",
	})]})
	count(deprecated_flag.deny) == 0 with input as test.input_with([srv])
}

test_quiet_on_current_flags if {
	srv := test.server({"flag_issues": [test.flag_issue("abbreviated", {"flag": "--tp-size", "written": "--tp"})]})
	count(deprecated_flag.deny) == 0 with input as test.input_with([srv])
}

test_does_not_repeat_the_replacement_the_parser_named if {
	srv := test.server({"flag_issues": [test.flag_issue("deprecated", {
		"flag": "--cuda-graph-max-bs",
		"written": "--cuda-graph-max-bs",
		"suggestion": "--cuda-graph-max-bs-decode",
		"message": "--cuda-graph-max-bs is deprecated: SGLang still accepts it with a warning; use --cuda-graph-max-bs-decode instead",
	})]})
	findings := deprecated_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--cuda-graph-max-bs is deprecated: SGLang still accepts it with a warning; use --cuda-graph-max-bs-decode instead",
		"server": 0,
		"issue": 0,
	}}
}

# The engine judges a deprecation against the release the server runs and
# drops one the release predates: a pinned server whose launch writes the
# flag but has no deprecated issue stays quiet (the policy does not read
# deprecation from the arguments).
test_quiet_when_the_pinned_release_predates_the_deprecation if {
	srv := test.server({
		"args": {"--cuda-graph-max-bs": {"value": "64", "known": true, "typed": 64}},
		"release": {"version": "0.5.3", "source": "image lmsysorg/sglang:v0.5.3", "floating": false, "judged": "0.5.3", "judged_commit": "c", "upgrade": false, "from": null},
	})
	count(deprecated_flag.deny) == 0 with input as test.input_with([srv])
}

# Moved past the deprecation with --engine-release: one low finding, this
# rule's, naming the release that deprecated the flag; KV406 (what a move
# changes) does not report it again.
test_one_low_finding_for_a_deprecation_a_move_reaches if {
	msg := "--cuda-graph-max-bs is deprecated: SGLang still accepts it with a warning; use --cuda-graph-max-bs-decode instead; on moving from SGLang v0.5.3 (image lmsysorg/sglang:v0.5.3) to vmain (--engine-release sglang=main; flags read at 8905cbd4): deprecated in main@8905cbd4, after v0.5.3 that this launch runs now"
	srv := test.server({
		"flag_issues": [test.flag_issue("deprecated", {
			"flag": "--cuda-graph-max-bs",
			"written": "--cuda-graph-max-bs",
			"suggestion": "--cuda-graph-max-bs-decode",
			"message": msg,
		})],
		"release": {"version": "main", "source": "--engine-release sglang=main", "floating": false, "judged": "main", "judged_commit": "c", "upgrade": true, "from": "0.5.3"},
	})
	findings := deprecated_flag.deny with input as test.input_with([srv])
	findings == {{"msg": msg, "server": 0, "issue": 0}}
	count(release_change.deny) == 0 with input as test.input_with([srv])
}
