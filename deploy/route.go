package deploy

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// routerLinks reads the routes a router's flags name (sgl-model-gateway
// bindings/python/src/sglang_router/router_args.py): --prefill URL [PORT]
// (append, nargs "+": the optional bootstrap port, an integer or "none",
// follows its URL), --decode URL, --worker-urls URL…, and with
// --service-discovery the --prefill-selector/--decode-selector/--selector
// label sets. Placeholders are skipped: their servers cannot be known.
func routerLinks(r *Server) []Link {
	var out []Link
	if v, ok := r.Args["--prefill"]; ok && v.Known {
		for _, e := range prefillEntries(strings.Fields(v.Raw)) {
			out = append(out, Link{Router: r, Role: RolePrefill, Target: e[0], BootstrapPort: e[1]})
		}
	}
	for _, flag := range []struct {
		name string
		role Role
	}{{"--decode", RoleDecode}, {"--worker-urls", ""}} {
		if v, ok := r.Args[flag.name]; ok && v.Known {
			for _, u := range strings.Fields(v.Raw) {
				out = append(out, Link{Router: r, Role: flag.role, Target: u})
			}
		}
	}
	if sd, ok := r.Args["--service-discovery"]; ok && sd.Known && !strings.EqualFold(sd.Raw, "false") {
		for _, flag := range []struct {
			name string
			role Role
		}{{"--prefill-selector", RolePrefill}, {"--decode-selector", RoleDecode}, {"--selector", ""}} {
			if v, ok := r.Args[flag.name]; ok && v.Known && strings.TrimSpace(v.Raw) != "" {
				out = append(out, Link{Router: r, Role: flag.role, Target: v.Raw, Discovery: true})
			}
		}
	}
	return out
}

// prefillEntries splits --prefill's words into (URL, bootstrap port) pairs.
func prefillEntries(words []string) [][2]string {
	var out [][2]string
	for _, w := range words {
		if isBootstrapPort(w) && len(out) > 0 && out[len(out)-1][1] == "" {
			out[len(out)-1][1] = w
			continue
		}
		out = append(out, [2]string{w, ""})
	}
	return out
}

func isBootstrapPort(w string) bool {
	if strings.EqualFold(w, "none") {
		return true
	}
	_, err := strconv.Atoi(w)
	return err == nil
}

// resolve finds the servers a link reaches, and says how.
func (g *grouping) resolve(router *Server, l Link, services []Service) ([]*Server, string) {
	if l.Discovery {
		return g.bySelector(router, l), "labels"
	}
	host, port, ok := splitURL(l.Target)
	if !ok {
		return nil, ""
	}
	if isLoopback(host) {
		if s := g.byPort(router, port); len(s) > 0 {
			return s, "port"
		}
		return nil, ""
	}
	name, ns := serviceName(host)
	if s := g.byService(router, name, ns, services); s != nil {
		return s, "service"
	}
	if s := g.byName(router, name, ns); len(s) > 0 {
		return s, "name"
	}
	// A StatefulSet pod's DNS name is <name>-<ordinal>.<service>.
	if m := ordinal.FindStringSubmatch(name); m != nil {
		if s := g.byName(router, m[1], ns); len(s) > 0 {
			return s, "name"
		}
	}
	return nil, ""
}

var ordinal = regexp.MustCompile(`^(.+)-[0-9]+$`)

// splitURL returns a URL's host and port ("" when none is written).
func splitURL(raw string) (host, port string, ok bool) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", "", false
	}
	port = u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(u.Hostname()), port, true
}

