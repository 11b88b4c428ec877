// Package parsers finds the files that can launch an LLM server and hands each
// to the parser of its format. The formats themselves live in sub-packages.
package parsers

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/source"
)

// Kind is a source format kvlint reads.
type Kind string

const (
	KindShell      Kind = "shell"
	KindMakefile   Kind = "makefile"
	KindDockerfile Kind = "dockerfile"
	KindCompose    Kind = "compose"
	KindKubernetes Kind = "kubernetes"
	// KindWorkflow is a GitHub Actions workflow: its steps' run: scripts.
	KindWorkflow Kind = "workflow"
	// KindSkyPilot is a SkyPilot task file: its run: script on each node.
	KindSkyPilot Kind = "skypilot"
	// KindTerraform is a Terraform module: File.Path is the directory that
	// holds its *.tf files (one entry per directory, however many files).
	KindTerraform Kind = "terraform"
	// KindHelm is a Helm chart: File.Path is the directory holding
	// Chart.yaml (rendered as a whole, its files are not listed) or a
	// packaged .tgz named on the command line.
	KindHelm Kind = "helm"
	// KindHelmValues is a values file found without its chart, in the shape
	// of a chart kvlint knows (parsers/helm.KnownValues).
	KindHelmValues Kind = "helm-values"
	// KindUnsupported is a file that can define a server in a format kvlint
	// does not analyse yet (Helm templates, Terraform). It is reported, never
	// silently passed over, when it mentions an engine.
	KindUnsupported Kind = "unsupported"
)

// Syntax is the comment syntax of the files of kind k, as its Format
// classifies them (source.SyntaxOther for a kind no Format reads).
func (k Kind) Syntax() source.Syntax {
	if f := formatOf(k); f != nil {
		return f.Syntax()
	}
	return source.SyntaxOther
}

// File is one file discovery chose, with the path as the user would write it
// (relative paths stay relative to the working directory).
type File struct {
	Path string
	Kind Kind
}

// Discover walks paths (files or directories) and returns the files to parse in
// a stable order. Directories are walked recursively; .git is never entered;
// ignore (plus every .gitignore met on the way) decides what else is passed
// over. A path given explicitly as a file is always checked, ignored or not,
// and its kind is sniffed even if its name says nothing. Paths that can't be
// read are returned as errors, and the walk goes on.
//
// Every read goes through a confined.FS of paths: a symbolic link met in the
// walk whose target is outside them, or anything that is not a regular file,
// is an error at its path and never read.
func Discover(paths []string, ignore *Ignore) ([]File, []*diag.Diagnostic) {
	cfs := confined.New(paths)
	if ignore == nil {
		ignore = &Ignore{}
	}
	var files []File
	var errs []*diag.Diagnostic
	seen := map[string]bool{}
	add := func(f File) {
		if !seen[f.Path] {
			seen[f.Path] = true
			files = append(files, f)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			errs = append(errs, &diag.Diagnostic{Span: deploy.Span{File: root}, Message: limits.Describe(err)})
			continue
		}
		if !info.IsDir() {
			kind, ok, err := classify(cfs, root, true)
			if err != nil {
				errs = append(errs, &diag.Diagnostic{Span: deploy.Span{File: root}, Message: limits.Describe(err)})
			} else if ok && kind == KindTerraform {
				add(File{Path: filepath.Dir(root), Kind: kind}) // a .tf or .tfvars file names its module
			} else if chart, isChart := chartNamedBy(cfs, root); isChart {
				add(File{Path: chart, Kind: KindHelm})
			} else if ok {
				add(File{Path: root, Kind: kind})
			} else {
				errs = append(errs, &diag.Diagnostic{Span: mentionSpan(cfs, root),
					Message: "not a format kvlint reads (shell script, Dockerfile, compose file or Kubernetes YAML)"})
			}
			continue
		}
		ig := &Ignore{rules: append([]ignoreRule(nil), ignore.rules...)}
		// charts are the chart directories met so far: what Helm renders
		// of them (chartOwnDirs, isChartOwnFile) is read with the chart,
		// and every other file in them (a ci/ or examples/ manifest, a
		// start script) on its own, as kubectl or a shell would run it.
		charts := map[string]bool{}
		walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &diag.Diagnostic{Span: deploy.Span{File: p}, Message: limits.Describe(err)})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				// .terraform holds the modules and providers terraform init
				// downloaded: copies of code the repository does not own.
				if d.Name() == ".git" || d.Name() == ".terraform" || (rel != "." && ig.Match(rel, true)) {
					return fs.SkipDir
				}
				base := rel
				if base == "." {
					base = ""
				}
				if lines, err := readLines(cfs, filepath.Join(p, ".gitignore")); err == nil {
					ig.Add(base, lines)
				}
				if charts[filepath.Dir(p)] && chartOwnDirs[d.Name()] {
					return fs.SkipDir // rendered with its chart
				}
				if isChartDir(p) {
					add(File{Path: p, Kind: KindHelm}) // rendered whole, subcharts included
					charts[p] = true
				}
				return nil
			}
			if ig.Match(rel, false) || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if charts[filepath.Dir(p)] && isChartOwnFile(d.Name()) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// A link to a directory inside the checked paths: the walk
				// reaches its target on its own (WalkDir does not follow
				// links). One that leads outside fails the confined Stat
				// and is reported by classify below.
				if info, err := cfs.Stat(p); err == nil && info.IsDir() {
					return nil
				}
			}
			kind, ok, err := classify(cfs, p, false)
			if err != nil {
				errs = append(errs, &diag.Diagnostic{Span: deploy.Span{File: p}, Message: limits.Describe(err)})
			} else if ok && kind == KindTerraform {
				if strings.HasSuffix(p, ".tf") { // tfvars files belong to the module of their .tf files
					add(File{Path: filepath.Dir(p), Kind: kind})
				}
			} else if ok {
				add(File{Path: p, Kind: kind})
			}
			return nil
		})
		if walkErr != nil {
			errs = append(errs, &diag.Diagnostic{Span: deploy.Span{File: root}, Message: limits.Describe(walkErr)})
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, errs
}

