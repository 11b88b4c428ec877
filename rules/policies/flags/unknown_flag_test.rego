package kvlint.rules.unknown_flag_test

import data.kvlint.rules.unknown_flag
import data.kvlint.test

test_fires_with_a_suggestion if {
	srv := test.server({"flag_issues": [test.flag_issue("unknown", {
		"flag": "--mem-fraction-statc",
		"written": "--mem-fraction-statc",
		"suggestion": "--mem-fraction-static",
	})]})
	findings := unknown_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--mem-fraction-statc is not a flag of sglang.launch_server: argparse stops the server at startup (\"unrecognized arguments: --mem-fraction-statc\"); did you mean --mem-fraction-static?",
		"server": 0,
		"issue": 0,
	}}
}

test_fires_for_vllm_without_a_suggestion if {
	srv := test.server({"index": 3, "engine": "vllm", "flag_issues": [
		test.flag_issue("deprecated", {"flag": "--a"}),
		test.flag_issue("unknown", {"index": 1, "flag": "--frobnicate", "written": "--frobnicate"}),
	]})
	findings := unknown_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--frobnicate is not a flag of vllm serve: argparse stops the server at startup (\"unrecognized arguments: --frobnicate\"); remove it, or check that the engine version you deploy has it",
		"server": 3,
		"issue": 1,
	}}
}

test_quiet_without_unknown_flags if {
	srv := test.server({"flag_issues": [test.flag_issue("duplicate", {"flag": "--tp-size"})]})
	count(unknown_flag.deny) == 0 with input as test.input_with([srv])
}
