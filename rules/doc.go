// Package rules judges servers with Rego policies.
//
// The built-in policies are embedded (policies/<area>/<name>.rego, package
// kvlint.rules.<name>, each with a # METADATA block and a <name>_test.rego
// beside it). New parses and compiles them once, under restricted
// capabilities (no http.send, net.* or opa.runtime), and prepares a single
// query that collects every rule's deny set; Evaluate only builds the input
// document and runs that query.
//
// The numbers come from Go (capacity.Estimate); the policies compare them and
// explain the consequence in the engine's terms. A deny object names the
// server and either the flag to change ("arg") or a flag issue ("issue"), and
// Evaluate turns that into the exact span the user must edit. INPUT.md and
// the comment in input.go describe the input document, and input.schema.json
// is its JSON Schema.
//
// Custom policies (Options.PolicyDirs) follow the same conventions and are
// compiled together with the built-in ones; see INPUT.md and custom.go.
// The rules about suppressions (KV00x, policies/suppressions, package
// kvlint.suppressions.<name>) judge the suppressions a run found, through
// EvaluateSuppressions.
package rules
