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
		m := k8s.ParseManifest(f, []byte(rr.files[f]), read)
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
	add := func(v deploy.Value) {
		if v.Raw != "" {
			out = append(out, v.Raw)
		}
	}
	for _, v := range s.Args {
		add(v)
	}
	for _, v := range s.Positionals {
		add(v)
	}
	for _, v := range s.Opaque {
		add(v)
	}
	add(s.Model)
	add(s.GPU)
	add(s.GPUCount)
	add(s.Replicas)
	add(s.Image)
	return out
}

// mapServer rewrites every span of a server found in rendered file f.
func (pv *provenance) mapServer(f string, s *deploy.Server) {
	s.Source = Source
	s.Span = pv.spanOnly(f, s.Span, "")
	for name, v := range s.Args {
		pv.mapValue(f, &v, name)
		s.Args[name] = v
	}
	for i := range s.Positionals {
		pv.mapValue(f, &s.Positionals[i], "")
	}
	for i := range s.Opaque {
		pv.mapValue(f, &s.Opaque[i], "")
	}
	for i := range s.FlagIssues {
		s.FlagIssues[i].Span = pv.spanOnly(f, s.FlagIssues[i].Span, s.FlagIssues[i].Written)
	}
	pv.mapValue(f, &s.Model, "--model-path")
	pv.mapValue(f, &s.GPU, "")
	pv.mapValue(f, &s.GPUCount, "")
	pv.mapValue(f, &s.Replicas, "replicas")
	pv.mapValue(f, &s.Image, "")
}

// spanOnly maps a span that names text (a flag, a command) rather than a
// value: the template text or action that wrote it.
func (pv *provenance) spanOnly(f string, sp deploy.Span, raw string) deploy.Span {
	if sp.File != f {
		return sp
	}
	return pv.mapSpan(f, sp, raw, "").span
}

// mapValue maps a value's span and Via. A value printed from a values leaf
// is spanned at the leaf, with the actions that printed it in Via.
func (pv *provenance) mapValue(f string, v *deploy.Value, flag string) {
	if !v.IsSet() {
		return
	}
	var via []deploy.Span
	if v.Span.File == f {
		m := pv.mapSpan(f, v.Span, v.Raw, flag)
		v.Span = m.span
		via = append(via, m.via...)
		v.Inferred = m.inferred
	}
	for _, sp := range v.Via {
		if sp.File != f {
			via = append(via, sp)
			continue
		}
		m := pv.mapSpan(f, sp, "", "")
		via = append(via, m.span)
		via = append(via, m.via...)
	}
	v.Via = dedupSpans(via, v.Span)
}

func dedupSpans(list []deploy.Span, except deploy.Span) []deploy.Span {
	var out []deploy.Span
	seen := map[deploy.Span]bool{except: true}
	for _, sp := range list {
		if sp.IsZero() && sp.File == "" || seen[sp] {
			continue
		}
		seen[sp] = true
		out = append(out, sp)
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
			s, _ := k8s.Parse(f, []byte(out[f]), read)
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
		for name, v := range s.Args {
			var w *deploy.Value
			if o != nil {
				if x, ok := o.Args[name]; ok {
					w = &x
				}
			}
			check(&v, w)
			s.Args[name] = v
		}
		for j := range s.Positionals {
			var w *deploy.Value
			if o != nil && j < len(o.Positionals) {
				w = &o.Positionals[j]
			}
			check(&s.Positionals[j], w)
		}
		var om, oc, or, oi, og *deploy.Value
		if o != nil {
			om, oc, or, oi, og = &o.Model, &o.GPUCount, &o.Replicas, &o.Image, &o.GPU
		}
		check(&s.Model, om)
		check(&s.GPUCount, oc)
		check(&s.Replicas, or)
		check(&s.Image, oi)
		check(&s.GPU, og)
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
	for name, v := range s.Args {
		fix(&v)
		s.Args[name] = v
	}
	for i := range s.Positionals {
		fix(&s.Positionals[i])
	}
	for i := range s.Opaque {
		fix(&s.Opaque[i])
	}
	for _, v := range []*deploy.Value{&s.Model, &s.GPU, &s.GPUCount, &s.Replicas, &s.Image} {
		fix(v)
	}
}
