package helm

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// maxChartSize bounds what a chart may hold in all; Helm's own archive
// loader stops at 100 MiB per file, charts are kilobytes.
const maxChartSize = 64 << 20

// loaded is a chart and where each of its (sub)charts lives, so a template
// name Helm reports ("mychart/charts/sub/templates/x.yaml") maps to a file.
type loaded struct {
	chart *chart.Chart
	// bases maps a chart's full path (Chart.ChartFullPath) to the directory
	// holding it, as the user would write it ("charts/sglang"), or, for a
	// chart inside an archive, the archive path plus the chart's path in it.
	bases map[string]string
	// valueSpans indexes each (sub)chart's values.yaml, by full path.
	valueSpans map[string]spans
	// files receives the files of the charts that are directories on disk.
	files *source.Set
}

// loadChart loads a chart directory or archive with Helm's loader.
// The files of a chart directory go into files.
func loadChart(name string, files *source.Set) (*loaded, *diag.Diagnostic) {
	cfs := chartFS(name, files)
	info, err := cfs.Stat(name)
	if err != nil {
		return nil, diag.Errorf(deploy.Span{File: name}, "chart: %s", describeErr(err))
	}
	if !info.IsDir() && info.Size() > maxChartSize {
		return nil, diag.Errorf(deploy.Span{File: name}, "chart archive is larger than 64 MiB; not read")
	}
	c, err := safeLoad(cfs, name, info.IsDir())
	if r, ok := isRefused(err); ok {
		return nil, diag.Errorf(deploy.Span{File: r.path}, "chart file: %s", r.Error())
	}
	if err != nil {
		return nil, chartLoadError(name, info.IsDir(), err, files)
	}
	l := &loaded{chart: c, bases: map[string]string{}, valueSpans: map[string]spans{}, files: files}
	if info.IsDir() {
		l.locate(c, name, true)
	} else {
		l.locate(c, name+"/"+c.Name(), false)
	}
	return l, nil
}

// chartFS is the confinement a chart is read through: the run's, else the
// chart alone.
func chartFS(name string, files *source.Set) *confined.FS {
	if cfs := files.FS(); cfs != nil {
		return cfs
	}
	return confined.New([]string{name})
}

func safeLoad(cfs *confined.FS, name string, dir bool) (c *chart.Chart, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the chart loader failed: %v", r)
		}
	}()
	if dir {
		return loadVetted(cfs, name)
	}
	return loadArchive(cfs, name)
}

// chartLoadError places a loader error on the file it names: Chart.yaml for
// metadata problems, else the chart itself.
func chartLoadError(name string, dir bool, err error, files *source.Set) *diag.Diagnostic {
	msg := err.Error()
	for _, base := range []string{"Chart.yaml", "values.yaml"} {
		if !dir || !strings.Contains(msg, base) {
			continue
		}
		if f, rerr := files.Read(filepath.Join(name, base), source.SyntaxYAML); rerr == nil {
			return diag.Errorf(lineOf(yamlsrc.FromFile(f), msg, nil), "chart: %s", msg)
		}
	}
	return diag.Errorf(deploy.Span{File: name}, "chart: %s", msg)
}

// locate records where chart c and its subcharts live. A subchart lives in
// charts/<dir>/ (a directory whose Chart.yaml names it) or in an archive
// charts/<name>-<version>.tgz; an aliased dependency is found by the name of
// the chart it aliases.
func (l *loaded) locate(c *chart.Chart, base string, onDisk bool) {
	full := c.ChartFullPath()
	if _, done := l.bases[full]; done {
		return
	}
	l.bases[full] = base
	if onDisk && l.files != nil {
		// The loader read these files from base, byte for byte: the
		// set holds them under the names spans give them.
		for _, f := range c.Raw {
			name := filepath.Join(base, filepath.FromSlash(f.Name))
			l.files.Add(source.NewFile(name, f.Data, source.SyntaxOf(name)))
		}
	}
	for _, f := range c.Raw {
		if f.Name == "values.yaml" {
			src := yamlsrc.NewSource(path.Join(base, "values.yaml"), f.Data)
			if onDisk {
				src = yamlsrc.NewSource(filepath.Join(base, "values.yaml"), f.Data)
			}
			if docs, errs := src.Documents(); len(errs) == 0 && len(docs) > 0 {
				l.valueSpans[full] = indexYAML(src, docs[0].Root, nil)
			}
		}
	}
	var dirs map[string]string // chart name -> directory under charts/
	if onDisk {
		dirs = subchartDirs(chartFS(base, l.files), base)
	}
	for _, dep := range c.Dependencies() {
		name := dep.Name()
		orig := name
		if c.Metadata != nil {
			for _, d := range c.Metadata.Dependencies {
				if d != nil && d.Alias == name && d.Name != "" {
					orig = d.Name
				}
			}
		}
		if d, ok := dirs[orig]; ok {
			l.locate(dep, d, true)
			continue
		}
		l.locate(dep, path.Join(base, "charts", orig), false)
	}
}

// subchartDirs maps the chart names of the directories under dir/charts to
// those directories.
func subchartDirs(cfs *confined.FS, dir string) map[string]string {
	out := map[string]string{}
	entries, err := cfs.ReadDir(filepath.Join(dir, "charts"))
	if err != nil {
		return out
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, "charts", e.Name())
		data, err := cfs.ReadFile(filepath.Join(sub, "Chart.yaml"))
		if err != nil || len(data) > 1<<20 {
			continue
		}
		var meta struct {
			Name string `yaml:"name"`
		}
		if yaml.Unmarshal(data, &meta) == nil && meta.Name != "" {
			if _, dup := out[meta.Name]; !dup {
				out[meta.Name] = sub
			}
		}
	}
	return out
}

// templateFile maps a template name as Helm's engine knows it
// ("mychart/charts/sub/templates/x.yaml") to the file a user edits.
func (l *loaded) templateFile(name string) string {
	best := ""
	for full := range l.bases {
		if strings.HasPrefix(name, full+"/") && len(full) > len(best) {
			best = full
		}
	}
	if best == "" {
		return name
	}
	rest := strings.TrimPrefix(name, best+"/")
	base := l.bases[best]
	if strings.Contains(base, ".tgz/") || !isDir(base) {
		return path.Join(base, rest)
	}
	return filepath.Join(base, filepath.FromSlash(rest))
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
