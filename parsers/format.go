package parsers

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/parsers/compose"
	"github.com/kvlint/kvlint/parsers/dockerfile"
	"github.com/kvlint/kvlint/parsers/helm"
	"github.com/kvlint/kvlint/parsers/k8s"
	"github.com/kvlint/kvlint/parsers/makefile"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/skypilot"
	"github.com/kvlint/kvlint/parsers/terraform"
	"github.com/kvlint/kvlint/parsers/workflow"
	"github.com/kvlint/kvlint/source"
)

// Format is one source format kvlint reads: how discovery recognises its
// files and how an input of it is parsed. Adding a format is a sub-package
// for its syntax and one Format in formats; nothing downstream switches on
// a Kind.
type Format interface {
	Kind() Kind
	// Syntax is the comment syntax of its files, which the suppression
	// scanner reads kvlint:ignore directives in.
	Syntax() source.Syntax
	// Detect says whether the file c is this format's.
	Detect(c *Candidate) (Match, error)
	// Parse parses one input of this format.
	Parse(in Input) Parsed
}

// Match is a Format's answer to a file.
type Match int

const (
	// NoMatch leaves the file to the formats after this one.
	NoMatch Match = iota
	// Matched claims the file.
	Matched
	// Declined claims the file as this format's and passes over it: there
	// is nothing in it to check (a chart template that names no engine).
	Declined
)

// Candidate is a file discovery met, as the formats look at it.
type Candidate struct {
	Path string
	// Explicit is true for a file named on the command line, which is
	// sniffed more eagerly.
	Explicit bool
	Lower    string // the base name in lower case
	Ext      string // its extension, lower case, with the dot
	head     []byte
	headRead bool
	// fs is the run's confinement: a candidate is read through it alone.
	fs *confined.FS
}

func newCandidate(cfs *confined.FS, p string, explicit bool) *Candidate {
	lower := strings.ToLower(path.Base(filepath.ToSlash(p)))
	return &Candidate{Path: p, Explicit: explicit, Lower: lower, Ext: path.Ext(lower), fs: cfs}
}

// Read reads the whole file, through the run's confinement.
func (c *Candidate) Read() ([]byte, error) { return c.fs.ReadFile(c.Path) }

// Head is the file's first 128 bytes (fewer in a shorter file), read once.
func (c *Candidate) Head() ([]byte, error) {
	if !c.headRead {
		head, err := c.fs.ReadHead(c.Path, 128)
		if err != nil {
			return nil, err
		}
		c.head, c.headRead = head, true
	}
	return c.head, nil
}

// Input is what a Format parses: one discovered file or directory.
type Input struct {
	File File
	// Source is the file's text, for a format read whole; nil for an
	// input that is a directory (a chart, a module).
	Source *source.File
	// Read reads the files a command line in the input names (--config
	// FILE), relative to the input, into the run's set.
	Read    engine.ReadFile
	Options Options
}

// formats are tried in this order; the first that claims a file decides.
// Helm charts are directories and are found by their Chart.yaml
// (isChartDir, chartNamedBy): their Format detects no single file.
var formats = []Format{
	dockerfileFormat{}, workflowFormat{}, skypilotFormat{}, composeFormat{}, templateFormat{}, helmValuesFormat{},
	kubernetesFormat{}, terraformFormat{}, makefileFormat{}, shellFormat{}, helmFormat{},
}

// Kinds are the formats kvlint reads, in the order they are tried; one
// that is recognised but not analysed (KindUnsupported) is not among them.
// The CLI's help lists them, and a test holds it to this list.
func Kinds() []Kind {
	var out []Kind
	for _, f := range formats {
		if f.Kind() != KindUnsupported {
			out = append(out, f.Kind())
		}
	}
	return out
}

// formatOf is the Format of kind k, or nil.
func formatOf(k Kind) Format {
	for _, f := range formats {
		if f.Kind() == k {
			return f
		}
	}
	return nil
}

// serversOnly wraps a parser that finds no Services.
func serversOnly(s []*deploy.Server, e []*diag.Diagnostic) Parsed {
	return Parsed{Servers: s, Errors: e}
}

func isYAML(c *Candidate) bool { return c.Ext == ".yaml" || c.Ext == ".yml" }

type dockerfileFormat struct{}

