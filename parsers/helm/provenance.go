package helm

import (
	"sort"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/kvlint/kvlint/deploy"
)

// maxLeafRenders bounds the renders spent linking values to the actions
// that print them; past it, values are linked by equal text and key name.
const maxLeafRenders = 400

// tracedChart is the chart instrumented in one mode, with its render.
type tracedChart struct {
	tr  *tracer
	c   *chart.Chart
	out map[string]traced
	ok  bool
}

// fileTrace is the trace chosen for one rendered file.
type fileTrace struct {
	tc *tracedChart
	m  mode
	t  traced
	al *alignment
}

// leafLink says that a values leaf is printed by one execution of an action.
type leafLink struct {
	p    vpath
	text string
	set  deploy.Step // where the leaf was set
	at   int         // the marker's offset in the action's output, to order leaves
}

type linkKey struct {
	file string
	m    mode
	node int
	k    int
}

type leafInfo struct {
	p    vpath
	text string
	set  deploy.Step // where the leaf was set
	ok   bool        // set known
}

// provenance maps spans in rendered files back to templates and values.
type provenance struct {
	rr      *rendering
	charts  map[mode]*tracedChart
	traces  map[string]*fileTrace
	links   map[linkKey][]leafLink
	leaves  []leafInfo
	srcs    map[string]string // template sources by engine name
	lines   map[string]*lines // of templates and rendered files, by name
	outputs map[string]*lines // rendered files
}

func (rr *rendering) provenance(files []string, texts []string) *provenance {
	pv := &provenance{
		rr: rr, charts: map[mode]*tracedChart{}, traces: map[string]*fileTrace{},
		links: map[linkKey][]leafLink{}, srcs: templates(rr.l.chart),
		lines: map[string]*lines{}, outputs: map[string]*lines{},
	}
	for _, f := range files {
		pv.outputs[f] = newLines(rr.files[f])
	}
	for _, out := range rr.files {
		if hasMarks(out) {
			return pv // the chart writes the trace's own characters
		}
	}
	// Trace every file with define blocks bracketed; a file whose traced
	// render differs (an include compared as a string) is traced again
	// with only its own tree bracketed, and keeps the closer trace.
	full := pv.traceChart(modeFull)
	var top *tracedChart
	for _, f := range files {
		real := rr.files[f]
		var best *fileTrace
		if full.ok {
			if t, ok := full.out[f]; ok {
				best = &fileTrace{tc: full, m: modeFull, t: t, al: align(real, t.text)}
			}
		}
		if best == nil || !best.al.same {
			if top == nil {
				top = pv.traceChart(modeTop)
			}
			if t, ok := top.out[f]; top.ok && ok {
				cand := &fileTrace{tc: top, m: modeTop, t: t, al: align(real, t.text)}
				if best == nil || cand.al.matched > best.al.matched {
					best = cand
				}
			}
		}
		if best != nil {
			pv.traces[f] = best
		}
	}
	pv.linkLeaves(texts)
	return pv
}

func (pv *provenance) traceChart(m mode) *tracedChart {
	tc := &tracedChart{tr: newTracer()}
	tc.c = tc.tr.instrument(pv.rr.l.chart, m)
	out, err := pv.rr.renderWith(tc.c, pv.rr.values)
	if err != nil {
		pv.charts[m] = tc
		return tc
	}
	tc.out = map[string]traced{}
	for f, s := range out {
		tc.out[f] = strip(s)
	}
	tc.ok = true
	pv.charts[m] = tc
	return tc
}

