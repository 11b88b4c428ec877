package helm

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// notesSuffix names the file Helm renders for `helm install` to print, which
// is no manifest (pkg/action/action.go, renderResources).
const notesSuffix = "NOTES.txt"

// rendering is one release, rendered with its real values, with what is
// needed to trace it back.
type rendering struct {
	rel Release
	l   *loaded
	// nsGiven is set when the release names its namespace, where helm
	// installs every object that names none.
	nsGiven bool
	// top is the render context (.Release, .Capabilities, .Chart) whose
	// "Values" each render replaces.
	top chartutil.Values
	// values are the coalesced values, never handed to a template (a
	// template may change the maps it gets with set/unset).
	values map[string]any
	docs   []spans // user values documents, in order
	sets   []setOrigin
	// files are the rendered templates (NOTES.txt removed), by engine name.
	files    map[string]string
	manifest string
	// unknown maps each placeholder put in for a value that is not known
	// statically to the text the user wrote, and alt to a second
	// placeholder, to tell what depends on it.
	unknown map[string]string
	alt     map[string]string
	// guard is the budget of the plain render (guard.go).
	guard *guard
}

type setOrigin struct {
	paths map[string]bool
	step  deploy.Step
}

func render(r Release) (*rendering, []*diag.Diagnostic) {
	if r.Name == "" {
		r.Name = "release-name"
	}
	nsGiven := r.Namespace != ""
	if !nsGiven {
		r.Namespace = "default"
	}
	l, lerr := loadChart(r.Chart, r.Files)
	if lerr != nil {
		return nil, []*diag.Diagnostic{lerr}
	}
	rr := &rendering{rel: r, l: l, nsGiven: nsGiven, unknown: map[string]string{}, alt: map[string]string{}}
	if e := rr.installable(); e != nil {
		return nil, []*diag.Diagnostic{e}
	}
	// A dependency Chart.yaml names but charts/ lacks (helm dependency
	// build not run, as in most repositories) is reported, and the chart
	// is rendered without it: the chart's own templates, the ones that
	// launch its engine, do not depend on a subchart being present.
	missingDeps := rr.withoutMissingDependencies()
	c := rr.l.chart

	vals := map[string]any{}
	for _, v := range r.Values {
		m, idx, e := readValues(v, r.Files)
		if e != nil {
			return nil, []*diag.Diagnostic{e}
		}
		if v.Unknown != nil {
			rr.markUnknown(m, v.Unknown)
		}
		vals = mergeValues(vals, m)
		rr.docs = append(rr.docs, idx)
	}
	for _, s := range r.Set {
		paths, err := applySet(s, vals)
		if err != nil {
			// A command-line assignment has no file to point at: the error
			// names it and has no span, rather than a file named after it.
			what := "--set"
			if s.Span.File == "" {
				what = s.flag()
			}
			return nil, []*diag.Diagnostic{diag.Errorf(s.Span, "%s %s: %v", what, s.Expr, err)}
		}
		so := setOrigin{paths: map[string]bool{}, step: s.step()}
		for _, p := range paths {
			so.paths[p.key()] = true
			if s.Unknown {
				vals = with(vals, p, rr.placeholder(s.Expr)).(map[string]any)
			}
		}
		rr.sets = append(rr.sets, so)
	}

	if err := safeProcessDependencies(c, vals); err != nil {
		return nil, []*diag.Diagnostic{rr.chartError(err.Error())}
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if kv := c.Metadata.KubeVersion; kv != "" && !chartutil.IsCompatibleRange(kv, caps.KubeVersion.String()) {
		return nil, []*diag.Diagnostic{rr.chartFieldError("kubeVersion",
			fmt.Sprintf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", kv, caps.KubeVersion.String()))}
	}
	opts := chartutil.ReleaseOptions{Name: r.Name, Namespace: r.Namespace, Revision: 1, IsInstall: true}
	// The schema is not checked: ValidateAgainstSchema follows $refs over
	// HTTP, and kvlint never touches the network.
	top, err := chartutil.ToRenderValuesWithSchemaValidation(c, vals, opts, caps, true)
	if err != nil {
		return nil, []*diag.Diagnostic{rr.chartError(err.Error())}
	}
	rr.top = top
	if v, ok := top["Values"].(chartutil.Values); ok {
		rr.values = v
	} else if v, ok := top["Values"].(map[string]any); ok {
		rr.values = v
	}

	// The plain render runs guarded (guard.go): a template that builds
	// output without end stops at its own line, not at the worker's limit.
	rr.guard = newGuard()
	files, err := rr.renderGuarded(c, rr.values)
	if err != nil && !guardErrRE.MatchString(err.Error()) {
		// Helm names the place of any other error in the instrumented
		// copy: the chart as written, rendered again, fails at the same
		// node (the guards changed nothing before it) and names it there.
		plain, perr := rr.renderWith(c, rr.values)
		files, err = plain, perr
	}
	if err != nil {
		return nil, []*diag.Diagnostic{rr.renderError(err)}
	}
	for k := range files {
		if strings.HasSuffix(k, notesSuffix) {
			delete(files, k)
		}
	}
	rr.files = files
	manifest, merr := assemble(files)
	rr.manifest = manifest
	var errs []*diag.Diagnostic
	if missingDeps != nil {
		errs = append(errs, missingDeps)
	}
	if merr != nil {
		errs = append(errs, rr.manifestError(merr))
	}
	return rr, errs
}

// installable mirrors helm's checks before rendering: only application
// charts install (cmd/helm/install.go, checkIfInstallable), and every
// dependency in Chart.yaml must be in charts/ (action.CheckDependencies).
func (rr *rendering) installable() *diag.Diagnostic {
	c := rr.l.chart
	switch c.Metadata.Type {
	case "", "application":
	default:
		return rr.chartFieldError("type", fmt.Sprintf("%s charts are not installable", c.Metadata.Type))
	}
	return nil
}

// withoutMissingDependencies drops from the chart's metadata the
// dependencies that are not in charts/, which helm install and template
// refuse (action.CheckDependencies), and returns the error that says so;
// nil when every dependency is there. The chart is copied, not changed.
func (rr *rendering) withoutMissingDependencies() *diag.Diagnostic {
	c := rr.l.chart
	var missing []string
	var kept []*chart.Dependency
	for _, d := range c.Metadata.Dependencies {
		if d == nil {
			continue
		}
		found := false
		for _, sub := range c.Dependencies() {
			if sub.Name() == d.Name {
				found = true
			}
		}
		if found {
			kept = append(kept, d)
		} else {
			missing = append(missing, d.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	e := rr.chartFieldError("dependencies", "found in Chart.yaml, but missing in charts/ directory: "+
		strings.Join(missing, ", ")+" (kvlint renders what is on disk and never downloads a chart): the chart was rendered without them, so the servers they deploy were not checked")
	cp := *c
	md := *c.Metadata
	md.Dependencies = kept
	cp.Metadata = &md
	l := *rr.l
	l.chart = &cp
	rr.l = &l
	return e
}

func safeProcessDependencies(c *chart.Chart, vals map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("processing dependencies failed: %v", r)
		}
	}()
	return chartutil.ProcessDependenciesWithMerge(c, vals)
}

// renderWith renders chart c (the chart or a traced copy) with values.
// The zero Engine has no client: lookup returns an empty map, and
// getHostByName returns "" (pkg/engine/engine.go, initFunMap).
func (rr *rendering) renderWith(c *chart.Chart, values map[string]any) (map[string]string, error) {
	return rr.renderChart(c, values, func(c *chart.Chart, top chartutil.Values) (map[string]string, error) {
		var e engine.Engine
		return e.Render(c, top)
	})
}

// renderGuarded is renderWith for the copy of c the guard instruments,
// with the guard answering lookup.
func (rr *rendering) renderGuarded(c *chart.Chart, values map[string]any) (map[string]string, error) {
	return rr.renderChart(rr.guard.instrument(c), values, func(c *chart.Chart, top chartutil.Values) (map[string]string, error) {
		return engine.RenderWithClientProvider(c, top, rr.guard)
	})
}

// renderChart gives render the release's top-level values with a copy of
// values (templates may change the maps they are given) and turns a panic
// in a template function into an error.
func (rr *rendering) renderChart(c *chart.Chart, values map[string]any, render func(*chart.Chart, chartutil.Values) (map[string]string, error)) (files map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	top := chartutil.Values{}
	for k, v := range rr.top {
		top[k] = v
	}
	top["Values"] = chartutil.Values(deepCopy(values).(map[string]any))
	return render(c, top)
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case chartutil.Values:
		return deepCopy(map[string]any(t))
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// assemble prints the rendered files the way `helm template` does
// (cmd/helm/template.go over pkg/action/action.go renderResources): the
// manifests in install order, then the hooks, each "---\n# Source: NAME\n".
func assemble(files map[string]string) (string, error) {
	hooks, manifests, err := safeSort(files)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	out := strings.TrimSpace(b.String()) + "\n"
	for _, h := range hooks {
		out += fmt.Sprintf("---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return out, nil
}

func safeSort(files map[string]string) (hooks []*hookDoc, manifests []releaseutil.Manifest, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sorting manifests failed: %v", r)
		}
	}()
	hs, ms, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	for _, h := range hs {
		hooks = append(hooks, &hookDoc{Path: h.Path, Manifest: h.Manifest})
	}
	return hooks, ms, err
}

type hookDoc struct{ Path, Manifest string }

// markUnknown replaces the string leaves of a values document that are not
// known statically by placeholders.
func (rr *rendering) markUnknown(m map[string]any, unknown func(string) bool) {
	var ps []vpath
	var raws []string
	leaves(m, nil, func(p vpath, v any) {
		if s, ok := v.(string); ok && unknown(s) {
			ps = append(ps, p)
			raws = append(raws, s)
		}
	})
	for i, p := range ps {
		ph := rr.placeholder(raws[i])
		if parent, ok := get(m, p[:len(p)-1]); ok {
			setIn(parent, p[len(p)-1], ph)
		}
	}
}

// placeholder returns a fresh token standing for an unknown value.
func (rr *rendering) placeholder(raw string) string {
	n := len(rr.unknown) + 1
	ph := "kvlintunknown" + strconv.Itoa(n) + "z"
	rr.unknown[ph] = raw
	// The second render gives each a number, so a template that converts
	// it (int, add) still prints something different.
	rr.alt[ph] = strconv.Itoa(7919 + 13*n)
	return ph
}

func setIn(parent any, step string, v any) {
	switch t := parent.(type) {
	case map[string]any:
		t[strings.TrimPrefix(step, ".")] = v
	case []any:
		if i, err := strconv.Atoi(strings.TrimPrefix(step, "#")); err == nil && i >= 0 && i < len(t) {
			t[i] = v
		}
	}
}

// flag is the option the assignment is given with.
func (s Set) flag() string {
	if s.String {
		return "--set-string"
	}
	return "--set"
}

// step is the assignment as a step of a value's origin: its place in a
// file, or, from a command line, its text.
func (s Set) step() deploy.Step {
	if s.Span.File != "" {
		return deploy.At(deploy.StepSet, s.Span)
	}
	return deploy.Step{Kind: deploy.StepSet, Text: s.flag() + " " + s.Expr}
}

// origin returns where the value at p (a path in the coalesced values) was
// last set: a --set, a values document (the last that sets it), the chart's
// values.yaml, or a subchart's. Globals reach a subchart from its parents,
// whose settings win (chartutil coalesceGlobals).
func (rr *rendering) origin(p vpath) (deploy.Step, bool) {
	if st, ok := rr.userOrigin(p); ok {
		return st, true
	}
	c := rr.l.chart
	chain := []*chart.Chart{c}
	for i := 0; ; {
		if sp, ok := rr.l.valueSpans[c.ChartFullPath()][p[i:].key()]; ok {
			return deploy.At(deploy.StepValuesFile, sp), true
		}
		if i >= len(p) || !strings.HasPrefix(p[i], ".") {
			return deploy.Step{}, false
		}
		var next *chart.Chart
		for _, d := range c.Dependencies() {
			if d.Name() == p[i][1:] {
				next = d
			}
		}
		if next == nil {
			return deploy.Step{}, false
		}
		c, i = next, i+1
		if i < len(p) && p[i] == ".global" {
			g := append(vpath{".global"}, p[i+1:]...)
			if st, ok := rr.userOrigin(g); ok {
				return st, true
			}
			for _, anc := range chain {
				if sp, ok := rr.l.valueSpans[anc.ChartFullPath()][g.key()]; ok {
					return deploy.At(deploy.StepValuesFile, sp), true
				}
			}
		}
		chain = append(chain, c)
	}
}

func (rr *rendering) userOrigin(p vpath) (deploy.Step, bool) {
	k := p.key()
	for i := len(rr.sets) - 1; i >= 0; i-- {
		if rr.sets[i].paths[k] {
			// A --set written nowhere (no span) still outranks the
			// files: the value is then left at the template.
			return rr.sets[i].step, true
		}
	}
	for i := len(rr.docs) - 1; i >= 0; i-- {
		if sp, ok := rr.docs[i][k]; ok {
			return deploy.At(deploy.StepValuesFile, sp), true
		}
	}
	return deploy.Step{}, false
}

// templates returns every template's source by engine name.
func templates(c *chart.Chart) map[string]string {
	out := map[string]string{}
	var walk func(c *chart.Chart)
	walk = func(c *chart.Chart) {
		for _, t := range c.Templates {
			if t != nil {
				out[path.Join(c.ChartFullPath(), t.Name)] = string(t.Data)
			}
		}
		for _, d := range c.Dependencies() {
			walk(d)
		}
	}
	walk(c)
	return out
}
