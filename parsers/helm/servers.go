package helm

import (
	"maps"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/k8s"
)

// manifestObjects parses every rendered file as Kubernetes YAML and maps
// what it finds back to the templates and values.
func (rr *rendering) manifestObjects(read engine.ReadFile) Manifest {
	type parsed struct {
		file     string
		servers  []*deploy.Server
		services []deploy.Service
		errs     []*diag.Diagnostic
	}
	var all []parsed
	var files, texts []string
	for _, f := range slices.Sorted(maps.Keys(rr.files)) {
		if strings.TrimSpace(rr.files[f]) == "" {
			continue
		}
		m := k8s.ParseManifestWith(f, []byte(rr.files[f]), read, rr.rel.Images)
		s, e := m.Servers, m.Errors
		if len(s) == 0 && len(e) == 0 && len(m.Services) == 0 {
			continue
		}
		all = append(all, parsed{f, s, m.Services, e})
		files = append(files, f)
		for _, srv := range s {
			texts = append(texts, serverTexts(srv)...)
		}
	}
	if len(all) == 0 {
		return Manifest{}
	}
	pv := rr.provenance(files, texts)
	if len(rr.unknown) > 0 {
		var ss []*deploy.Server
		var sf []string
		for _, p := range all {
			for _, s := range p.servers {
				ss = append(ss, s)
				sf = append(sf, p.file)
			}
		}
		rr.taint(ss, sf, pv, read)
	}
	var out Manifest
	for _, p := range all {
		for _, s := range p.servers {
			pv.mapServer(p.file, s)
			if rr.nsGiven && s.Namespace == "" {
				s.Namespace = rr.rel.Namespace
			}
			if len(rr.unknown) > 0 {
				rr.restore(s)
			}
			out.Servers = append(out.Servers, s)
		}
		for _, svc := range p.services {
			svc.Span = pv.spanOnly(p.file, svc.Span, svc.Name)
			if rr.nsGiven && svc.Namespace == "" {
				svc.Namespace = rr.rel.Namespace
			}
			out.Services = append(out.Services, svc)
		}
		for _, e := range p.errs {
			if e.Span.File == p.file {
				e.Span = pv.mapSpan(p.file, e.Span, "", "").span
			}
			out.Errors = append(out.Errors, e)
		}
	}
	return out
}

// serverTexts are the texts of a server's values, to choose which values
// leaves are worth tracing.
func serverTexts(s *deploy.Server) []string {
	var out []string
	for _, v := range s.Values() {
		if v.Raw != "" {
			out = append(out, v.Raw)
		}
	}
	return out
}

// mapServer rewrites every span of a server found in rendered file f.
func (pv *provenance) mapServer(f string, s *deploy.Server) {
	s.Source = Source
	s.Span = pv.spanOnly(f, s.Span, "")
	for field, v := range s.Values() {
		pv.mapValue(f, v, keyHint(field))
	}
	for i := range s.FlagIssues {
		is := &s.FlagIssues[i]
		is.Span = pv.spanOnly(f, is.Span, is.Written)
		// The occurrence's words are values like any other: a fix that
		// deletes them must find them where they are written.
		for j := range is.Words {
			pv.mapValue(f, &is.Words[j], is.Flag)
		}
	}
}

// keyHint is the name a values key holding the field would have, for
// linking a value a template computed on to its leaf (see inferLeaf): the
// flag, "--model-path" for the model and "replicas" for the replicas.
func keyHint(f deploy.Field) string {
	switch f.Kind {
	case deploy.FieldArg:
		return f.Flag
	case deploy.FieldModel:
		return "--model-path"
	case deploy.FieldReplicas:
		return "replicas"
	}
	return ""
}

// spanOnly maps a span that names text (a flag, a command) rather than a
// value: the template text or action that wrote it.
func (pv *provenance) spanOnly(f string, sp deploy.Span, raw string) deploy.Span {
	if sp.File != f {
		return sp
	}
	return pv.mapSpan(f, sp, raw, "").span
}