// linkLeaves finds, for each values leaf whose text appears in a server's
// values, the action executions that print it: the chart is rendered with
// the leaf replaced by a marker, and wherever the marker comes out, the
// innermost action around it printed the leaf.
func (pv *provenance) linkLeaves(texts []string) {
	leaves(pv.rr.values, nil, func(p vpath, v any) {
		text, ok := scalarText(v)
		if !ok || text == "" {
			return
		}
		set, known := pv.rr.origin(p)
		pv.leaves = append(pv.leaves, leafInfo{p: p, text: text, set: set, ok: known})
	})
	modes := map[mode]bool{}
	for _, ft := range pv.traces {
		modes[ft.m] = true
	}
	renders := 0
	for i, lf := range pv.leaves {
		if !lf.ok || !appearsIn(lf.text, texts) {
			continue
		}
		for _, m := range []mode{modeFull, modeTop} {
			tc := pv.charts[m]
			if !modes[m] || tc == nil || !tc.ok || renders >= maxLeafRenders {
				continue
			}
			renders++
			marker := "kvlintleaf" + strconv.Itoa(i) + "z"
			out, err := pv.rr.renderWith(tc.c, with(pv.rr.values, lf.p, marker).(map[string]any))
			if err != nil {
				continue
			}
			for f, s := range out {
				if ft := pv.traces[f]; ft == nil || ft.m != m {
					continue
				}
				t := strip(s)
				lower := strings.ToLower(t.text)
				for from := 0; ; {
					j := strings.Index(lower[from:], marker)
					if j < 0 {
						break
					}
					at := from + j
					from = at + len(marker)
					ri := t.innermost(at)
					for ri >= 0 && !tc.tr.nodes[t.regions[ri].node].action {
						ri = t.regions[ri].parent
					}
					if ri < 0 {
						continue
					}
					r := t.regions[ri]
					key := linkKey{file: f, m: m, node: r.node, k: r.k}
					pv.links[key] = append(pv.links[key], leafLink{p: lf.p, text: lf.text, set: lf.set, at: at - r.start})
				}
			}
		}
	}
}

// appearsIn reports whether text is one of texts or a word in one of them.
func appearsIn(text string, texts []string) bool {
	for _, t := range texts {
		if t == text || containsWord(t, text) {
			return true
		}
	}
	return false
}

// containsWord reports whether w occurs in s with no letter or digit
// right before or after it.
func containsWord(s, w string) bool {
	for from := 0; from <= len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		a, b := from+i, from+i+len(w)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return true
		}
		from = a + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

// mapped is where a rendered span came from: the place to report, and the
// rest of the chain (template actions and include sites, or the --set).
type mapped struct {
	span   deploy.Span
	origin deploy.Origin
	action bool // printed by an action (not literal template text)
	ok     bool
}

// mapSpan maps a span in rendered file f to the template text that wrote it,
// or, for text an action printed, to the values leaf it printed (raw is the
// value's text; flag names the flag it is the value of, for the fallback).
func (pv *provenance) mapSpan(f string, sp deploy.Span, raw, flag string) mapped {
	ft := pv.traces[f]
	out := pv.outputs[f]
	fallback := mapped{span: deploy.Span{File: pv.rr.l.templateFile(f)}}
	if ft == nil || out == nil || sp.Line == 0 {
		return fallback
	}
	off := out.offset(sp.Line, sp.Col)
	end := out.offset(sp.EndLine, sp.EndCol)
	if off < 0 {
		return fallback
	}
	s := ft.al.toB(off)
	if s < 0 {
		return fallback
	}
	e := -1
	if end >= off {
		e = ft.al.toB(end)
	}
	ri := ft.t.innermost(s)
	if ri < 0 {
		return fallback
	}
	nodes := ft.tc.tr.nodes
	// The actions around the text, innermost first: the one that printed
	// it uses the value, the include sites around it pass it through.
	var actions deploy.Origin
	for x := ri; x >= 0; x = ft.t.regions[x].parent {
		if n := nodes[ft.t.regions[x].node]; n.action {
			kind := deploy.StepInclude
			if len(actions) == 0 && x == ri {
				kind = deploy.StepTemplate
			}
			actions = append(actions, deploy.At(kind, pv.nodeSpan(n, n.start, n.end)))
		}
	}
	r := ft.t.regions[ri]
	n := nodes[r.node]
	if !n.action {
		a := textSource(n, ft.t.text[r.start:r.end], s-r.start)
		b := a + max(0, len(raw))
		if e >= r.start && e <= r.end {
			b = textSource(n, ft.t.text[r.start:r.end], e-r.start)
		}
		if b < a {
			b = a
		}
		return mapped{span: pv.nodeSpan(n, a, b), origin: actions, ok: true}
	}
	res := mapped{span: actions[0].Span, origin: actions[1:], action: true, ok: true}
	if lf, ok := pv.leafFor(ft, f, r, s, raw); ok {
		return withOrigin(res, lf.set, actions, false)
	}
	if lf, ok := pv.inferLeaf(raw, flag); ok {
		return withOrigin(res, lf.set, actions, true)
	}
	return res
}

