package terraform

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// HelmRenderer renders a chart as parsers/helm.Render does; parsers wires
// it in, so this package does not link Helm (and Kubernetes' client
// libraries) itself.
type HelmRenderer func(HelmRelease, engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic)

// HelmRelease mirrors parsers/helm.Release: a chart directory rendered with
// values documents, then set entries.
type HelmRelease struct {
	Chart, Name, Namespace string
	Values                 []HelmValues
	Set                    []HelmSet
}

// HelmValues mirrors parsers/helm.Values: one values document, with Locate
// mapping a span of Data back to where the user wrote it, and Unknown
// naming string leaves that are not known statically.
type HelmValues struct {
	File    string
	Data    []byte
	Locate  func(deploy.Span) deploy.Span
	Unknown func(string) bool
}

// HelmSet mirrors parsers/helm.Set: one --set entry (name=value).
type HelmSet struct {
	Expr    string
	String  bool
	Span    deploy.Span
	Unknown bool
}

// helmRelease renders a helm_release whose chart is a directory (or a
// packaged .tgz) of the module, through parsers/helm, with the release's
// values = [...] documents and its set blocks or set = [...] list
// (hashicorp/helm provider v2 and v3). Values written in the HCL keep their
// positions: a finding on a value that came from terraform.tfvars points
// there, with the variable, the release's argument and the template line
// as its chain. A chart from a repository cannot be rendered offline; it is
// reported when it looks like it serves a model.
func (m *module) helmRelease(b *hclsyntax.Block, ctx *hcl.EvalContext, address string) {
	hdr := m.fs.span(hcl.RangeBetween(b.TypeRange, b.LabelRanges[len(b.LabelRanges)-1]))
	if m.opt.Helm == nil {
		m.errorf(hdr, "helm_release rendering is not available: the servers %s deploys were not checked", address)
		return
	}
	body := b.Body
	chart, chartAt, ok := m.stringAttr(body, "chart", ctx)
	if !ok {
		m.errorf(chartAt.orElse(hdr), "the chart of %s is not known statically, so the servers it deploys were not checked", address)
		return
	}
	if repo, _, _ := m.stringAttr(body, "repository", ctx); repo != "" || strings.Contains(chart, "://") {
		if mentionsEngine(chart) || mentionsEngine(m.fs.text(b.Range())) {
			m.errorf(chartAt.orElse(hdr), "%s installs the chart %q from a repository, which kvlint cannot render offline: the servers it deploys were not checked", address, chart)
		}
		return
	}
	display, real, err := m.resolve(chart)
	if err != nil {
		m.errorf(chartAt.orElse(hdr), "the chart of %s: %v", address, err)
		return
	}
	if _, err := os.Stat(real); err != nil {
		m.errorf(chartAt.orElse(hdr), "the chart of %s (%s): %s", address, display, describe(err))
		return
	}
	rel := HelmRelease{Chart: display}
	rel.Name, _, _ = m.stringAttr(body, "name", ctx)
	rel.Namespace, _, _ = m.stringAttr(body, "namespace", ctx)
	origins := map[deploy.Span]deploy.Origin{}
	rel.Values = m.helmValues(body, ctx, address, origins)
	rel.Set = m.helmSets(body, ctx, origins)

	servers, errs := m.opt.Helm(rel, m.readBeside())
	for _, e := range errs {
		e.Message = m.placeholderText(e.Message)
		m.errs = append(m.errs, e)
	}
	for _, s := range servers {
		for _, v := range s.Values() {
			if !v.IsSet() {
				continue
			}
			if chain, ok := origins[v.Span]; ok {
				v.Origin = append(copyOrigin(chain), v.Origin...)
			}
			v.Raw = m.placeholderText(v.Raw)
		}
		m.servers = append(m.servers, s)
	}
}

type optSpan struct {
	s  deploy.Span
	ok bool
}

func (o optSpan) orElse(d deploy.Span) deploy.Span {
	if o.ok {
		return o.s
	}
	return d
}

