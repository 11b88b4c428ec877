package fixes

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// KV207 (bootstrap_port_unregistered.rego) reports a router whose --prefill
// URL carries no bootstrap port (or "none") while the prefill server it
// reaches listens on another --disaggregation-bootstrap-port than a decode
// server of the deployment. The router hands a request's bootstrap_port to
// decode; without one, decode substitutes its own port
// (modal-projects/sglang@8905cbd42f4a, a mirror of sgl-project/sglang
// main: python/sglang/srt/managers/scheduler.py
// Scheduler.handle_generate_request, "Use default bootstrap port").
// Writing the prefill server's port after its URL makes router and prefill
// agree: --prefill takes "URL [BOOTSTRAP_PORT]", where the port is a number
// or "none" (sgl-model-gateway/bindings/python/src/sglang_router/
// router_args.py RouterArgs.add_cli_args and _parse_prefill_urls, same
// commit).
func init() {
	register("KV207", bootstrapRegistered)
}

// defaultBootstrapPort is SGLang's --disaggregation-bootstrap-port default,
// read from the engine's flag table (server_args.py
// disaggregation_bootstrap_port); ok is false when the table has none.
func defaultBootstrapPort() (int64, bool) {
	d, ok := sglangDefault("--disaggregation-bootstrap-port")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(d, 10, 64)
	return n, err == nil
}

// bootstrapPort is the port an SGLang server's bootstrap server listens on:
// its --disaggregation-bootstrap-port, else the default.
func bootstrapPort(s *deploy.Server) (int64, bool) {
	if v, ok := s.Args["--disaggregation-bootstrap-port"]; ok {
		if !v.Known {
			return 0, false
		}
		return v.Typed.Int()
	}
	return defaultBootstrapPort()
}

// bootstrapRegistered writes, for every --prefill URL of the finding's
// router that the rule reports, the port its prefill servers listen on:
// after the URL, or over a written "none". One fix covers every such URL
// of the router, since the findings all point at its --prefill.
func bootstrapRegistered(s *Subject) []diag.Fix {
	router := s.Server
	if router == nil || router.Role != deploy.RoleRouter {
		return nil
	}
	var reps []diag.Replacement
	var what []string
	unwritable := ""
	for _, d := range s.Deployments {
		for _, l := range d.Links {
			if l.Router != router || l.Role != deploy.RolePrefill || l.Discovery || (l.BootstrapPort != "" && !strings.EqualFold(l.BootstrapPort, "none")) {
				continue
			}
			port, ok := linkPort(l, d)
			if !ok {
				continue
			}
			what = append(what, fmt.Sprintf("%s %d", l.Target, port))
			r, why := registerPort(s, router, l, port)
			if why != "" {
				unwritable = why
				continue
			}
			reps = append(reps, r)
		}
	}
	if len(what) == 0 {
		return nil
	}
	f := diag.Fix{Description: fmt.Sprintf("--prefill %s on the router %s (the bootstrap port its prefill server listens on)", strings.Join(what, ", "), where(router))}
	if unwritable != "" {
		// Some URL cannot be edited: the fix as a whole is by hand, or
		// the findings at that URL would stay.
		f.Unwritable = unwritable
		return []diag.Fix{f}
	}
	f.Replacements = reps
	return []diag.Fix{f}
}

// linkPort is the one bootstrap port the SGLang prefill servers a link
// reaches listen on, when some SGLang decode server of the deployment
// listens on another (what the rule reports).
func linkPort(l deploy.Link, d deploy.Deployment) (int64, bool) {
	var port int64
	found := false
	for _, p := range l.Servers {
		if p.Engine != deploy.EngineSGLang {
			continue
		}
		n, ok := bootstrapPort(p)
		if !ok || found && n != port {
			return 0, false
		}
		port, found = n, true
	}
	if !found {
		return 0, false
	}
	for _, q := range d.Servers {
		if q.Role != deploy.RoleDecode || q.Engine != deploy.EngineSGLang {
			continue
		}
		if n, ok := bootstrapPort(q); !ok || n != port {
			return port, true
		}
	}
	return 0, false
}

// registerPort is the edit that gives the --prefill occurrence of the
// link's URL the port: over a written "none", else after the URL.
func registerPort(s *Subject, router *deploy.Server, l deploy.Link, port int64) (diag.Replacement, string) {
	text := strconv.FormatInt(port, 10)
	var occ []deploy.Value
	for _, items := range router.ArgLists["--prefill"] {
		if len(items) > 0 && strings.TrimSpace(items[0].Raw) == l.Target {
			if occ != nil {
				return diag.Replacement{}, fmt.Sprintf("%s is registered twice: give its bootstrap port by hand", l.Target)
			}
			occ = items
		}
	}
	switch {
	case occ == nil:
		return diag.Replacement{}, fmt.Sprintf("the --prefill word %s is not written as a word of its own (a quoted \"URL PORT\" or a computed value): give its bootstrap port by hand", l.Target)
	case len(occ) >= 2:
		reps, why := setValue(s.Files, occ[1], text)
		if why != "" {
			return diag.Replacement{}, why
		}
		return yamlItemString(s, reps[0]), ""
	}
	url := occ[0]
	if why := insertable(url, router); why != "" {
		return diag.Replacement{}, why
	}
	reps, why := insertAfter(s.Files, url, text)
	if why != "" {
		return diag.Replacement{}, why
	}
	return reps[0], ""
}

// insertable says why a word may not get another word written after it:
// it is computed, assembled by a template, or written away from the
// launch. A shell variable ("$URL") is fine: the port follows it.
func insertable(w deploy.Value, launch *deploy.Server) string {
	switch {
	case !w.Known:
		return fmt.Sprintf("%s at %s is not known statically: edit it by hand", w.Raw, w.Span)
	case w.Origin.Inferred():
		return fmt.Sprintf("%s at %s reaches the command line through a template that computes on it: edit it by hand", w.Raw, w.Span)
	}
	for _, st := range w.Origin {
		switch st.Kind {
		case deploy.StepTemplate, deploy.StepInclude:
			return fmt.Sprintf("%s is written by a template expression (%s), not a literal: edit it by hand", w.Raw, st.Span)
		case deploy.StepImage:
			return "the launch's arguments are the image's default command, which the deployment does not write"
		}
	}
	if w.Span.IsZero() || w.Span.File != launch.Span.File {
		return fmt.Sprintf("%s is not written with the launch at %s: edit it by hand", w.Raw, launch.Span)
	}
	return ""
}

// yamlItemString quotes a number written over a bare item of a YAML
// sequence ("- none" → "- \"9000\""): a Kubernetes args list holds strings,
// and a bare 9000 is an int the API server refuses there.
func yamlItemString(s *Subject, r diag.Replacement) diag.Replacement {
	f, _, start, end, ok := text(s.Files, r.Span)
	if !ok || f.Syntax != source.SyntaxYAML {
		return r
	}
	if start > 0 && isQuote(f.Data[start-1]) || end < len(f.Data) && isQuote(f.Data[end]) {
		return r
	}
	before := strings.TrimRight(string(f.Data[bytes.LastIndexByte(f.Data[:start], '\n')+1:start]), " \t")
	if strings.HasSuffix(before, "-") || strings.HasSuffix(before, ",") || strings.HasSuffix(before, "[") {
		r.NewText = `"` + r.NewText + `"`
	}
	return r
}