// withOrigin puts the line that set the value first and the actions that
// used it after it. A value from a command-line --set has no line to point
// at: the template action stays the span and the --set is named after it.
// inferred marks the link between the two as matched by key name and text.
func withOrigin(res mapped, set deploy.Step, actions deploy.Origin, inferred bool) mapped {
	if set.Span.Line == 0 {
		set.Inferred = inferred
		res.origin = append(append(deploy.Origin(nil), actions[1:]...), set)
		return res
	}
	res.span, res.origin = set.Span, append(deploy.Origin(nil), actions...)
	res.origin[0].Inferred = inferred
	return res
}

// leafFor picks the leaf an action execution printed at s: one whose text
// is the value; among several, the one printed in the same order.
func (pv *provenance) leafFor(ft *fileTrace, f string, r region, s int, raw string) (leafLink, bool) {
	links := pv.links[linkKey{file: f, m: ft.m, node: r.node, k: r.k}]
	regionText := ft.t.text[r.start:r.end]
	var exact, within []leafLink
	for _, lk := range links {
		// The plain render must print the leaf's text here: a marker that
		// moved (a leaf that changed control flow) proves nothing.
		if !strings.Contains(strings.ToLower(regionText), strings.ToLower(lk.text)) {
			continue
		}
		switch {
		case lk.text == raw:
			exact = append(exact, lk)
		case containsWord(raw, lk.text) || strings.Contains(raw, lk.text):
			within = append(within, lk)
		}
	}
	cands := exact
	if len(cands) == 0 {
		cands = within
	}
	switch len(cands) {
	case 0:
		return leafLink{}, false
	case 1:
		return cands[0], true
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].at < cands[j].at })
	// The value is the n-th occurrence of its text in what the action
	// printed; the n-th leaf by marker position printed it.
	n := 0
	rel := s - r.start
	for from := 0; from < rel; {
		i := strings.Index(regionText[from:], cands[0].text)
		if i < 0 || from+i >= rel {
			break
		}
		n++
		from += i + 1
	}
	if n >= len(cands) {
		n = len(cands) - 1
	}
	return cands[n], true
}

// inferLeaf is the fallback when no marker came through (the template
// computed on the value): the only leaf whose key names the flag and whose
// text equals the value.
func (pv *provenance) inferLeaf(raw, flag string) (leafInfo, bool) {
	if flag == "" || raw == "" {
		return leafInfo{}, false
	}
	want := normalizeKey(flag)
	var found []leafInfo
	for _, lf := range pv.leaves {
		if lf.ok && lf.text == raw && normalizeKey(lf.p.last()) == want {
			found = append(found, lf)
		}
	}
	if len(found) != 1 {
		return leafInfo{}, false
	}
	return found[0], true
}

// normalizeKey folds a flag (--max-total-tokens) and a values key
// (maxTotalTokens, max_total_tokens) to one form.
func normalizeKey(s string) string {
	s = strings.TrimLeft(s, "-")
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c != '-' && c != '_' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// nodeSpan spans bytes [a, b) of a traced node's template.
func (pv *provenance) nodeSpan(n tnode, a, b int) deploy.Span {
	ln, ok := pv.lines[n.tmpl]
	if !ok {
		ln = newLines(pv.srcs[n.tmpl])
		pv.lines[n.tmpl] = ln
	}
	return ln.span(pv.rr.l.templateFile(n.tmpl), a, b)
}

// textSource maps an offset into what a text node wrote to the template
// source. The output may have been indented by nindent/indent or trimmed;
// lines are matched by their common ending.
func textSource(n tnode, out string, rel int) int {
	if out == n.text {
		return n.start + rel
	}
	ol := strings.Split(out, "\n")
	sl := strings.Split(n.text, "\n")
	if len(ol) != len(sl) {
		return n.start
	}
	line, col, pos := 0, rel, 0
	for line < len(ol)-1 && rel > pos+len(ol[line]) {
		pos += len(ol[line]) + 1
		line++
	}
	col = rel - pos
	srcStart := 0
	for i := 0; i < line; i++ {
		srcStart += len(sl[i]) + 1
	}
	o, s := ol[line], sl[line]
	switch {
	case strings.HasSuffix(o, s):
		col -= len(o) - len(s)
	case strings.HasPrefix(o, s):
	default:
		return n.start + srcStart
	}
	col = max(0, min(col, len(s)))
	return n.start + srcStart + col
}
