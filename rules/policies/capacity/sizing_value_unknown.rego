# METADATA
# title: KV pool cannot be checked, a sizing value is not known statically
# description: >-
#   A flag that decides the KV pool or the context window is a placeholder
#   kvlint cannot resolve ($VAR, $(VAR), {{ .Values.x }}, ${var.x}, a
#   Terraform data source), and without it the pool or the context stays
#   unknown, so KV101–KV104 cannot judge the server. kvlint never guesses a
#   placeholder's value; it says, once per server, which value it could not
#   see. Severity low: the deployment may well be fine, but a silent pass
#   would look like a clean bill of health.
# related_resources:
#   - ref: https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/mem_cache/kv_cache_configurator.py
#     description: the pool depends on these flags (_apply_token_constraints, _profile_available_bytes)
# custom:
#   id: KV106
#   severity: low
#   remediation: >-
#     Give the value where kvlint can read it (a literal, a values or tfvars
#     file, a variable default, an env entry of the container), or check the
#     rendered configuration with kvlint after the tool that fills the
#     placeholder has run.
package kvlint.rules.sizing_value_unknown

import data.kvlint.lib

deny contains finding if {
	some s in input.servers
	has_unknown(s.args) # cheap, and false for most servers
	c := s.capacity
	not lib.wont_start(c)
	not judged(c)
	unknown := lib.unknown_sizing_flags(s)
	count(unknown) > 0
	finding := {
		"msg": sprintf("cannot be checked: %s is %q, which is not known statically, so kvlint cannot tell whether the KV pool holds the context window%s", [
			unknown[0],
			s.args[unknown[0]].value,
			others(unknown),
		]),
		"server": s.index,
		"arg": unknown[0],
	}
}

# judged(c): the pool and the context are both known, or a bound already
# proves the pool too small (KV101 reports it).
has_unknown(args) if {
	some v in args
	not v.known
}

judged(c) if {
	is_number(c.pool_tokens)
	lib.context_tokens(c)
}

judged(c) if {
	lib.pool_limit(c).tokens < lib.context_tokens(c)
}

others(unknown) := "" if {
	count(unknown) == 1
} else := sprintf(" (nor are %s)", [concat(", ", array.slice(unknown, 1, count(unknown)))])
