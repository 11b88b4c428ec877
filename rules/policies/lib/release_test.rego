package kvlint.lib_test

import data.kvlint.lib

test_version_order if {
	lib.version_key("0.4.7rc1") < lib.version_key("0.4.7")
	lib.version_key("0.4.7") < lib.version_key("0.4.7.post1")
	lib.version_key("0.4.7.post1") < lib.version_key("0.4.7.post2")
	lib.version_key("0.4.7.post9") < lib.version_key("0.4.8")
	lib.version_key("0.4.10") > lib.version_key("0.4.9.post3")
	lib.version_key("0.10.1.1") > lib.version_key("0.10.1")
	lib.version_key("v0.5.6.post2") == lib.version_key("0.5.6.post2")
	lib.version_key("0.5.2rc0") < lib.version_key("0.5.2rc2")
	lib.version_key("0.5.2b1") < lib.version_key("0.5.2rc0")
}

test_not_a_version if {
	not lib.version_key("latest")
	not lib.version_key("0.4")
}

test_sglang_release_before if {
	lib.sglang_release_before("sglang", {"version": "0.4.6.post5"}, "0.4.7")
	not lib.sglang_release_before("sglang", {"version": "0.4.7"}, "0.4.7")
	not lib.sglang_release_before("sglang", {"version": null}, "0.4.7")
	not lib.sglang_release_before("sglang", {}, "0.4.7")
	not lib.sglang_release_before("vllm", {"version": "0.4.0"}, "0.4.7")
}
