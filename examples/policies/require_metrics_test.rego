package kvlint.rules.require_metrics_test

import data.kvlint.rules.require_metrics
import data.kvlint.test

metrics := {"--enable-metrics": {"value": "true", "known": true}}

test_fires_without_metrics if {
	some f in require_metrics.deny with input as test.input_with([test.server({})])
	f.server == 0
	f.msg == "sglang.launch_server does not export Prometheus metrics: add --enable-metrics"
}

test_quiet_with_metrics if {
	s := test.server({"args": object.union(test.base_server.args, metrics)})
	count(require_metrics.deny) == 0 with input as test.input_with([s])
}

test_quiet_when_extra_args_may_hold_it if {
	s := test.server({"opaque_args": true, "opaque": ["$EXTRA_ARGS"]})
	count(require_metrics.deny) == 0 with input as test.input_with([s])
}

test_quiet_for_the_router if {
	s := test.server({"engine": "sglang-router"})
	count(require_metrics.deny) == 0 with input as test.input_with([s])
}
