package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

// GroupBy is how the text report groups its findings.
type GroupBy string

const (
	GroupByDeployment GroupBy = "deployment" // the default
	GroupByRule       GroupBy = "rule"
	GroupByFile       GroupBy = "file"
)

// GroupBys lists the groupings --group-by accepts.
func GroupBys() []GroupBy { return []GroupBy{GroupByDeployment, GroupByRule, GroupByFile} }

// TextOptions shape CheckText.
type TextOptions struct {
	// Rules are the run's rules: their metadata says which findings stop a
	// server from starting (rules.Rule.StopsStart) and which rest on an
	// assumed tenancy (rules.Rule.Assumes).
	Rules []rules.Rule
	// GroupBy groups the findings; "" is GroupByDeployment.
	GroupBy GroupBy
}

// The summary fits on one screen whatever the size of the run: at most
// summaryRules rule lines and summaryStops servers that cannot start, no
// line wider than summaryWidth columns.
const (
	summaryWidth = 100
	summaryRules = 20
	summaryStops = 10
)

// triage is a run's reported findings ordered for a reader: folded where
// one assumption repeats, most severe first.
type triage struct {
	res     *analysis.Result
	rules   map[string]rules.Rule
	groupBy GroupBy
	// deployment is the index in res.Deployments of each server's
	// deployment, by server index.
	deployment map[int]int
	entries    []entry // in findingOrder of their first finding
	// assumed counts the findings that rest on an undeclared tenancy, and
	// the distinct deployments and servers they are on: several rules and,
	// grouped by file, several folds can cover one server.
	assumed struct {
		deployments, servers map[int]bool
		findings             int
	}
}

// entry is one item of the report: a finding, or, when fold is set, the
// first of the findings one rule makes in one deployment on an assumption
// the configuration could settle, standing for them all.
type entry struct {
	f    *diag.Diagnostic
	fold *fold
}

// foldFindings is how many findings a fold stands for; 0 for a finding.
func (e entry) foldFindings() int {
	if e.fold == nil {
		return 0
	}
	return e.fold.findings
}

// fold is what an entry stands for.
type fold struct {
	deployment int // index in res.Deployments
	findings   int
	servers    int
}

func newTriage(res *analysis.Result, opt TextOptions) *triage {
	t := &triage{res: res, rules: map[string]rules.Rule{}, groupBy: cmp.Or(opt.GroupBy, GroupByDeployment), deployment: map[int]int{}}
	for _, r := range opt.Rules {
		t.rules[r.ID] = r
	}
	index := serverIndex(res)
	for di, d := range res.Deployments {
		for _, s := range d.Servers {
			if i, ok := index[s]; ok {
				t.deployment[i] = di
			}
		}
	}
	// A fold stays inside its group: under --group-by file, one per file
	// of a deployment.
	type foldKey struct {
		deployment int
		rule, file string
	}
	folds := map[foldKey]*fold{}
	foldServers := map[foldKey]map[int]bool{}
	t.assumed.deployments, t.assumed.servers = map[int]bool{}, map[int]bool{}
	var reported []*diag.Diagnostic
	for i := range res.Findings {
		if f := &res.Findings[i]; f.Suppression == nil {
			reported = append(reported, f)
		}
	}
	slices.SortStableFunc(reported, findingOrder)
	for _, f := range reported {
		di, ok := t.assumedIn(f)
		if !ok {
			t.entries = append(t.entries, entry{f: f})
			continue
		}
		k := foldKey{deployment: di, rule: f.Rule}
		if t.groupBy == GroupByFile {
			k.file = f.Span.File
		}
		fd := folds[k]
		if fd == nil {
			// The first in findingOrder: the most severe, then the first
			// in the files, shown whole with its position.
			fd = &fold{deployment: di}
			folds[k] = fd
			foldServers[k] = map[int]bool{}
			t.entries = append(t.entries, entry{f: f, fold: fd})
		}
		fd.findings++
		foldServers[k][f.Server] = true
		fd.servers = len(foldServers[k])
		t.assumed.deployments[di] = true
		t.assumed.servers[f.Server] = true
		t.assumed.findings++
	}
	return t
}

// assumedIn reports whether f rests on its deployment's tenancy, which the
// configuration does not declare, and that deployment's index.
func (t *triage) assumedIn(f *diag.Diagnostic) (int, bool) {
	if t.rules[f.Rule].Assumes != rules.AssumesTenancy || f.Server < 0 {
		return 0, false
	}
	di, ok := t.deployment[f.Server]
	if !ok || t.res.Deployments[di].TenancyDeclared {
		return 0, false
	}
	return di, true
}

// findingOrder is most severe first, then by place in the files.
func findingOrder(a, b *diag.Diagnostic) int {
	return cmp.Or(
		cmp.Compare(b.Level(), a.Level()),
		spanOrder(a.Span, b.Span),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
	)
}