// stringAttr evaluates a string argument. ok is false when it is absent or
// not known.
func (m *module) stringAttr(body *hclsyntax.Body, name string, ctx *hcl.EvalContext) (string, optSpan, bool) {
	a, found := body.Attributes[name]
	if !found {
		return "", optSpan{}, false
	}
	at := optSpan{m.fs.span(a.Expr.Range()), true}
	v := m.eval(a.Expr, ctx, "")
	bare, _ := v.Unmark()
	s, err := convert.Convert(bare, cty.String)
	if err != nil || !s.IsKnown() || s.IsNull() {
		return "", at, false
	}
	return s.AsString(), at, true
}

func mentionsEngine(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "sglang") || strings.Contains(s, "vllm")
}

// helmValues reads values = [...]: each document keeps the byte map of the
// text it was built from (a heredoc, yamlencode, file, templatefile), which
// Origin uses to point a values line back at the HCL or tfvars that wrote
// it. A document that is not known at all is an error: it may set anything.
func (m *module) helmValues(body *hclsyntax.Body, ctx *hcl.EvalContext, address string, origins map[deploy.Span]deploy.Origin) []HelmValues {
	a, ok := body.Attributes["values"]
	if !ok {
		return nil
	}
	v := m.eval(a.Expr, ctx, "")
	bare, _ := v.Unmark()
	if !bare.IsKnown() || bare.IsNull() || !bare.CanIterateElements() {
		if !bare.IsNull() {
			m.errorf(m.fs.span(a.Expr.Range()), "the values of %s are not known statically; the chart was rendered without them", address)
		}
		return nil
	}
	var out []HelmValues
	for i, el := range v.AsValueSlice() {
		eb, _ := el.Unmark()
		if !eb.IsKnown() || eb.IsNull() || eb.Type() != cty.String {
			if !eb.IsNull() {
				p, _ := primary(sitesOf(el))
				sp := m.fs.span(a.Expr.Range())
				if p != nil {
					sp = p.span()
				}
				m.errorf(sp, "values[%d] of %s is not known statically; the chart was rendered without it", i, address)
			}
			continue
		}
		text := eb.AsString()
		name := fmt.Sprintf("%s#%s.values[%d]", m.fs.span(a.Expr.Range()).File, address, i)
		src := yamlsrc.NewSource(name, []byte(text))
		sites := sitesOf(el)
		out = append(out, HelmValues{
			File: name,
			Data: []byte(text),
			Locate: func(sp deploy.Span) deploy.Span {
				if sp.File != name || sp.IsZero() {
					return sp
				}
				from := src.LineStart(sp.Line) + max(sp.Col-1, 0)
				to := from + 1
				if sp.EndLine > 0 {
					to = src.LineStart(sp.EndLine) + max(sp.EndCol-1, 0)
				}
				from, to = min(from, len(text)), min(max(to, from+1), len(text))
				if from >= to {
					return sp
				}
				out, via := locate(sites, text, from, to)
				if out.IsZero() {
					return sp
				}
				origins[out] = via
				return out
			},
			Unknown: func(s string) bool { return strings.Contains(s, "${"+placeholderPrefix) },
		})
	}
	return out
}

