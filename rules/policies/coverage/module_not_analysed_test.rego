package kvlint.coverage.module_not_analysed_test

import data.kvlint.coverage.module_not_analysed

module(overrides) := object.union(
	{
		"index": 0, "kind": "terraform-module", "name": "vpc",
		"source": "terraform-aws-modules/vpc/aws", "file": "infra/main.tf", "line": 2,
	},
	overrides,
)

test_fires_on_a_remote_module if {
	some f in module_not_analysed.deny with input as {"mentions": [], "unanalysed": [module({})]}
	f.msg == `module "vpc" (source "terraform-aws-modules/vpc/aws") is not analysed: kvlint reads only local modules, so anything it deploys was not checked`
	f.unanalysed == 0
}

test_fires_once_per_module if {
	us := [module({}), module({"index": 1, "name": "eks", "source": "git::https://example.com/eks.git?ref=v1"})]
	count(module_not_analysed.deny) == 2 with input as {"mentions": [], "unanalysed": us}
}

test_quiet_without_remote_modules if {
	count(module_not_analysed.deny) == 0 with input as {"mentions": [], "unanalysed": []}
}

test_quiet_on_engine_mentions if {
	m := {"index": 0, "kind": "image", "text": "lmsysorg/sglang:latest", "engine": "sglang", "quoted": false, "image_known": false, "image_entrypoint": false, "file": "k8s/a.yaml", "line": 3}
	count(module_not_analysed.deny) == 0 with input as {"mentions": [m], "unanalysed": []}
}