func spanOrder(a, b deploy.Span) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// writeEntry writes an entry's finding and, for a fold, once, what it
// stands for and how to declare what kvlint assumed.
func (t *triage) writeEntry(w io.Writer, src excerpts, e entry) {
	writeFinding(w, src, t.res, e.f)
	if e.fold == nil {
		return
	}
	d := t.res.Deployments[e.fold.deployment]
	others := ""
	if n := e.fold.findings - 1; n > 0 {
		others = fmt.Sprintf(" (%d more %s not listed)", n, nouns(n, "finding"))
	}
	fmt.Fprintf(w, "    assumed: said once for %s of deployment %s%s, whose tenancy kvlint takes to be %s\n",
		plural(e.fold.servers, "server"), Clean(d.Name), others, d.Tenancy)
	// The keys config.Config reads: tenancy (every deployment) and
	// deployments.<name>.tenancy (one).
	fmt.Fprintf(w, "    declare it in .kvlint.yaml: \"tenancy: single\" for every deployment, or deployments: {%s: {tenancy: single}}\n",
		Clean(strconv.Quote(d.Name)))
}

// group is a heading and the entries under it.
type group struct {
	heading string
	top     diag.Severity
	entries []entry
	// deployment is the index in res.Deployments of a deployment's group;
	// -1 otherwise.
	deployment int
}

// groups splits the entries as t.groupBy says: each group keeps the
// entries' order, and the groups come most severe first, then by heading.
func (t *triage) groups() []group {
	var out []group
	at := map[string]int{}
	for _, e := range t.entries {
		key, heading, di := t.groupOf(e)
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, group{heading: heading, deployment: di})
		}
		out[i].entries = append(out[i].entries, e)
		out[i].top = max(out[i].top, e.f.Level())
	}
	for i := range out {
		g := &out[i]
		if g.deployment < 0 || t.groupBy != GroupByDeployment {
			// Findings, not entries: a fold counts every finding it
			// stands for.
			n := 0
			for _, e := range g.entries {
				n += max(1, e.foldFindings())
			}
			g.heading += " (" + plural(n, "finding") + ")"
		}
	}
	slices.SortStableFunc(out, func(a, b group) int {
		return cmp.Or(cmp.Compare(b.top, a.top), boolOrder(a.deployment < 0, b.deployment < 0), cmp.Compare(a.heading, b.heading))
	})
	return out
}

