package kvlint.lib

# version_key(v) orders SGLang and vLLM release numbers as the engines'
# version strings do (python/sglang/version.py, setuptools-scm tags):
# [major, minor, patch, build, post] with .postN after the plain release
# and an a/b/rc pre-release before it, each ordered by its number as PEP
# 440 orders them ("0.4.7a0" < "0.4.7b0" < "0.4.7rc0" < "0.4.7rc1" <
# "0.4.7" < "0.4.7.post1" < "0.4.8"; vLLM's four-part "0.10.1.1" >
# "0.10.1"), the order deploy.CompareVersions gives (a Go test holds the
# two to it). Undefined for a string that is not a release number.
version_key(v) := [to_number(m[1]), to_number(m[2]), to_number(m[3]), build(m[4]), suffix_rank(m[5])] if {
	m := regex.find_all_string_submatch_n(`^v?([0-9]+)\.([0-9]+)\.([0-9]+)(\.[0-9]+)?(.*)$`, v, 1)[0]
	suffix_rank(m[5])
}

build(b) := 0 if b == ""

build(b) := to_number(trim_prefix(b, ".")) if b != ""

suffix_rank(s) := 0 if s == ""

suffix_rank(s) := to_number(trim_prefix(s, ".post")) + 1 if regex.match(`^\.post[0-9]+$`, s)

suffix_rank(s) := pre_base[m[1]] + pre_number(m[2]) if {
	m := regex.find_all_string_submatch_n(`^\.?(rc|a|b)([0-9]*)$`, s, 1)[0]
}

pre_number(n) := 0 if n == ""

pre_number(n) := to_number(n) if n != ""

pre_base := {"rc": -1000, "b": -2000, "a": -3000}

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
