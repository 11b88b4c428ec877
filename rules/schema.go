package rules

import _ "embed"

// inputSchema is the JSON Schema of the input document (input.go builds the
// document; INPUT.md explains it). Written by hand, and kept true by a test
// that validates real documents against it, with additionalProperties false
// so a field added on the Go side fails the test until it is described.
//
//go:embed input.schema.json
var inputSchema []byte

// InputSchema returns the JSON Schema (draft 2020-12) of the input document
// the rules see, for `kvlint schema` and for editors of custom policies.
func InputSchema() []byte { return append([]byte(nil), inputSchema...) }