// classify decides a file's format from its name and, where the name is not
// enough, its first bytes: the first of formats that claims it decides.
// explicit is true for a file named on the command line, which is sniffed
// more eagerly.
func classify(cfs *confined.FS, p string, explicit bool) (Kind, bool, error) {
	c := newCandidate(cfs, p, explicit)
	for _, f := range formats {
		m, err := f.Detect(c)
		if err != nil {
			return "", false, err
		}
		switch m {
		case Matched:
			return f.Kind(), true, nil
		case Declined:
			return "", false, nil
		}
	}
	return "", false, nil
}

func isComposeName(lower string) bool {
	for _, prefix := range []string{"docker-compose", "compose"} {
		if lower == prefix+".yaml" || lower == prefix+".yml" ||
			strings.HasPrefix(lower, prefix+".") || strings.HasPrefix(lower, prefix+"-") {
			return true
		}
	}
	return false
}

// inChartTemplates reports whether p sits in the templates/ directory of a
// Helm chart (a directory with Chart.yaml above it).
// chartOwnDirs are the directories of a chart Helm reads itself
// (helm.sh/helm/v3 pkg/chart/loader: templates/, charts/ for subcharts,
// crds/), and files/, where charts keep what their templates embed with
// .Files.Get (Helm's "Accessing Files Inside Templates"): a script there is
// launched by the chart's own manifests, which the chart render reads.
var chartOwnDirs = map[string]bool{"templates": true, "charts": true, "crds": true, "files": true}

// isChartOwnFile reports a file at a chart's root that Helm reads as part
// of the chart (pkg/chart/loader LoadFiles: Chart.yaml, Chart.lock,
// values.yaml, values.schema.json, requirements.*, .helmignore) or that is
// one of its values files (values-prod.yaml, prod-values.yaml).
func isChartOwnFile(name string) bool {
	lower := strings.ToLower(name)
	switch lower {
	case "chart.yaml", "chart.lock", "values.schema.json", "requirements.yaml", "requirements.lock", ".helmignore":
		return true
	}
	ext := path.Ext(lower)
	return (ext == ".yaml" || ext == ".yml") && strings.Contains(lower, "values")
}

func inChartTemplates(p string) bool {
	dir := filepath.Dir(p)
	for d := dir; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "templates" {
			if _, err := os.Stat(filepath.Join(filepath.Dir(d), "Chart.yaml")); err == nil {
				return true
			}
		}
		if parent := filepath.Dir(d); parent == d || d == "." {
			return false
		}
	}
}

// unsupportedIfEngine keeps a file kvlint cannot analyse yet when it names
// an engine as a launch would (firstMention, the test every "names an
// engine" report uses): reporting it is better than a clean run that never
// looked.
func unsupportedIfEngine(c *Candidate, syntax source.Syntax) (Match, error) {
	p := c.Path
	data, err := c.Read()
	if err != nil {
		return NoMatch, err
	}
	if _, ok := firstMention(source.NewFile(p, data, syntax)); ok {
		return Matched, nil
	}
	return Declined, nil
}

func isShellShebang(head []byte) bool {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return false
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return false
	}
	interp := path.Base(fields[0])
	if interp == "env" && len(fields) > 1 {
		interp = fields[1]
	}
	switch interp {
	case "sh", "bash", "dash", "ash", "ksh", "zsh":
		return true
	}
	return false
}

func readLines(cfs *confined.FS, p string) ([]string, error) {
	data, err := cfs.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, nil
}

// mentionSpan is where file p first names an engine as a launch would, so a
// file kvlint cannot read points at the launch it did not check; the file
// alone when it names none or cannot be read.
func mentionSpan(cfs *confined.FS, p string) deploy.Span {
	data, err := cfs.ReadFile(p)
	if err != nil {
		return deploy.Span{File: p}
	}
	f := source.NewFile(p, data, source.SyntaxOf(p))
	if m, ok := firstMention(f); ok {
		return f.Index(source.LF).Span(p, m.Start, m.End)
	}
	return deploy.Span{File: p}
}
