# METADATA
# title: Module not analysed
# description: >-
#   A Terraform module call whose source is not a local path (a registry
#   address, git::, github.com/..., https://, s3::) is downloaded by
#   terraform init, and kvlint never downloads anything, so the resources the
#   module creates were not read. The run says so rather than pass them as
#   checked. A remote module call that names an engine (sglang, vllm) is an
#   input error instead, which fails the run. Severity info: it reports a
#   gap in what kvlint saw, not a fault in the deployment.
# related_resources:
#   - ref: https://github.com/hashicorp/terraform/blob/0e0c7206/internal/addrs/module_source.go
#     description: only ./ and ../ sources are local paths; every other source is downloaded
# custom:
#   id: KV502
#   severity: info
#   remediation: >-
#     If the module may deploy a model server, vendor it into the checked
#     tree and call it by a local path (./modules/...), or check its source
#     with kvlint separately; if it deploys none (a network, a cluster),
#     silence the note with "# kvlint:ignore KV502 -- reason".
package kvlint.coverage.module_not_analysed

deny contains finding if {
	some u in input.unanalysed
	u.kind == "terraform-module"
	finding := {
		"msg": sprintf("module %q (source %q) is not analysed: kvlint reads only local modules, so anything it deploys was not checked", [u.name, u.source]),
		"unanalysed": u.index,
	}
}
