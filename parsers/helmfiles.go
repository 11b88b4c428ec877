package parsers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/parsers/helm"
)

// isChartDir reports whether dir holds a Helm chart (a Chart.yaml file).
func isChartDir(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && !info.IsDir()
}

// chartNamedBy reports the chart a file named on the command line stands
// for: the directory of a Chart.yaml, or a packaged chart (.tgz, gzip).
func chartNamedBy(cfs *confined.FS, p string) (string, bool) {
	if filepath.Base(p) == "Chart.yaml" {
		return filepath.Dir(p), true
	}
	lower := strings.ToLower(p)
	if strings.HasSuffix(lower, ".tgz") || strings.HasSuffix(lower, ".tar.gz") {
		head, err := cfs.ReadHead(p, 2)
		return p, err == nil && bytes.Equal(head, []byte{0x1f, 0x8b})
	}
	return "", false
}

// isBareValues reports a values file without its chart that has the shape
// of a chart kvlint knows. Only names a values file goes by are read
// (values.yaml, values-prod.yaml, prod-values.yml, ...).
func isBareValues(c *Candidate, lower string) bool {
	if !strings.Contains(lower, "values") {
		return false
	}
	data, err := c.Read()
	if err != nil {
		return false
	}
	return helm.KnownValues(data)
}

// HelmSettings are the releases a chart is rendered as; nil renders the
// chart once with its own values.
type HelmSettings func(chart string) []helm.Release

// parseHelm renders a chart as each of its releases.
func parseHelm(f File, opt Options) Parsed {
	var releases []helm.Release
	if opt.Helm != nil {
		releases = opt.Helm(f.Path)
	}
	if len(releases) == 0 {
		releases = []helm.Release{{Chart: f.Path}}
	}
	var out Parsed
	read := ReadBeside(filepath.Join(f.Path, "Chart.yaml"), opt.Files)
	for _, r := range releases {
		r.Chart = f.Path
		r.Files = opt.Files
		r.Images = opt.Images
		m := helm.RenderManifest(r, read)
		out.Servers = append(out.Servers, m.Servers...)
		out.Services = append(out.Services, m.Services...)
		out.Errors = append(out.Errors, m.Errors...)
	}
	return out
}
