package parsers

import (
	"bytes"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/internal/parallel"
	"github.com/kvlint/kvlint/parsers/k8s"
	"github.com/kvlint/kvlint/source"
)

// Parsed is what a set of files holds: the servers they launch, the
// Kubernetes Services that route to them (deploy.Group needs both), and the
// input that could not be analysed.
type Parsed struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*diag.Diagnostic
	// Unlaunched are the places a file names an engine when the file
	// yielded no server and no error (unlaunchedIn), in file order.
	Unlaunched []Unlaunched
	// Unanalysed are the things a parse knows are deployed and did not
	// read (a remote Terraform module), in file order.
	Unanalysed []Unanalysed
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
	if f.Kind == KindHelm || f.Kind == KindTerraform { // directories: they keep what they read
		return format.Parse(in)
	}
	// A file read whole joins the run's set only when something can be
	// reported in it: a server it launches (findings point at its flags),
	// an error, or a directive (the suppression scanner reads it). A large
	// repository is mostly other files, and keeping their text until the
	// report would double kvlint's live memory for nothing.
	src := opt.Files.File(f.Path)
	held := src != nil
	if !held {
		data, err := opt.FS.ReadFile(f.Path)
		if err != nil {
			return Parsed{Errors: []*diag.Diagnostic{{Span: deploy.Span{File: f.Path}, Message: limits.Describe(err)}}}
		}
		src = source.NewFile(f.Path, data, format.Syntax())
	}
	in.Source = src
	in.Read = ReadBeside(f.Path, opt.Files)
	p := format.Parse(in)
	if len(p.Servers) == 0 && len(p.Errors) == 0 {
		// The file is about to pass as clean: if it names an engine, say
		// so, and keep its text for the note's excerpt. Only files without
		// a server are scanned, with the bytes already in hand.
		p.Unlaunched = append(p.Unlaunched, unlaunchedIn(src, opt.Images)...)
	}
	if !held {
		if len(p.Servers) > 0 || len(p.Errors) > 0 || len(p.Unlaunched) > 0 || bytes.Contains(src.Data, []byte(DirectiveMarker)) {
			opt.Files.Add(src).ReleaseIndexes()
		} else {
			opt.Files.Pass(f.Path)
		}
	}
	return p
}

// withFiles gives opt a file set when the caller gave none.
func withFiles(opt Options, files ...File) Options {
	if opt.Files == nil {
		opt.Files = source.NewSet()
	}
	if opt.FS == nil {
		// Confined by default: to the run's roots, else to the files and
		// directories being parsed.
		roots := opt.Roots
		if len(roots) == 0 {
			for _, f := range files {
				roots = append(roots, f.Path)
			}
		}
		opt.FS = confined.New(roots)
	}
	if opt.Files.FS() == nil {
		opt.Files.Confine(opt.FS)
	}
	return opt
}

// ParseFileSet parses files on every core and returns everything in file
// order, whatever order the workers finish in, so output is deterministic.
func ParseFileSet(files []File) Parsed { return ParseFileSetWith(files, Options{}) }

// ParseFileSetWith is ParseFileSet with settings from the command line.
func ParseFileSetWith(files []File, opt Options) Parsed {
	opt = withFiles(opt, files...)
	files = withoutChildModules(files)
	opt.configMaps = collectConfigMaps(files, opt.Files)
	opt.omeModels = collectOMEModels(files, opt.Files, opt.ModelFacts)
	out := make([]Parsed, len(files))
	parallel.For(len(files), func(i int) { out[i] = ParseAllWith(files[i], opt) })
	// Charts and modules keep the files they read, indexes and all; the
	// reporters rebuild the few they quote.
	opt.Files.ReleaseIndexes()
	all := Parsed{Files: opt.Files}
	for _, p := range out {
		all.Servers = append(all.Servers, p.Servers...)
		all.Services = append(all.Services, p.Services...)
		all.Errors = append(all.Errors, p.Errors...)
		all.Unlaunched = append(all.Unlaunched, p.Unlaunched...)
		all.Unanalysed = append(all.Unanalysed, p.Unanalysed...)
	}
	all.Unlaunched = withoutLaunches(all.Unlaunched, all.Servers)
	all.Unanalysed = distinctUnanalysed(all.Unanalysed)
	return all
}

// distinctUnanalysed keeps the first of each remote module call: a local
// module that two root modules call (two examples sharing ../modules/network)
// is parsed with each root, and its remote module is one thing not read,
// written at one place, not one per caller.
func distinctUnanalysed(us []Unanalysed) []Unanalysed {
	seen := map[Unanalysed]bool{}
	kept := us[:0]
	for _, u := range us {
		if !seen[u] {
			seen[u] = true
			kept = append(kept, u)
		}
	}
	return kept
}

// withoutLaunches drops the mentions in files another file's parse found a
// launch in: a script held in a ConfigMap is launched by the container that
// mounts it, so its own file yields no server, yet it passes nothing by.
func withoutLaunches(ms []Unlaunched, servers []*deploy.Server) []Unlaunched {
	if len(ms) == 0 {
		return ms
	}
	launched := map[string]bool{}
	for _, s := range servers {
		launched[s.Span.File] = true
	}
	kept := ms[:0]
	for _, m := range ms {
		if !launched[m.Span.File] {
			kept = append(kept, m)
		}
	}
	return kept
}

// collectConfigMaps reads the ConfigMaps of the run's Kubernetes files, so
// a container may run a script from a ConfigMap another file defines (a
// kustomize base, a directory of manifests applied together).
func collectConfigMaps(files []File, set *source.Set) *k8s.ConfigMaps {
	return k8s.CollectConfigMaps(kubernetesFilesWith(files, set, "ConfigMap")...)
}

// collectOMEModels joins the OME InferenceServices, base models and
// runtimes of the run's Kubernetes files, which are usually written in
// separate files (a model catalog, the runtimes, the services).
func collectOMEModels(files []File, set *source.Set, facts k8s.ModelFacts) *k8s.OMEModels {
	return k8s.CollectOMEModels(facts, kubernetesFilesWith(files, set, "ome.io/")...)
}

// kubernetesFilesWith returns the run's Kubernetes files whose text holds
// needle. Only those are decoded by the collectors; they join the set, so
// the spans in them can be quoted, and their own parse then uses the same
// text.
func kubernetesFilesWith(files []File, set *source.Set, needle string) []*source.File {
	held := make([]*source.File, len(files))
	parallel.For(len(files), func(i int) {
		f := files[i]
		if f.Kind != KindKubernetes {
			return
		}
		if src := set.File(f.Path); src != nil {
			if bytes.Contains(src.Data, []byte(needle)) {
				held[i] = src
			}
			return
		}
		data, err := set.FS().ReadFile(f.Path)
		if err != nil || !bytes.Contains(data, []byte(needle)) {
			return // an unreadable file is reported by its own parse
		}
		held[i] = set.Add(source.NewFile(f.Path, data, KindKubernetes.Syntax()))
	})
	var with []*source.File
	for _, f := range held {
		if f != nil {
			with = append(with, f)
		}
	}
	return with
}
