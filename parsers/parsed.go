package parsers

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/internal/parallel"
	"github.com/kvlint/kvlint/source"
)

// Parsed is what a set of files holds: the servers they launch, the
// Kubernetes Services that route to them (deploy.Group needs both), and the
// input that could not be analysed.
type Parsed struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*diag.Diagnostic
	// Files holds the text of every file the parse read: the discovered
	// files, the files their command lines name, a chart's files and
	// values files, a module's files. Spans point into them; a span whose
	// file is not here points at something no parser read (a --set
	// argument, a file inside a chart archive).
	Files *source.Set
}

// DirectiveMarker is in every directive kvlint reads from a file: the
// kvlint:ignore comments and the kvlint.io/ annotations. A file whose text
// does not contain it has none.
const DirectiveMarker = "kvlint"

// ParseAll is Parse that also returns the Services a manifest defines.
func ParseAll(f File) Parsed { return ParseAllWith(f, Options{}) }

// parseAllWith is ParseAllWith without its guard (guard.go).
func parseAllWith(f File, opt Options) Parsed {
	format := formatOf(f.Kind)
	if format == nil {
		return Parsed{Errors: []*diag.Diagnostic{{Span: deploy.Span{File: f.Path}, Message: "unknown file kind " + string(f.Kind)}}}
	}
	in := Input{File: f, Options: opt}
	if f.Kind != KindHelm && f.Kind != KindTerraform { // a file read whole
		src, err := opt.Files.Read(f.Path, format.Syntax())
		if err != nil {
			return Parsed{Errors: []*diag.Diagnostic{{Span: deploy.Span{File: f.Path}, Message: limits.Describe(err)}}}
		}
		in.Source = src
		in.Read = ReadBeside(f.Path, opt.Files)
	}
	return format.Parse(in)
}

// withFiles gives opt a file set when the caller gave none.
func withFiles(opt Options) Options {
	if opt.Files == nil {
		opt.Files = source.NewSet()
	}
	return opt
}

// ParseFileSet parses files on every core and returns everything in file
// order, whatever order the workers finish in, so output is deterministic.
func ParseFileSet(files []File) Parsed { return ParseFileSetWith(files, Options{}) }

// ParseFileSetWith is ParseFileSet with settings from the command line.
func ParseFileSetWith(files []File, opt Options) Parsed {
	opt = withFiles(opt)
	out := make([]Parsed, len(files))
	parallel.For(len(files), func(i int) { out[i] = ParseAllWith(files[i], opt) })
	all := Parsed{Files: opt.Files}
	for _, p := range out {
		all.Servers = append(all.Servers, p.Servers...)
		all.Services = append(all.Services, p.Services...)
		all.Errors = append(all.Errors, p.Errors...)
	}
	return all
}
