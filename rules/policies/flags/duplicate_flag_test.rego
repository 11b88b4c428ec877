package kvlint.rules.duplicate_flag_test

import data.kvlint.rules.duplicate_flag
import data.kvlint.test

test_fires_naming_the_value_in_force if {
	srv := test.server({
		"args": {"--max-total-tokens": {"value": "65536", "known": true, "typed": 65536}},
		"flag_issues": [test.flag_issue("duplicate", {"flag": "--max-total-tokens", "written": "--max-total-tokens"})],
	})
	findings := duplicate_flag.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--max-total-tokens is given more than once; argparse keeps only the last value (65536) and ignores the others",
		"server": 0,
		"issue": 0,
	}}
}

test_fires_without_a_known_value if {
	srv := test.server({
		"args": {"--port": {"value": "$PORT", "known": false, "typed": null}},
		"flag_issues": [test.flag_issue("duplicate", {"flag": "--port", "written": "--port"})],
	})
	some f in duplicate_flag.deny with input as test.input_with([srv])
	f.msg == "--port is given more than once; argparse keeps only the last value and ignores the others"
}

test_quiet_without_duplicates if {
	count(duplicate_flag.deny) == 0 with input as test.input_with([test.server({})])
}
