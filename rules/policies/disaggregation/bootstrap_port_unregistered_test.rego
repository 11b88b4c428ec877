package kvlint.rules.bootstrap_port_unregistered_test

import data.kvlint.rules.bootstrap_port_unregistered
import data.kvlint.test

on_9000 := {"args": {"--disaggregation-bootstrap-port": {"value": "9000", "known": true, "typed": 9000}}}

link(port) := {"links": [{
	"router": 2, "role": "prefill", "target": "http://prefill:30000", "bootstrap_port": port,
	"discovery": false, "match": "name", "servers": [0],
}]}

servers(p) := [p, test.decode({}), test.router({"args": {"--prefill": {"value": "http://prefill:30000", "known": true, "typed": "http://prefill:30000"}}})]

test_fires_when_the_port_is_missing if {
	findings := bootstrap_port_unregistered.deny with input as test.pd_input(servers(test.prefill(on_9000)), link(""))
	findings == {{
		"msg": "the router registers http://prefill:30000 without a bootstrap port, so the decode server decode (decode.yaml:20) falls back to its own bootstrap port 8998 (managers/scheduler.py), but the prefill server prefill (prefill.yaml:20) listens on 9000: transfers wait for a bootstrap server that is not there; write the port after the URL (--prefill http://prefill:30000 9000)",
		"server": 2,
		"arg": "--prefill",
	}}
}

test_fires_when_none_is_written if {
	count(bootstrap_port_unregistered.deny) == 1 with input as test.pd_input(servers(test.prefill(on_9000)), link("none"))
}

test_quiet_when_the_port_is_registered if {
	count(bootstrap_port_unregistered.deny) == 0 with input as test.pd_input(servers(test.prefill(on_9000)), link("9000"))
}

test_quiet_on_the_default_port if {
	count(bootstrap_port_unregistered.deny) == 0 with input as test.pd_input(servers(test.prefill({})), link(""))
}

test_quiet_when_decode_uses_the_same_port if {
	s := [test.prefill(on_9000), test.decode(on_9000), test.router({})]
	count(bootstrap_port_unregistered.deny) == 0 with input as test.pd_input(s, link(""))
}

test_quiet_for_a_placeholder_port if {
	p := test.prefill({"args": {"--disaggregation-bootstrap-port": {"value": "$(PORT)", "known": false, "typed": null}}})
	count(bootstrap_port_unregistered.deny) == 0 with input as test.pd_input(servers(p), link(""))
}
