package kvlint.rules.invalid_value_test

import data.kvlint.rules.invalid_value
import data.kvlint.test

test_fires_on_an_invalid_value if {
	srv := test.server({"flag_issues": [test.flag_issue("invalid", {
		"flag": "--kv-cache-dtype",
		"written": "--kv-cache-dtype",
		"message": "argument --kv-cache-dtype: invalid choice: 'fp8' (choose from auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, fp4_mx_block16)",
	})]})
	findings := invalid_value.deny with input as test.input_with([srv])
	findings == {{
		"msg": "argument --kv-cache-dtype: invalid choice: 'fp8' (choose from auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, fp4_mx_block16); sglang.launch_server would exit at startup",
		"server": 0,
		"issue": 0,
	}}
}

test_fires_on_a_missing_value if {
	srv := test.server({"flag_issues": [test.flag_issue("missingvalue", {"flag": "--tp-size", "written": "--tp-size"})]})
	findings := invalid_value.deny with input as test.input_with([srv])
	findings == {{
		"msg": "--tp-size expects a value but none follows it: argparse stops the server at startup (\"expected one argument\")",
		"server": 0,
		"issue": 0,
	}}
}

test_quiet_on_valid_values if {
	srv := test.server({"flag_issues": [test.flag_issue("duplicate", {"flag": "--tp-size"})]})
	count(invalid_value.deny) == 0 with input as test.input_with([srv])
}