// nouns is noun, in the plural unless n is 1.
func nouns(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// boolOrder puts false before true.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// groupOf is the key and heading of e's group, and its deployment's index
// (-1 when the group is not a deployment).
func (t *triage) groupOf(e entry) (key, heading string, deployment int) {
	f := e.f
	switch t.groupBy {
	case GroupByRule:
		title := f.Title
		if r, ok := t.rules[f.Rule]; ok && title == "" {
			title = r.Title
		}
		return f.Rule, "rule " + f.Rule + ": " + title, -1
	case GroupByFile:
		return f.Span.File, "file " + position(deploy.Span{File: f.Span.File}), -1
	}
	if di, ok := t.deployment[f.Server]; ok && f.Server >= 0 {
		d := t.res.Deployments[di]
		return fmt.Sprintf("d%d", di), fmt.Sprintf("deployment %s: %s; %s", d.Name, composition(d), policy(d)), di
	}
	return "", "not in a deployment", -1
}

// writeOtherDeployments prints the line of each deployment that groups
// several servers or splits prefill from decode and has no group of its
// own, so the user sees what kvlint judged together, clean ones included.
func (t *triage) writeOtherDeployments(w io.Writer) {
	shown := map[int]bool{}
	if t.groupBy == GroupByDeployment {
		for _, e := range t.entries {
			if di, ok := t.deployment[e.f.Server]; ok && e.f.Server >= 0 {
				shown[di] = true
			}
		}
	}
	for di, d := range t.res.Deployments {
		if shown[di] || (len(d.Servers) < 2 && d.Mode != deploy.ModeDisaggregated) {
			continue
		}
		fmt.Fprintf(w, "deployment %s: %s; %s\n", Clean(d.Name), composition(d), policy(d))
	}
}

// TextSummary writes the summary CheckText leads with: the count of
// findings by severity, one line per rule with its findings by severity,
// the servers that cannot start (by the rules' metadata), and the
// assumptions said once per deployment. Nothing when there is no finding
// to report. It fits on one screen: at most 40 lines of at most 100
// columns, whatever the size of the run.
func TextSummary(w io.Writer, res *analysis.Result, opts ...TextOptions) error {
	var opt TextOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
	newTriage(res, opt).writeSummary(w)
	return nil
}

// writeSummary writes the summary and reports whether it wrote anything.
func (t *triage) writeSummary(w io.Writer) bool {
	if len(t.entries) == 0 {
		return false
	}
	head, tail := summaryParts(t.res)
	for _, line := range wrapParts(head, tail, summaryWidth) {
		fmt.Fprintln(w, line)
	}
	t.writeRuleCounts(w)
	t.writeStops(w)
	t.writeAssumed(w)
	return true
}

// wrapParts joins parts with ", " into lines no wider than width (a part
// wider than that alone on its line is clipped), the later lines indented.
func wrapParts(head string, tail []string, width int) []string {
	lines := []string{clip(head, width)}
	for _, p := range tail {
		last := &lines[len(lines)-1]
		if utf8.RuneCountInString(*last)+2+utf8.RuneCountInString(p)+1 <= width {
			*last += ", " + p
			continue
		}
		*last += ","
		lines = append(lines, clip("  "+p, width))
	}
	return lines
}

// clip cuts s to width columns (runes), ending it with "…" when cut.
func clip(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// clipLeft cuts s to width columns from the left, starting it with "…":
// for a path, whose end names the file.
func clipLeft(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n <= width {
		return s
	}
	r := []rune(s)
	return "…" + string(r[n-width+1:])
}

// ruleCount is one rule's reported findings by severity.
type ruleCount struct {
	id, title string
	total     int
	top       diag.Severity
	by        map[diag.Severity]int
}

func (t *triage) writeRuleCounts(w io.Writer) {
	at := map[string]*ruleCount{}
	var counts []*ruleCount
	for i := range t.res.Findings {
		f := &t.res.Findings[i]
		if f.Suppression != nil {
			continue
		}
		c := at[f.Rule]
		if c == nil {
			c = &ruleCount{id: f.Rule, title: f.Title, by: map[diag.Severity]int{}}
			if c.title == "" {
				c.title = t.rules[f.Rule].Title
			}
			at[f.Rule] = c
			counts = append(counts, c)
		}
		c.total++
		c.by[f.Level()]++
		c.top = max(c.top, f.Level())
	}
	slices.SortFunc(counts, func(a, b *ruleCount) int {
		return cmp.Or(cmp.Compare(b.top, a.top), cmp.Compare(b.total, a.total), cmp.Compare(a.id, b.id))
	})
	idw, sw := 0, 0
	sevs := make([]string, len(counts))
	for i, c := range counts {
		var parts []string
		for _, s := range slices.Backward(diag.Severities()) {
			if n := c.by[s]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		sevs[i] = strings.Join(parts, ", ")
		if i < summaryRules {
			idw = max(idw, utf8.RuneCountInString(Clean(c.id)))
			sw = max(sw, len(sevs[i]))
		}
	}
	for i, c := range counts {
		if i == summaryRules {
			fmt.Fprintf(w, "  and %d more %s: --group-by rule lists them\n", len(counts)-i, nouns(len(counts)-i, "rule"))
			break
		}
		line := fmt.Sprintf("  %-*s  %-*s  %s", idw, Clean(c.id), sw, sevs[i], Clean(c.title))
		fmt.Fprintln(w, clip(strings.TrimRight(line, " "), summaryWidth))
	}
}

// writeStops lists the servers that cannot start: each with its most
// severe finding whose rule's metadata says the server stops (then the
// first in the files).
func (t *triage) writeStops(w io.Writer) {
	first := map[int]*diag.Diagnostic{}
	var servers []int
	for i := range t.res.Findings {
		f := &t.res.Findings[i]
		r, ok := t.rules[f.Rule]
		if f.Suppression != nil || f.Server < 0 || !ok || !r.Stops(*f) {
			continue
		}
		if prev, seen := first[f.Server]; !seen {
			servers = append(servers, f.Server)
			first[f.Server] = f
		} else if findingOrder(f, prev) < 0 {
			first[f.Server] = f
		}
	}
	if len(servers) == 0 {
		return
	}
	slices.SortFunc(servers, func(a, b int) int { return findingOrder(first[a], first[b]) })
	fmt.Fprintf(w, "cannot start: %s\n", plural(len(servers), "server"))
	for i, s := range servers {
		if i == summaryStops {
			fmt.Fprintf(w, "  and %d more\n", len(servers)-i)
			break
		}
		f := first[s]
		rest := " " + Clean(f.Rule)
		if name := serverName(t.res, s); name != "" {
			rest += " [" + Clean(name) + "]"
		}
		rest = clip(rest, summaryWidth/2)
		pos := clipLeft(position(f.Span), summaryWidth-2-utf8.RuneCountInString(rest))
		fmt.Fprintf(w, "  %s%s\n", pos, rest)
	}
}

// writeAssumed says, on one line, how many deployments and servers carry
// findings that rest on an undeclared tenancy, and how to declare it.
func (t *triage) writeAssumed(w io.Writer) {
	a := t.assumed
	if a.findings == 0 {
		return
	}
	fmt.Fprintln(w, clip(fmt.Sprintf("assumed tenancy: %s, %s, %s; declare tenancy: in .kvlint.yaml",
		plural(len(a.deployments), "deployment"), plural(len(a.servers), "server"), plural(a.findings, "finding")), summaryWidth))
}
