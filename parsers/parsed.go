package parsers

import (
	"bytes"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/internal/parallel"
	"github.com/kvlint/kvlint/parsers/terraform"
)

// Parsed is what a set of files holds: the servers they launch, the
// Kubernetes Services that route to them (deploy.Group needs both), and the
// input that could not be analysed.
type Parsed struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*diag.Diagnostic
	// Unmarked[i] is true when the i-th file parsed was read whole and its
	// text never names kvlint (DirectiveMarker): it holds no suppression,
	// so the suppression step need not read it again. False for a chart or
	// a module (directories) and for a file that could not be read.
	Unmarked []bool
}

// DirectiveMarker is in every directive kvlint reads from a file: the
// kvlint:ignore comments and the kvlint.io/ annotations. A file whose text
// does not contain it has none.
const DirectiveMarker = "kvlint"

// ParseAll is Parse that also returns the Services a manifest defines.
func ParseAll(f File) Parsed { return ParseAllWith(f, Options{}) }

// parseAllWith is ParseAllWith without its guard (guard.go).
func parseAllWith(f File, opt Options) Parsed {
	switch f.Kind {
	case KindHelm:
		return parseHelm(f, opt)
	case KindTerraform:
		s, e := terraform.ParseModule(f.Path, terraformOptions(opt))
		return Parsed{Servers: s, Errors: e}
	}
	data, err := readBounded(f.Path)
	if err != nil {
		return Parsed{Errors: []*diag.Diagnostic{{Span: deploy.Span{File: f.Path}, Message: limits.Describe(err)}}}
	}
	p := parseText(f, data)
	p.Unmarked = []bool{!bytes.Contains(data, []byte(DirectiveMarker))}
	return p
}

// ParseFileSet parses files on every core and returns everything in file
// order, whatever order the workers finish in, so output is deterministic.
func ParseFileSet(files []File) Parsed { return ParseFileSetWith(files, Options{}) }

// ParseFileSetWith is ParseFileSet with settings from the command line.
func ParseFileSetWith(files []File, opt Options) Parsed {
	out := make([]Parsed, len(files))
	parallel.For(len(files), func(i int) { out[i] = ParseAllWith(files[i], opt) })
	all := Parsed{Unmarked: make([]bool, len(files))}
	for i, p := range out {
		all.Servers = append(all.Servers, p.Servers...)
		all.Services = append(all.Services, p.Services...)
		all.Errors = append(all.Errors, p.Errors...)
		all.Unmarked[i] = len(p.Unmarked) == 1 && p.Unmarked[0]
	}
	return all
}
