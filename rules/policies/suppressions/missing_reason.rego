# METADATA
# title: Suppression without a reason
# description: >-
#   A suppression silences a finding but does not say why the finding is
#   acceptable. The reason is what a reviewer reads when the suppression is
#   added, and what the next maintainer needs to decide whether it still
#   holds once the deployment changes (a larger model, a smaller GPU, a new
#   tenant). The suppression still applies; this finding asks for the reason.
#   Severity medium: an unexplained suppression hides a finding from every
#   later reader, but the finding itself was seen once.
# related_resources:
#   - ref: https://github.com/kvlint/kvlint/blob/main/README.md#suppressions
#     description: the forms of suppression and where each takes its reason
# custom:
#   id: KV001
#   severity: medium
#   remediation: >-
#     Say why: after the rule IDs of a comment write " -- " and the reason
#     (kvlint:ignore KV101 -- pool sized for 32k prompts, enforced by the
#     gateway); on a Kubernetes object add the annotation
#     kvlint.io/ignore-reason; in .kvlint.yaml give the entry a reason.
package kvlint.suppressions.missing_reason

deny contains finding if {
	some s in input.suppressions
	s.problem == ""
	trim_space(s.reason) == ""
	finding := {
		"msg": sprintf("%s has no reason: %s", [s.text, how[s.kind]]),
		"suppression": s.index,
	}
}

how := {
	"inline": "write why after \" -- \" (kvlint:ignore KV101 -- why this is acceptable)",
	"file": "write why after \" -- \" (kvlint:ignore-file KV101 -- why this is acceptable)",
	"annotation": "add the annotation kvlint.io/ignore-reason, or a comment on the line, saying why",
	"config": "give the entry a reason: saying why",
}
