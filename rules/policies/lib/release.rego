package kvlint.lib

# version_key(v) orders SGLang and vLLM release numbers as the engines'
# version strings do (python/sglang/version.py, setuptools-scm tags):
# [major, minor, patch, build, post] with .postN after the plain release
# and an rc/dev pre-release before it ("0.4.7rc1" < "0.4.7" <
# "0.4.7.post1" < "0.4.8"; vLLM's four-part "0.10.1.1" > "0.10.1").
# Undefined for a string that is not a release number.
version_key(v) := [to_number(m[1]), to_number(m[2]), to_number(m[3]), build(m[4]), suffix_rank(m[5])] if {
	m := regex.find_all_string_submatch_n(`^v?([0-9]+)\.([0-9]+)\.([0-9]+)(\.[0-9]+)?(.*)$`, v, 1)[0]
	suffix_rank(m[5])
}

build(b) := 0 if b == ""

build(b) := to_number(trim_prefix(b, ".")) if b != ""

suffix_rank(s) := 0 if s == ""

suffix_rank(s) := to_number(trim_prefix(s, ".post")) + 1 if regex.match(`^\.post[0-9]+$`, s)

suffix_rank(s) := -1 if regex.match(`^\.?(rc|dev|a|b)[0-9]*$`, s)

# sglang_release_before(engine, release, v): a server of that engine and
# release (its "release" object) runs a known SGLang release (image tag, pip
# pin, .kvlint.yaml or --engine-release) older than v. An unknown release is
# judged as the newest: never before. (The parts, not the server: function
# results are cached by argument.)
sglang_release_before(engine, release, v) if {
	engine == "sglang"
	is_string(release.version)
	version_key(release.version) < version_key(v)
}