// mapValue maps a value's span and origin. A value printed from a values
// leaf is spanned at the leaf, with the actions that printed it in its
// origin. A step the rendered file holds (a $(VAR) definition) keeps its
// kind at the template line that wrote it, and the actions around that.
func (pv *provenance) mapValue(f string, v *deploy.Value, flag string) {
	if !v.IsSet() {
		return
	}
	var origin deploy.Origin
	if v.Span.File == f {
		m := pv.mapSpan(f, v.Span, v.Raw, flag)
		v.Span = m.span
		origin = append(origin, m.origin...)
	}
	for _, st := range v.Origin {
		if st.Span.File != f {
			origin = append(origin, st)
			continue
		}
		m := pv.mapSpan(f, st.Span, "", "")
		origin = append(origin, deploy.Step{Kind: st.Kind, Span: m.span, Inferred: st.Inferred})
		origin = append(origin, m.origin...)
	}
	v.Origin = dedupSteps(origin, v.Span)
}

// dedupSteps drops the steps that name no place and no text, and every
// step at a place named before (or at except, the value's own span).
func dedupSteps(list deploy.Origin, except deploy.Span) deploy.Origin {
	type place struct {
		span deploy.Span
		text string
	}
	var out deploy.Origin
	seen := map[place]bool{{span: except}: true}
	for _, st := range list {
		p := place{st.Span, st.Text}
		if st.Span.IsZero() && st.Span.File == "" && st.Text == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, st)
	}
	return out
}

// taint marks unknown every value that depends on a value not known
// statically: one that still holds a placeholder, or that changes when the
// placeholders change (a template that converts or compares them). Spans
// are still those of the rendered files. Without a second render to compare
// with, everything an action printed is unknown.
func (rr *rendering) taint(servers []*deploy.Server, files []string, pv *provenance, read engine.ReadFile) {
	alt := deepCopy(rr.values)
	leaves(rr.values, nil, func(p vpath, v any) {
		if s, ok := v.(string); ok {
			if a, ok := rr.alt[s]; ok {
				alt = with(alt, p, a)
			}
		}
	})
	var other []*deploy.Server
	altOK := false
	if out, err := rr.renderWith(rr.l.chart, alt.(map[string]any)); err == nil {
		altOK = true
		for _, f := range slices.Sorted(maps.Keys(out)) {
			if strings.HasSuffix(f, notesSuffix) || strings.TrimSpace(out[f]) == "" {
				continue
			}
			s := k8s.ParseManifestWith(f, []byte(out[f]), read, rr.rel.Images).Servers
			other = append(other, s...)
		}
	}
	same := altOK && len(other) == len(servers)
	for i, s := range servers {
		var o *deploy.Server
		if same && other[i].Name == s.Name {
			o = other[i]
		}
		f := files[i]
		check := func(v *deploy.Value, w *deploy.Value) {
			if !v.IsSet() || rr.holdsPlaceholder(v) {
				return
			}
			if o != nil {
				if w == nil || w.Raw != v.Raw {
					v.Known = false
				}
				return
			}
			if v.Span.File != f || pv.mapSpan(f, v.Span, v.Raw, "").action {
				v.Known = false
			}
		}
		for field, v := range s.Values() {
			var w *deploy.Value
			if o != nil {
				if x, ok := o.Lookup(field); ok {
					w = &x
				}
			}
			check(v, w)
		}
	}
}

// holdsPlaceholder marks unknown a value that holds a placeholder, and
// reports whether it does.
func (rr *rendering) holdsPlaceholder(v *deploy.Value) bool {
	for ph := range rr.unknown {
		if strings.Contains(strings.ToLower(v.Raw), ph) {
			v.Known = false
			return true
		}
	}
	return false
}

// restore puts the user's text back where a placeholder stood, once the
// values are traced (the trace matches the placeholder's text).
func (rr *rendering) restore(s *deploy.Server) {
	fix := func(v *deploy.Value) {
		for ph, raw := range rr.unknown {
			if strings.Contains(v.Raw, ph) {
				v.Raw = strings.ReplaceAll(v.Raw, ph, raw)
				v.Known = false
			}
		}
	}
	for _, v := range s.Values() {
		fix(v)
	}
}
