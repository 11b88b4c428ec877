package parsers

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/source"
)

// maxUnitDepth bounds the walk from a changed file up to the chart that
// holds it: charts nest templates a few directories deep, never dozens.
const maxUnitDepth = 32

// Units maps changed files (what pre-commit passes a hook, or what a diff
// lists) to what must be checked together for the check to mean anything,
// and lists the files that have nothing to analyse:
//
//   - any file of a Helm chart (a template, values.yaml, a helper, a
//     NOTES.txt) is its chart's directory: templates render only with the
//     chart's values, and values only mean something through templates;
//   - a Terraform file is its module's directory (Discover's rule);
//   - a compose file is every compose file of its directory, the files
//     `docker compose` merges into one project (override files included);
//   - a Kubernetes manifest is every manifest and compose file of its
//     directory: a prefill, a decode and the router that joins them are
//     judged as one deployment, and they are kept side by side;
//   - a file of another kind kvlint reads (a script, a Dockerfile, a
//     Makefile, a workflow) is itself;
//   - anything else (a README, Go code, a Service or PVC without a
//     server) is passed over, unless it names an engine the way a launch
//     does: then it stays, and the run reports what it could not analyse.
//
// A file that no longer exists (deleted in the change) is passed over too.
// The order of units follows the order of the files.
func Units(files []string) (units, passed []string) {
	// The files are the user's; what is read beside them (siblings) is
	// read through a confinement to them and their directories.
	cfs := confined.New(files)
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			units = append(units, p)
		}
	}
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			passed = append(passed, f)
			continue
		}
		if info.IsDir() {
			add(f)
			continue
		}
		if chart, ok := chartHolding(f); ok {
			add(chart)
			continue
		}
		kind, ok, err := classify(cfs, f, true)
		switch {
		case err != nil:
			add(f) // Discover reports why it cannot be read
		case ok && kind == KindTerraform:
			add(filepath.Dir(f))
		case ok && (kind == KindCompose || kind == KindKubernetes):
			for _, sib := range siblings(cfs, f, kind) {
				add(sib)
			}
		case ok:
			// A script, a Dockerfile, a workflow; or a file kvlint cannot
			// analyse that names an engine (KindUnsupported), kept so the
			// run says what it could not check instead of passing it.
			add(f)
		default:
			// A Service, a PVC, a ConfigMap beside the manifests of
			// servers: no server of its own, but part of their deployment.
			if ext := filepath.Ext(f); ext == ".yaml" || ext == ".yml" {
				if group := siblings(cfs, f, KindKubernetes)[1:]; len(group) > 0 {
					for _, sib := range group {
						add(sib)
					}
					continue
				}
			}
			// A file kvlint cannot read that names an engine as a launch
			// would stays: the run reports it was not analysed.
			if m, err := unsupportedIfEngine(newCandidate(cfs, f, true), source.SyntaxOf(f)); err != nil || m == Matched {
				add(f)
				continue
			}
			passed = append(passed, f)
		}
	}
	return units, passed
}

// chartHolding is the Helm chart directory p belongs to: the nearest
// directory at or above p's that has a Chart.yaml, within maxUnitDepth
// levels and never above the working directory for a relative path.
func chartHolding(p string) (string, bool) {
	if filepath.Ext(p) == ".tgz" {
		return "", false
	}
	d := filepath.Dir(p)
	for range maxUnitDepth {
		if info, err := os.Stat(filepath.Join(d, "Chart.yaml")); err == nil && !info.IsDir() {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d || d == "." {
			return "", false
		}
		d = parent
	}
	return "", false
}

// siblings are the files of p's directory (not below it) that belong with
// a file of kind: compose files for a compose file, manifests and compose
// files for a manifest. p itself is always among them.
func siblings(cfs *confined.FS, p string, kind Kind) []string {
	dir := filepath.Dir(p)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []string{p}
	}
	want := []Kind{KindCompose}
	if kind == KindKubernetes {
		want = append(want, KindKubernetes)
	}
	out := []string{p}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		sib := filepath.Join(dir, e.Name())
		if sib == filepath.Clean(p) {
			continue
		}
		if k, ok, err := classify(cfs, sib, false); err == nil && ok && slices.Contains(want, k) {
			out = append(out, sib)
		}
	}
	sort.Strings(out[1:])
	return out
}
