package diag

import "github.com/kvlint/kvlint/deploy"

// Fix is one way to make a finding hold, computed from the deployment model
// (never a canned hint): the edits that apply it and the numbers it yields.
//
// A finding carries its fixes ranked, least disruptive first. A fix whose
// value cannot be written as a literal edit (a Helm template expression, a
// Terraform interpolation) keeps its Description and Result and says in
// Unwritable why kvlint will not apply it; the user edits by hand.
type Fix struct {
	// Description is the fix in the words of the flag it changes, e.g.
	// "--max-total-tokens 131072".
	Description string
	// Replacements are the edits that apply the fix, each inside the file
	// that sets the value. Empty when Unwritable is set.
	Replacements []Replacement
	// Result is what the deployment looks like after the fix, in the order a
	// reader wants it (pool tokens, memory it needs, memory there is).
	Result []Quantity
	// Unwritable says why the fix cannot be applied by `kvlint fix --write`;
	// "" when every replacement is a literal edit.
	Unwritable string
	// WhatIf marks a fix that holds only if a fact kvlint cannot know is
	// true (the GPU a server runs on): it shows what that fact would give
	// and is Unwritable. `kvlint fix` neither applies nor refuses it, since
	// there is nothing for it to edit.
	WhatIf bool
}

// Replacement replaces the text at Span with NewText. A span whose end equals
// its start inserts NewText there. Span uses deploy.Span's convention: 1-based
// lines and byte columns, the end one past the last byte replaced.
type Replacement struct {
	Span    deploy.Span
	NewText string
}

// Quantity is one number a fix produces, with the unit it is counted in
// ("tokens", "bytes", "requests").
type Quantity struct {
	Name  string
	Value float64
	Unit  string
}
