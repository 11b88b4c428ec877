package kvlint.rules.deprecated_flag_test

import data.kvlint.rules.deprecated_flag
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