func isLoopback(host string) bool {
	if host == "localhost" || host == "0.0.0.0" || host == "::" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serviceName reads a cluster DNS name: name, name.namespace or
// name.namespace.svc[.cluster.local]. Another dotted name keeps only its
// first label and no namespace.
func serviceName(host string) (name, namespace string) {
	labels := strings.Split(host, ".")
	switch {
	case len(labels) == 2:
		return labels[0], labels[1]
	case len(labels) >= 3 && labels[2] == "svc":
		return labels[0], labels[1]
	}
	return labels[0], ""
}

// sameNamespace is true unless both namespaces are written and differ (an
// unwritten namespace is whatever kubectl's context says).
func sameNamespace(a, b string) bool { return a == "" || b == "" || a == b }

// byService resolves a Service name to the servers its selector picks; nil
// when no Service has that name (an empty non-nil slice when it selects none).
func (g *grouping) byService(router *Server, name, ns string, services []Service) []*Server {
	if ns == "" {
		ns = router.Namespace
	}
	var found []*Server
	matched := false
	for _, svc := range services {
		if svc.Name != name || !sameNamespace(svc.Namespace, ns) || len(svc.Selector) == 0 {
			continue
		}
		matched = true
		for _, s := range g.servers {
			if s != router && s.Role != RoleRouter && s.Source.InCluster() &&
				sameNamespace(s.Namespace, svc.Namespace) && hasLabels(s.Labels, svc.Selector) && !slices.Contains(found, s) {
				found = append(found, s)
			}
		}
	}
	if !matched {
		return nil
	}
	if found == nil {
		found = []*Server{}
	}
	return nearest(router, found)
}

// nearest keeps the candidates written in the router's directory when there
// are any: a repository that keeps the same objects in several directories
// (environments, overlays, a fixed copy beside the broken one) applies them
// separately, and the router's own directory is the one it ships with.
func nearest(router *Server, found []*Server) []*Server {
	var near []*Server
	for _, s := range found {
		if sameDir(s.Span.File, router.Span.File) {
			near = append(near, s)
		}
	}
	if len(near) > 0 {
		return near
	}
	return found
}

// byName finds the servers of a Kubernetes object or compose service with
// that name (LeaderWorkerSet makes a Service named after itself; compose
// resolves a service name on the project network).
func (g *grouping) byName(router *Server, name, ns string) []*Server {
	if ns == "" {
		ns = router.Namespace
	}
	var found []*Server
	for _, s := range g.servers {
		if s == router || s.Role == RoleRouter || objectName(s) != name {
			continue
		}
		switch {
		case s.Source.InCompose():
			if s.Span.File == router.Span.File {
				found = append(found, s)
			}
		case s.Source.InCluster():
			if sameNamespace(s.Namespace, ns) {
				found = append(found, s)
			}
		}
	}
	return nearest(router, found)
}

// byPort finds the servers a loopback URL reaches: those launched from the
// router's file (else its directory) listening on that port.
func (g *grouping) byPort(router *Server, port string) []*Server {
	for _, near := range []func(a, b string) bool{func(a, b string) bool { return a == b }, sameDir} {
		var found []*Server
		for _, s := range g.servers {
			if s != router && s.Role != RoleRouter && near(s.Span.File, router.Span.File) && listenPort(s) == port {
				found = append(found, s)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	return nil
}

// listenPort is a server's --port, or its engine's default (SGLang
// server_args.py port=30000; vLLM 8000); "" when a placeholder.
func listenPort(s *Server) string {
	if v, ok := s.Args["--port"]; ok {
		if !v.Known {
			return ""
		}
		return strings.TrimSpace(v.Raw)
	}
	if s.Engine == EngineVLLM {
		return "8000"
	}
	return "30000"
}

// bySelector finds the servers a service-discovery selector matches: pods
// with every k=v label, in --service-discovery-namespace when it is given.
func (g *grouping) bySelector(router *Server, l Link) []*Server {
	sel := map[string]string{}
	for _, kv := range strings.Fields(l.Target) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil
		}
		sel[k] = v
	}
	ns := ""
	if v, ok := router.Args["--service-discovery-namespace"]; ok && v.Known {
		ns = strings.TrimSpace(v.Raw)
	}
	var found []*Server
	for _, s := range g.servers {
		if s != router && s.Role != RoleRouter && s.Source.InCluster() && sameNamespace(s.Namespace, ns) && hasLabels(s.Labels, sel) {
			found = append(found, s)
		}
	}
	return nearest(router, found)
}

func hasLabels(labels Labels, selector map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