// helmSets reads set / set_sensitive / set_list, as blocks (provider v2) or
// lists of objects (v3), in the order they are written.
func (m *module) helmSets(body *hclsyntax.Body, ctx *hcl.EvalContext, origins map[deploy.Span]deploy.Origin) []HelmSet {
	var out []HelmSet
	add := func(name, value cty.Value, typ string, list bool) {
		nb, _ := name.Unmark()
		ns, err := convert.Convert(nb, cty.String)
		if err != nil || !ns.IsKnown() || ns.IsNull() {
			return
		}
		s := HelmSet{String: typ == "string"}
		vb, _ := value.Unmark()
		var text string
		switch {
		case !vb.IsWhollyKnown():
			s.Unknown = true
			text = "unknown"
		case list && vb.CanIterateElements():
			var items []string
			for _, it := range vb.AsValueSlice() {
				// Unmark is shallow: the elements keep their sites.
				ib, _ := it.Unmark()
				if is, err := convert.Convert(ib, cty.String); err == nil && !is.IsNull() {
					items = append(items, is.AsString())
				}
			}
			text = "{" + strings.Join(items, ",") + "}"
		default:
			vs, err := convert.Convert(vb, cty.String)
			if err != nil || vs.IsNull() {
				return
			}
			text = vs.AsString()
		}
		s.Expr = ns.AsString() + "=" + text
		if vb.IsKnown() && vb.Type() == cty.String {
			sp, via := locate(sitesOf(value), text, 0, len(text))
			s.Span = sp
			origins[sp] = via
		} else if p, _ := primary(sitesOf(value)); p != nil {
			s.Span = p.span()
			origins[s.Span] = p.via.origin()
		} else if sp, ok := listSpan(vb); ok {
			// A list's sites are its elements': the entry is the text
			// from the first to the last.
			s.Span = sp
		}
		out = append(out, s)
	}
	type entry struct {
		at   int
		name cty.Value
		val  cty.Value
		typ  string
		list bool
	}
	var entries []entry
	for _, blk := range body.Blocks {
		switch blk.Type {
		case "set", "set_sensitive", "set_list":
			n, v := blk.Body.Attributes["name"], blk.Body.Attributes["value"]
			if n == nil || v == nil {
				continue
			}
			typ := ""
			if t, ok := blk.Body.Attributes["type"]; ok {
				if tv, ds := t.Expr.Value(ctx); !ds.HasErrors() && tv.Type() == cty.String && tv.IsKnown() {
					typ = tv.AsString()
				}
			}
			entries = append(entries, entry{blk.TypeRange.Start.Byte, m.eval(n.Expr, ctx, ""), m.eval(v.Expr, ctx, ""), typ, blk.Type == "set_list"})
		}
	}
	for _, key := range []string{"set", "set_sensitive", "set_list"} {
		a, ok := body.Attributes[key]
		if !ok {
			continue
		}
		v := m.eval(a.Expr, ctx, "")
		bare, _ := v.Unmark()
		if !bare.IsKnown() || bare.IsNull() || !bare.CanIterateElements() {
			continue
		}
		for _, it := range v.AsValueSlice() {
			ib, _ := it.Unmark()
			if !ib.IsKnown() || ib.IsNull() || !(ib.Type().IsObjectType() || ib.Type().IsMapType()) {
				continue
			}
			obj := it.AsValueMap()
			typ := ""
			if t, ok := obj["type"]; ok {
				if tb, _ := t.Unmark(); tb.IsKnown() && !tb.IsNull() && tb.Type() == cty.String {
					typ = tb.AsString()
				}
			}
			entries = append(entries, entry{a.SrcRange.Start.Byte, obj["name"], obj["value"], typ, key == "set_list"})
		}
	}
	for _, e := range entries {
		if e.name == cty.NilVal || e.val == cty.NilVal {
			continue
		}
		add(e.name, e.val, e.typ, e.list)
	}
	return out
}

// placeholderText turns placeholders back into the expressions they stand
// for.
func (m *module) placeholderText(s string) string {
	rm := &remapper{r: &rendered{unknowns: &m.placeholders}}
	return rm.text(s)
}

// listSpan is the span from the first element of a list to its last, when
// both were written in the same file.
func listSpan(v cty.Value) (deploy.Span, bool) {
	if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() || v.LengthInt() == 0 {
		return deploy.Span{}, false
	}
	elems := v.AsValueSlice()
	first, _ := primary(sitesOf(elems[0]))
	last, _ := primary(sitesOf(elems[len(elems)-1]))
	if first == nil || last == nil || first.f == nil || first.f != last.f || last.end < first.start {
		return deploy.Span{}, false
	}
	return first.f.span(first.start, last.end), true
}
