# METADATA
# title: Engine release that drops the cache_salt isolation key
# description: >-
#   A deployment that relies on cache_salt needs an engine that honours it.
#   SGLang added the cache_salt field on 2025-09-23 (sglang#10718), but
#   until sglang#23300 (merged 2026-04-21) the scheduler never passed
#   extra_key into Req, "making cache_salt completely non-functional"
#   (sglang#24770): every tenant shares one radix tree whatever the gateway
#   sends, and releases before 2025-09-23 have no such field at all. The
#   release is read from the image tag (lmsysorg/sglang:vX.Y.Z[-suffix]).
#   Release dates come from SGLang's version bumps on main
#   (python/sglang/version.py, up to v0.5.6.post2 on 2025-12-11, before the
#   switch to release branches) and from the release notes quoted in
#   dependency updates (v0.5.9 by 2026-03-30, v0.5.10 by 2026-04-06,
#   v0.5.10.post1 by 2026-04-13); the v0.5.13, v0.5.14 and v0.5.15 release
#   branches were cut from main on 2026-06-08, 2026-06-23 and 2026-07-07,
#   after the fix, and hold it. Other tags (v0.5.11, v0.5.12, post releases
#   of v0.5.7 to v0.5.9, latest, dev, custom images) cannot be checked, which
#   is reported at info severity. A release pinned elsewhere (a pip pin,
#   a requirements or lock file, .kvlint.yaml engine_release:, or
#   --engine-release) is judged instead of the tag, and the finding points
#   at the pin. Severity high: the declared isolation does
#   nothing.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/pull/23300
#     description: the fix, merged 2026-04-21 (extra_key passed to Req)
#   - ref: https://github.com/sgl-project/sglang/pull/24770
#     description: "cherry-pick of #23300: cache_salt was completely non-functional"
#   - ref: https://github.com/sgl-project/sglang/pull/10718
#     description: added the cache_salt request field (2025-09-23)
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/version.py
#     description: version bumps on main, with their dates (history)
# custom:
#   id: KV304
#   severity: high
#   remediation: >-
#     Run lmsysorg/sglang v0.5.13 or later (a release cut after 2026-04-21),
#     and pin the image to that tag; until then, isolate tenants with
#     per-tenant deployments or --disable-radix-cache.
package kvlint.rules.salt_dropping_release

import data.kvlint.lib

# The fix's merge date, and the date cache_salt first existed.
fix_date := "2026-04-21"

salt_added := "2025-09-23"

deny contains finding if {
	some s in salted_servers
	d := lib.deployment_of(s)
	r := server_release(s)
	st := status(r)
	st.state == "drops"
	finding := {
		"msg": sprintf("%s is SGLang %s, %s: %s, so the cache_salt the %s sets does not isolate tenants in deployment %s", [
			runs(s),
			r.text,
			st.when,
			consequence(st),
			setter(d),
			d.name,
		]),
		"server": s.index,
		"at": "release",
	}
}

deny contains finding if {
	some s in salted_servers
	d := lib.deployment_of(s)
	not known_server_release(s)
	finding := {
		"msg": sprintf("cannot be checked: deployment %s relies on cache_salt, which SGLang releases before sglang#23300 (2026-04-21) drop, and %s", [
			d.name,
			server_unknown_reason(s),
		]),
		"server": s.index,
		"at": "release",
		"severity": "info",
	}
}

# salted_servers are the SGLang servers with a prefix cache in deployments
# that rely on cache_salt. Found from the deployments, which are fewer than
# the servers, and most of which do not rely on it.
salted_servers contains s if {
	some d in input.deployments
	relies_on_salt(d)
	some i in d.servers
	s := input.servers[i]
	s.engine == "sglang"
	lib.prefix_cache(s)
}

relies_on_salt(d) if {
	lib.shares_tenants(d)
	d.isolation.cache_salt in {"gateway", "client"}
}

setter(d) := "gateway" if {
	d.isolation.cache_salt == "gateway"
} else := "client"

consequence(st) := "that release has no cache_salt field at all" if {
	st.predates
} else := "that release accepts cache_salt but never passes it to the scheduler (fixed by sglang#23300 on 2026-04-21)"

# server_release(s) is the release the server runs as check resolved it
# (a pip pin, a requirements or lock file, .kvlint.yaml engine_release:,
# --engine-release: s.release), else the image tag's.
server_release(s) := r if {
	is_string(s.release.version)
	not startswith(s.release.source, "image ")
	r := parse_release(s.release.version)
} else := release(s.image)

known_server_release(s) if {
	r := server_release(s)
	status(r)
}

# runs(s) says where the release was read: the image, or the pin.
runs(s) := s.release.source if {
	is_string(s.release.version)
	not startswith(s.release.source, "image ")
} else := s.image.value

server_unknown_reason(s) := sprintf("kvlint cannot tell whether SGLang %s (%s) includes the fix", [s.release.version, s.release.source]) if {
	is_string(s.release.version)
	not startswith(s.release.source, "image ")
} else := unknown_reason(s.image)

