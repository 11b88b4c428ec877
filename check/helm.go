package check

import (
	"os"
	"path/filepath"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers"
	"github.com/kvlint/kvlint/parsers/helm"
)

// helmReleases decides what each chart is rendered with. A chart named on
// the command line takes --values and --set when any is given; otherwise
// .kvlint.yaml's helm: entry for it (one release or several); otherwise its
// own values.yaml alone.
func helmReleases(cfg *config.Config, opt Options) parsers.HelmSettings {
	named := map[string]bool{}
	if len(opt.HelmValues) > 0 || len(opt.HelmSet) > 0 {
		for _, p := range opt.Paths {
			if abs, ok := chartAbs(p); ok {
				named[abs] = true
			}
		}
	}
	return func(chart string) []helm.Release {
		if abs, ok := chartAbs(chart); ok && named[abs] {
			r := helm.Release{Chart: chart}
			for _, f := range opt.HelmValues {
				r.Values = append(r.Values, helm.Values{File: f, User: true})
			}
			for _, s := range opt.HelmSet {
				r.Set = append(r.Set, helm.Set{Expr: s})
			}
			return []helm.Release{r}
		}
		var out []helm.Release
		for _, c := range cfg.HelmFor(chart) {
			r := helm.Release{Chart: chart, Name: c.Release, Namespace: c.Namespace}
			for _, f := range c.Values {
				r.Values = append(r.Values, helm.Values{File: f})
			}
			for _, s := range c.Set {
				r.Set = append(r.Set, helm.Set{Expr: s.Expr, Span: deploy.Span{
					File: cfg.Path, Line: s.Line, Col: s.Column, EndLine: s.Line, EndCol: s.Column + len(s.Expr)}})
			}
			out = append(out, r)
		}
		return out
	}
}

// chartAbs is the absolute path of the chart a path names (a chart
// directory, its Chart.yaml, or a packaged chart).
func chartAbs(p string) (string, bool) {
	if filepath.Base(p) == "Chart.yaml" {
		p = filepath.Dir(p)
	}
	info, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if info.IsDir() {
		if _, err := os.Stat(filepath.Join(p, "Chart.yaml")); err != nil {
			return "", false
		}
	}
	abs, err := filepath.Abs(p)
	return abs, err == nil
}

// withoutRenderedValues drops the values files found without a chart that a
// chart of this run is rendered with: they are checked through the chart.
func withoutRenderedValues(files []parsers.File, releases parsers.HelmSettings) []parsers.File {
	used := map[string]bool{}
	for _, f := range files {
		if f.Kind != parsers.KindHelm {
			continue
		}
		for _, r := range releases(f.Path) {
			for _, v := range r.Values {
				if abs, err := filepath.Abs(v.File); err == nil {
					used[abs] = true
				}
			}
		}
	}
	if len(used) == 0 {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if f.Kind == parsers.KindHelmValues {
			if abs, err := filepath.Abs(f.Path); err == nil && used[abs] {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}
