package parsers

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/parsers/k8s"
	"github.com/kvlint/kvlint/source"
)

// Options are settings from the command line that reach the parsers.
type Options struct {
	// TFVarFiles are --tf-var-file files, applied in order to every
	// Terraform module after its own tfvars files.
	TFVarFiles []string
	// Environ is the environment ("NAME=value") TF_VAR_name variables are
	// read from; nil reads none.
	Environ []string
	// Helm gives the releases (values files, --set) a chart is rendered
	// as; nil renders every chart with its own values.
	Helm HelmSettings
	// FileTimeout bounds the time one file (a chart's render, a module's
	// evaluation) may take; zero means DefaultFileTimeout.
	FileTimeout time.Duration
	// Files receives every file the parsers read, for the reporters and
	// the suppression scanner; nil gives each parse a set of its own
	// (Parsed.Files).
	Files *source.Set
	// Roots are the paths the run checks (as given on the command line): a
	// Terraform module may call a local module anywhere inside them
	// (envs/prod calling ../../modules/llm), never outside. Empty confines
	// each module to its own directory.
	Roots []string
	// Images is the image table (the built-in rows plus .kvlint.yaml
	// images:) that gives a container without a command of its own the
	// image's entrypoint; nil has only the built-in rows.
	Images *engine.ImageTable
	// FS is what every read of input goes through (internal/confined):
	// nil confines to Roots, or without roots to the files parsed.
	FS *confined.FS
	// ModelFacts is what kvlint's model catalog knows of a Hugging Face
	// id: the OME runtime selector reads a base model's architecture and
	// size from it when the base model's spec does not write them. nil
	// knows nothing.
	ModelFacts k8s.ModelFacts

	// configMaps are the ConfigMaps of the run's Kubernetes files, for
	// the scripts containers run from ConfigMap volumes defined in
	// another file of the run (ParseFileSetWith collects them).
	configMaps *k8s.ConfigMaps
	// omeModels join OME InferenceServices to their base models and
	// runtimes across the run's Kubernetes files.
	omeModels *k8s.OMEModels
}

// Parse reads one discovered file and returns the servers it launches. Errors
// describe input that could not be analysed; servers found before or after a
// bad part of the file are still returned.
func Parse(f File) ([]*deploy.Server, []*diag.Diagnostic) { return ParseWith(f, Options{}) }

// ParseFiles parses files on every core and returns servers and errors in
// file order, whatever order the workers finish in, so output is
// deterministic.
func ParseFiles(files []File) ([]*deploy.Server, []*diag.Diagnostic) {
	return ParseFilesWith(files, Options{})
}

// ParseFilesWith is ParseFiles with settings from the command line.
func ParseFilesWith(files []File, opt Options) ([]*deploy.Server, []*diag.Diagnostic) {
	p := ParseFileSetWith(files, opt)
	return p.Servers, p.Errors
}

// unsupported reports a Helm template or Terraform file that names an
// engine, at the first place it does (firstMention), so the user sees what
// was not analysed.
func unsupported(f *source.File) *diag.Diagnostic {
	name := f.Name
	what := "Terraform is not analysed yet"
	switch {
	case isJinja(strings.ToLower(filepath.Ext(name))):
		what = "Jinja templates are not rendered: render this one and check the output"
	case !strings.HasSuffix(name, ".tf") && !strings.HasSuffix(name, ".tfvars"):
		what = "Helm chart templates are not rendered yet"
	}
	span := deploy.Span{File: name}
	if m, ok := firstMention(f); ok {
		span = f.Index(source.LF).Span(name, m.Start, m.End)
	}
	return &diag.Diagnostic{Span: span, Message: what + ": the server this file defines was not checked"}
}

// ReadBeside returns the engine.ReadFile for files named on a command line in
// file: relative paths resolve against the file's directory, and what is
// read goes into files. Absolute paths name the container's filesystem,
// which kvlint cannot see.
func ReadBeside(file string, files *source.Set) engine.ReadFile {
	dir := filepath.Dir(file)
	return func(p string) (string, []byte, error) {
		if filepath.IsAbs(p) {
			return p, nil, errAbsolute
		}
		name := filepath.Join(dir, p)
		f, err := files.Read(name, source.SyntaxOf(name))
		if err != nil {
			return name, nil, err
		}
		return name, f.Data, nil
	}
}

type absoluteError struct{}

func (absoluteError) Error() string {
	return "an absolute path names a file inside the container, which kvlint cannot read"
}

var errAbsolute = absoluteError{}