unknown_reason(image) := "the launch names no image, so the SGLang release that runs it is unknown" if {
	image == null
} else := sprintf("the image %s is a placeholder", [image.value]) if {
	not image.known
} else := sprintf("the tag of %s does not name a release kvlint can date (pin lmsysorg/sglang:vX.Y.Z)", [image.value]) if {
	not release(image)
} else := sprintf("kvlint cannot tell whether SGLang %s includes the fix", [release(image).text])

# parse_release parses X.Y.Z[rcN][.postN] like release below.
parse_release(v) := r if {
	m := regex.find_all_string_submatch_n(`^([0-9]+)\.([0-9]+)\.([0-9]+)(rc[0-9]+)?(?:\.post([0-9]+))?$`, v, 1)
	count(m) == 1
	r := release_of(m[0])
}

# release(image) parses lmsysorg/sglang:vX.Y.Z[rcN][.postN][-suffix] into
# {"text", "num" (X*1e6 + Y*1e3 + Z), "rc" (bool), "post" (0 when none)}.
release(image) := r if {
	image.known
	m := regex.find_all_string_submatch_n(`^(?:[^/@:]+(?::[0-9]+)?/)*lmsysorg/sglang:v?([0-9]+)\.([0-9]+)\.([0-9]+)(rc[0-9]+)?(?:\.post([0-9]+))?(?:-[A-Za-z0-9._-]+)?$`, image.value, 1)
	count(m) == 1
	r := release_of(m[0])
}

release_of(g) := r if {
	post := post_number(g[5])
	r := {
		"text": concat("", [g[1], ".", g[2], ".", g[3], g[4], post_text(g[5])]),
		"num": ((to_number(g[1]) * 1000000) + (to_number(g[2]) * 1000)) + to_number(g[3]),
		"rc": g[4] != "",
		"post": post,
	}
}

post_number(s) := 0 if {
	s == ""
} else := to_number(s)

post_text(s) := "" if {
	s == ""
} else := concat("", [".post", s])

# status(r) is what is known about a release and cache_salt:
# {"state": "drops"|"honours", "when": phrase, "predates": bool}; undefined
# when it cannot be told.
status(r) := {"state": "drops", "when": sprintf("released %s", [dates[r.text]]), "predates": dates[r.text] < salt_added} if {
	dates[r.text]
} else := {"state": "drops", "when": "released from main before SGLang moved to release branches on 2025-12-29", "predates": r.num < 5003} if {
	# Every release below v0.5.7 was a version bump on main before then
	# (python/sglang/version.py history).
	r.num < 5007
} else := {"state": "drops", "when": "released before v0.5.10 (out by 2026-04-06)", "predates": false} if {
	# Releases are cut in order: a non-post release below v0.5.10 came out
	# before it.
	r.post == 0
	r.num < 5010
} else := {"state": "drops", "when": "a v0.5.10 release candidate, before v0.5.10 (out by 2026-04-06)", "predates": false} if {
	r.num == 5010
	r.rc
} else := {"state": "honours", "when": "cut from main after the fix", "predates": false} if {
	r.num >= 5013
}

# dates are release dates: version bumps on main (git log of
# python/sglang/version.py in sgl-project/sglang, as mirrored by
# modal-projects/sglang), and "by" dates of later releases from their
# release notes quoted in dependency-update pull requests
# (FlyTune/MASPO-RL#8, #9, #10).
dates := {
	"0.5.0rc0": "2025-08-08", "0.5.0rc1": "2025-08-13", "0.5.0rc2": "2025-08-14",
	"0.5.1": "2025-08-23", "0.5.1.post1": "2025-08-24", "0.5.1.post2": "2025-08-25", "0.5.1.post3": "2025-08-27",
	"0.5.2rc0": "2025-09-01", "0.5.2rc1": "2025-09-02", "0.5.2rc2": "2025-09-04", "0.5.2": "2025-09-11",
	"0.5.3rc0": "2025-09-15", "0.5.3rc2": "2025-10-06", "0.5.3": "2025-10-06",
	"0.5.3.post1": "2025-10-09", "0.5.3.post2": "2025-10-15", "0.5.3.post3": "2025-10-16",
	"0.5.4": "2025-10-24", "0.5.4.post1": "2025-10-27", "0.5.4.post2": "2025-11-01", "0.5.4.post3": "2025-11-05",
	"0.5.5": "2025-11-07", "0.5.5.post1": "2025-11-11", "0.5.5.post2": "2025-11-12", "0.5.5.post3": "2025-11-16",
	"0.5.6": "2025-12-02", "0.5.6.post1": "2025-12-08", "0.5.6.post2": "2025-12-11",
	"0.5.9": "by 2026-03-30", "0.5.10": "by 2026-04-06", "0.5.10.post1": "by 2026-04-13",
}
