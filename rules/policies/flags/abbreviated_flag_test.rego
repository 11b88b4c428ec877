package kvlint.rules.abbreviated_flag_test

import data.kvlint.rules.abbreviated_flag
import data.kvlint.test

test_fires_low_on_an_abbreviation if {
	srv := test.server({"flag_issues": [test.flag_issue("abbreviated", {"flag": "--tp-size", "written": "--tp"})]})
	findings := abbreviated_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--tp is an abbreviation of --tp-size: argparse expands unique prefixes, but once a release adds another flag starting with --tp the prefix becomes ambiguous and the server stops starting; write --tp-size",
		"server": 0,
		"issue": 0,
	}}
}

test_fires_high_on_an_ambiguous_prefix if {
	srv := test.server({"flag_issues": [test.flag_issue("ambiguous", {
		"flag": "--pp",
		"written": "--pp",
		"message": "ambiguous option: --pp could match --pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth; argparse exits",
	})]})
	findings := abbreviated_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "ambiguous option: --pp could match --pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth; argparse exits; write the full flag name",
		"server": 0,
		"issue": 0,
		"severity": "high",
	}}
}

test_quiet_on_full_flag_names if {
	srv := test.server({"flag_issues": [test.flag_issue("unknown", {"flag": "--x"})]})
	count(abbreviated_flag.deny) == 0 with input as test.input_with([srv])
}