func (dockerfileFormat) Kind() Kind            { return KindDockerfile }
func (dockerfileFormat) Syntax() source.Syntax { return source.SyntaxDockerfile }
func (dockerfileFormat) Detect(c *Candidate) (Match, error) {
	l := c.Lower
	// Dockerfile.gpu.dockerignore is not a Dockerfile: BuildKit reads an
	// ignore file named after the Dockerfile it sits beside ("Filename and
	// location", docs.docker.com/build/concepts/context/), and its lines
	// are patterns, not instructions.
	if c.Ext == ".dockerignore" {
		return NoMatch, nil
	}
	if l == "dockerfile" || l == "containerfile" || strings.HasPrefix(l, "dockerfile.") ||
		c.Ext == ".dockerfile" || c.Ext == ".containerfile" {
		return Matched, nil
	}
	return NoMatch, nil
}
func (dockerfileFormat) Parse(in Input) Parsed {
	return serversOnly(dockerfile.ParseFileWith(in.Source, in.Read, in.Options.Images))
}

// workflowFormat claims GitHub Actions workflows by their place
// (.github/workflows/), before any YAML format looks at their content.
type workflowFormat struct{}

func (workflowFormat) Kind() Kind            { return KindWorkflow }
func (workflowFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (workflowFormat) Detect(c *Candidate) (Match, error) {
	if isYAML(c) && workflow.IsWorkflowPath(filepath.ToSlash(c.Path)) {
		return Matched, nil
	}
	return NoMatch, nil
}
func (workflowFormat) Parse(in Input) Parsed {
	return serversOnly(workflow.ParseFile(in.Source, in.Read))
}

// skypilotFormat claims SkyPilot task files by their content: a top-level
// run: beside SkyPilot's own keys, in a document that is neither a
// Kubernetes object nor a compose file (skypilot.Detect).
type skypilotFormat struct{}

func (skypilotFormat) Kind() Kind            { return KindSkyPilot }
func (skypilotFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (skypilotFormat) Detect(c *Candidate) (Match, error) {
	if !isYAML(c) || isComposeName(c.Lower) {
		return NoMatch, nil
	}
	if head, err := c.Head(); err != nil || skypilot.RuledOutByHead(head) {
		return NoMatch, err
	}
	data, err := c.Read()
	if err != nil {
		return NoMatch, err
	}
	if skypilot.Detect(data) {
		return Matched, nil
	}
	return NoMatch, nil
}
func (skypilotFormat) Parse(in Input) Parsed {
	return serversOnly(skypilot.ParseFile(in.Source, in.Read))
}

type composeFormat struct{}

func (composeFormat) Kind() Kind            { return KindCompose }
func (composeFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (composeFormat) Detect(c *Candidate) (Match, error) {
	if isYAML(c) && isComposeName(c.Lower) {
		return Matched, nil
	}
	return NoMatch, nil
}
func (composeFormat) Parse(in Input) Parsed {
	return serversOnly(compose.ParseFileWith(in.Source, in.Read, in.Options.Images))
}

// templateFormat is a template kvlint does not render: a Helm template
// met without its chart being rendered (discovery renders charts whole, so
// only a template below a chart that could not be taken as one), or a
// Jinja template (*.j2, *.jinja, *.jinja2: Ansible roles and deployment
// generators write manifests and launch scripts so). Reported when it
// names an engine, rather than passed over in silence.
type templateFormat struct{}

func (templateFormat) Kind() Kind            { return KindUnsupported }
func (templateFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (templateFormat) Detect(c *Candidate) (Match, error) {
	if (isYAML(c) || c.Ext == ".tpl") && inChartTemplates(c.Path) || isJinja(c.Ext) {
		return unsupportedIfEngine(c, source.SyntaxYAML)
	}
	return NoMatch, nil
}

// isJinja reports whether ext is a Jinja template's.
func isJinja(ext string) bool { return ext == ".j2" || ext == ".jinja" || ext == ".jinja2" }
func (templateFormat) Parse(in Input) Parsed {
	return Parsed{Errors: []*diag.Diagnostic{unsupported(in.Source)}}
}

type helmValuesFormat struct{}

func (helmValuesFormat) Kind() Kind            { return KindHelmValues }
func (helmValuesFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (helmValuesFormat) Detect(c *Candidate) (Match, error) {
	if isYAML(c) && isBareValues(c, c.Lower) {
		return Matched, nil
	}
	return NoMatch, nil
}
func (helmValuesFormat) Parse(in Input) Parsed {
	return serversOnly(helm.ParseValues(in.File.Path, in.Source.Data))
}

type kubernetesFormat struct{}

func (kubernetesFormat) Kind() Kind            { return KindKubernetes }
func (kubernetesFormat) Syntax() source.Syntax { return source.SyntaxYAML }
func (kubernetesFormat) Detect(c *Candidate) (Match, error) {
	if isYAML(c) {
		return Matched, nil // any other YAML file is taken for a manifest
	}
	return NoMatch, nil
}
func (kubernetesFormat) Parse(in Input) Parsed {
	m := k8s.ParseManifestFileWith(in.Source, in.Read, k8s.Options{Images: in.Options.Images, ConfigMaps: in.Options.configMaps, OME: in.Options.omeModels, ModelFacts: in.Options.ModelFacts})
	out := Parsed{Servers: m.Servers, Services: m.Services, Errors: m.Errors}
	for _, v := range m.Unsized {
		out.Unlaunched = append(out.Unlaunched, Unlaunched{Span: v.Span, Mention: engine.Mention{Kind: engine.MentionNoKVCache, Text: "python -m huggingfaceserver --backend " + v.Raw}})
	}
	for _, c := range m.Controlled {
		kind := engine.MentionController
		if c.NoKVCache {
			kind = engine.MentionNoKVCache
		}
		out.Unlaunched = append(out.Unlaunched, Unlaunched{Span: c.Span, Mention: engine.Mention{Kind: kind, Text: c.Text, Engine: deploy.EngineVLLM}})
	}
	return out
}

// terraformFormat claims .tf and .tfvars files; Discover turns them into
// their module, the directory (Input.File.Path), which is what is parsed.
type terraformFormat struct{}

func (terraformFormat) Kind() Kind            { return KindTerraform }
func (terraformFormat) Syntax() source.Syntax { return source.SyntaxHCL }
func (terraformFormat) Detect(c *Candidate) (Match, error) {
	if c.Ext == ".tf" || c.Ext == ".tfvars" {
		return Matched, nil
	}
	return NoMatch, nil
}
func (terraformFormat) Parse(in Input) Parsed {
	r := terraform.Analyse(in.File.Path, terraformOptions(in.Options))
	p := Parsed{Servers: r.Servers, Errors: r.Errors}
	for _, m := range r.Remote {
		p.Unanalysed = append(p.Unanalysed, Unanalysed{Span: m.Span, Kind: UnanalysedTerraformModule, Name: m.Name, Source: m.Source})
	}
	return p
}

type shellFormat struct{}

func (shellFormat) Kind() Kind            { return KindShell }
func (shellFormat) Syntax() source.Syntax { return source.SyntaxShell }
func (shellFormat) Detect(c *Candidate) (Match, error) {
	// .slurm and .sbatch are the names Slurm batch scripts go by; sbatch
	// runs them with the shell of their #! line.
	if c.Ext == ".sh" || c.Ext == ".bash" || c.Ext == ".slurm" || c.Ext == ".sbatch" {
		return Matched, nil
	}
	// A Slurm batch script (job.sbatch, job.slurm) starts with a shebang
	// that names its interpreter, which sbatch requires; a shell one is read
	// like any script.
	slurm := c.Ext == ".sbatch" || c.Ext == ".slurm"
	if c.Ext != "" && !c.Explicit && !slurm {
		return NoMatch, nil
	}
	head, err := c.Head()
	if err != nil {
		return NoMatch, err
	}
	if isShellShebang(head) {
		return Matched, nil
	}
	return NoMatch, nil
}
func (shellFormat) Parse(in Input) Parsed {
	return serversOnly(shell.ParseFile(in.Source, in.Read, in.Options.Images))
}

// makefileFormat reads the recipes of a Makefile: the names GNU make looks
// for (GNUmakefile, makefile, Makefile: GNU make manual, 3.2 What Name to
// Give Your Makefile) and *.mk files, which are included makefiles.
type makefileFormat struct{}

func (makefileFormat) Kind() Kind            { return KindMakefile }
func (makefileFormat) Syntax() source.Syntax { return source.SyntaxShell }
func (makefileFormat) Detect(c *Candidate) (Match, error) {
	if c.Lower == "makefile" || c.Lower == "gnumakefile" || c.Ext == ".mk" {
		return Matched, nil
	}
	return NoMatch, nil
}
func (makefileFormat) Parse(in Input) Parsed {
	return serversOnly(makefile.ParseFile(in.Source, in.Read, in.Options.Images))
}

// helmFormat renders a chart directory or archive as each of its releases.
type helmFormat struct{}

func (helmFormat) Kind() Kind                         { return KindHelm }
func (helmFormat) Syntax() source.Syntax              { return source.SyntaxYAML }
func (helmFormat) Detect(c *Candidate) (Match, error) { return NoMatch, nil }
func (helmFormat) Parse(in Input) Parsed              { return parseHelm(in.File, in.Options) }
