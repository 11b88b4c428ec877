package kvlint.rules.salt_dropping_release_test

import data.kvlint.rules.salt_dropping_release
import data.kvlint.test

gateway := {"isolation": {"cache_salt": "gateway", "per_tenant_deployments": false, "external_kv": "shared"}}

on(image) := test.server({"image": {"value": image, "known": true}})

findings(image) := fs if {
	fs := salt_dropping_release.deny with input as test.colocated_input([on(image)], gateway)
}

test_fires_on_a_release_in_the_window if {
	findings("lmsysorg/sglang:v0.5.3-cu129") == {{
		"msg": "lmsysorg/sglang:v0.5.3-cu129 is SGLang 0.5.3, released 2025-10-06: that release accepts cache_salt but never passes it to the scheduler (fixed by sglang#23300 on 2026-04-21), so the cache_salt the gateway sets does not isolate tenants in deployment d0",
		"server": 0,
		"at": "release",
	}}
}

# A release pinned outside the image (here a requirements file) is judged
# instead of the tag.
test_fires_on_a_pinned_release_over_the_tag if {
	srv := test.server({
		"image": {"value": "lmsysorg/sglang:v0.5.13", "known": true},
		"release": {"version": "0.5.3", "source": "requirements.txt 0.5.3 at requirements.txt:1:9"},
	})
	some f in salt_dropping_release.deny with input as test.colocated_input([srv], gateway)
	startswith(f.msg, "requirements.txt 0.5.3 at requirements.txt:1:9 is SGLang 0.5.3, released 2025-10-06")
	f.at == "release"
}

test_quiet_on_a_pinned_release_with_the_fix if {
	srv := test.server({
		"image": {"value": "lmsysorg/sglang:v0.5.3", "known": true},
		"release": {"version": "0.5.13", "source": "engine_release at .kvlint.yaml:2:11"},
	})
	count(salt_dropping_release.deny) == 0 with input as test.colocated_input([srv], gateway)
}

test_fires_on_a_release_before_cache_salt if {
	some f in findings("docker.io/lmsysorg/sglang:v0.5.2")
	contains(f.msg, "released 2025-09-11: that release has no cache_salt field at all")
}

test_fires_on_old_releases_by_version if {
	some f in findings("lmsysorg/sglang:v0.4.6.post5-cu124")
	contains(f.msg, "released from main before SGLang moved to release branches")
}

test_fires_on_releases_before_v0_5_10 if {
	some f in findings("lmsysorg/sglang:v0.5.8")
	contains(f.msg, "released before v0.5.10 (out by 2026-04-06)")
	some g in findings("lmsysorg/sglang:v0.5.10.post1")
	contains(g.msg, "released by 2026-04-13")
}

test_fires_for_a_client_salt if {
	iso := {"isolation": {"cache_salt": "client", "per_tenant_deployments": false, "external_kv": "shared"}}
	some f in salt_dropping_release.deny with input as test.colocated_input([on("lmsysorg/sglang:v0.5.6")], iso)
	contains(f.msg, "the cache_salt the client sets")
}

test_fires_info_when_the_tag_cannot_be_dated if {
	some f in findings("lmsysorg/sglang:latest")
	f.severity == "info"
	contains(f.msg, "does not name a release kvlint can date")
	some g in findings("lmsysorg/sglang:v0.5.11-cu130")
	g.severity == "info"
	contains(g.msg, "kvlint cannot tell whether SGLang 0.5.11 includes the fix")
	some h in salt_dropping_release.deny with input as test.colocated_input([test.server({"image": null})], gateway)
	contains(h.msg, "the launch names no image")
	some i in salt_dropping_release.deny with input as test.colocated_input([test.server({"image": {"value": "{{ .Values.image }}", "known": false, "typed": null}})], gateway)
	contains(i.msg, "the image {{ .Values.image }} is a placeholder")
}

test_quiet_on_a_release_with_the_fix if {
	count(findings("lmsysorg/sglang:v0.5.13")) == 0
	count(findings("lmsysorg/sglang:v0.5.15.post1-cu130")) == 0
	count(findings("lmsysorg/sglang:v0.6.0")) == 0
}

test_quiet_without_a_salt if {
	count(salt_dropping_release.deny) == 0 with input as test.colocated_input([on("lmsysorg/sglang:v0.5.3")], {})
}

test_quiet_for_single_tenancy if {
	count(salt_dropping_release.deny) == 0 with input as test.colocated_input([on("lmsysorg/sglang:v0.5.3")], object.union(gateway, {"tenancy": "single"}))
}

test_quiet_without_a_prefix_cache if {
	d := test.decode({"image": {"value": "lmsysorg/sglang:v0.5.3", "known": true, "typed": null}})
	count(salt_dropping_release.deny) == 0 with input as test.pd_input([d], gateway)
}
