// Package helm renders Helm charts the way `helm template` does, in process
// and offline, and finds the engine launches in what they render, with every
// value traced back to the line a user edits.
//
// A chart (a directory with Chart.yaml, or a packaged .tgz) is rendered with
// Helm's own engine (helm.sh/helm/v3): the chart's values.yaml, then each
// values document in order (-f files, Terraform's values = [...]), then each
// --set, coalesced with the subcharts' values as Helm coalesces them. There is
// no cluster and no network: `lookup` returns an empty map (Helm's engine
// without a client), capabilities are Helm's defaults, and values.schema.json
// is not checked (its $refs may name URLs).
//
// Provenance. The rendered manifests go through parsers/k8s, whose spans point
// into rendered text nobody can edit. To map them back, the chart is rendered
// again with every template's text and output actions bracketed by invisible
// markers (the trace), which names, for each rendered byte, the template text
// or the {{ action }} that wrote it. A flag value that an action wrote is then
// matched to the values leaf that produced it by rendering once more with that
// leaf replaced by a unique marker string and seeing which action prints it.
// The value's Span is the values line (the line a user edits), and its Origin
// the template action that used it, then the include sites around it; a
// value from a command-line --set stays at the template action, the --set
// last in its Origin. A value written literally in a template is spanned at
// the template text. Where a template computes on a value (int, mul, printf
// "%d") the marker cannot pass through; the value is then linked to a leaf of
// equal value whose key names the flag, and that step is marked Inferred.
package helm

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// Source is the value of deploy.Server.Source for servers found in a chart.
const Source = deploy.SourceHelm

// Release is one rendering of a chart: what `helm template NAME CHART -n NS
// -f ... --set ...` is given.
type Release struct {
	// Chart is a chart directory (with Chart.yaml) or a packaged chart (.tgz).
	Chart string
	// Name is the release name; "release-name" when empty, as helm template.
	Name string
	// Namespace is the release namespace; "default" when empty.
	Namespace string
	// Values are applied in order after the chart's own values.yaml, later
	// documents winning (helm's -f, Terraform's values = [...]).
	Values []Values
	// Set are applied in order after Values (helm's --set, Terraform's set).
	Set []Set
	// Files, when set, receives the chart's files and the values files
	// read from disk, for the reporters to quote; nil keeps none.
	Files *source.Set
	// Images is the image table that gives a container writing no command
	// its image's entrypoint; nil has only the built-in rows.
	Images *engine.ImageTable
}

// Values is one values document.
type Values struct {
	// File names the document in spans (a -f file, the .tf file holding a
	// heredoc). When Data is nil, File is read.
	File string
	Data []byte
	// Locate, when set, maps a span in Data (File, line and column of the
	// document's own text) to where the user wrote it, for a document
	// embedded in another file. Nil means Data is all of File.
	Locate func(deploy.Span) deploy.Span
	// Unknown reports string leaves whose value is not known statically
	// (a Terraform variable without a value). Rendered text that depends
	// on them is an unknown value. Nil means every leaf is known.
	Unknown func(value string) bool
	// User is true for a file the user named on the command line
	// (--values), read wherever it is; any other values file (from
	// .kvlint.yaml, a Terraform helm_release) is read only inside the
	// checked paths.
	User bool
}

// Set is one --set assignment.
type Set struct {
	// Expr is key=value in --set syntax: a.b[0].c=x, several separated by
	// commas, {a,b} for lists.
	Expr string
	// String gives --set-string semantics: the value stays a string.
	String bool
	// Span is where the assignment is written; zero for a command line,
	// where the assignment's text names it instead.
	Span deploy.Span
	// Unknown is set when the value is not known statically.
	Unknown bool
}

// Manifest is what a release renders to: the servers its manifests launch
// and the Services that route to them, spans mapped to the chart's files.
type Manifest struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*diag.Diagnostic
}

// RenderManifest is Render that also returns the Services.
func RenderManifest(r Release, read engine.ReadFile) Manifest {
	rr, errs := render(r)
	if rr == nil {
		return Manifest{Errors: errs}
	}
	m := rr.manifestObjects(read)
	m.Errors = append(errs, m.Errors...)
	return m
}

// Render renders the release and returns the servers its manifests launch,
// each value spanned at the line a user edits. A chart that cannot be loaded
// or rendered (a template error, a missing required value, fail) is an error
// at the position Helm names. read resolves files a launch command names
// (--config), as for any Kubernetes manifest.
func Render(r Release, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	rr, errs := render(r)
	if rr == nil {
		return nil, errs
	}
	m := rr.manifestObjects(read)
	return m.Servers, append(errs, m.Errors...)
}

// Template returns what `helm template` prints for the release: every
// manifest, in Helm's install order, each headed by "---" and its
// "# Source:" line, then the hooks.
func Template(r Release) (string, []*diag.Diagnostic) {
	rr, errs := render(r)
	if rr == nil {
		return "", errs
	}
	return rr.manifest, errs
}
