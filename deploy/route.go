package deploy

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Route is one destination a router's flags name: a --prefill or --decode
// URL, a worker URL, or a service-discovery selector. The engine that knows
// the router's flags produces them (Server.Routes); Group only resolves them.
type Route struct {
	// Role is RolePrefill or RoleDecode for --prefill, --decode and the PD
	// selectors, "" for plain workers (--worker-urls, --selector).
	Role Role
	// Target is the URL or the selector ("k=v k2=v2") as written.
	Target string
	// BootstrapPort is the word after a --prefill URL: a port, "none", or ""
	// when nothing was written (the decode side then falls back to its own
	// --disaggregation-bootstrap-port, managers/scheduler.py L2093-2095).
	BootstrapPort string
	// Discovery is true for a selector: the router finds pods at run time.
	Discovery bool
	// Selector is a discovery route's labels; nil when the selector is not
	// a list of k=v pairs (it then matches nothing).
	Selector map[string]string
	// Namespace is where a discovery route looks for pods
	// (--service-discovery-namespace); "" when not given or not known:
	// pods in any namespace match.
	Namespace string
	// Dynamo is set for an NVIDIA Dynamo frontend's discovery: it serves the
	// Dynamo workers registered in DynamoNamespace (every namespace when
	// ""; those starting with it when DynamoPrefix).
	Dynamo          bool
	DynamoNamespace string
	DynamoPrefix    bool
}

// routerLinks turns the routes the engine read from a router's flags into
// links to resolve.
func routerLinks(r *Server) []Link {
	out := make([]Link, 0, len(r.Routes))
	for _, rt := range r.Routes {
		out = append(out, Link{Router: r, Route: rt})
	}
	return out
}

// resolve finds the servers a link reaches, and says how.
func (g *grouping) resolve(router *Server, l Link, services []Service) ([]*Server, string) {
	if l.Dynamo {
		return g.byDynamo(router, l), "dynamo"
	}
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
// server_args.py port=30000; vLLM 8000); "" when it is not a known int.
func listenPort(s *Server) string {
	if v, ok := s.Args["--port"]; ok {
		n, ok := v.Typed.Int()
		if !ok {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	if s.Engine == EngineVLLM {
		return "8000"
	}
	return "30000"
}

// bySelector finds the servers a service-discovery selector matches: pods
// with every k=v label, in the route's namespace when it names one.
func (g *grouping) bySelector(router *Server, l Link) []*Server {
	if len(l.Selector) == 0 {
		return nil
	}
	var found []*Server
	for _, s := range g.servers {
		if s != router && s.Role != RoleRouter && s.Source.InCluster() && sameNamespace(s.Namespace, l.Namespace) && hasLabels(s.Labels, l.Selector) {
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

// byDynamo finds the Dynamo workers a frontend discovers. Discovery goes
// through etcd or the Kubernetes API, which no file names, so kvlint takes
// the workers launched beside the frontend: from the same script or compose
// file, or, in a cluster, the services of the same object (a
// DynamoGraphDeployment, whose services the operator puts in one Dynamo
// namespace built from the Kubernetes namespace and the graph's name:
// deploy/operator/api/v1alpha1/dynamocomponentdeployment_types.go
// DynamoNamespace at ai-dynamo/dynamo 1d26d9213a1d). A worker whose
// --namespace is written and known must fall in the frontend's scope.
func (g *grouping) byDynamo(router *Server, l Link) []*Server {
	var found []*Server
	for _, s := range g.servers {
		if s == router || s.Role == RoleRouter || !s.Dynamo || s.Span.File != router.Span.File {
			continue
		}
		if router.Source.InCluster() && (!s.Source.InCluster() || objectName(s) != objectName(router) || !sameNamespace(s.Namespace, router.Namespace)) {
			continue
		}
		if ns, ok := s.Args["--namespace"]; ok && ns.Known && l.DynamoNamespace != "" {
			if l.DynamoPrefix && !strings.HasPrefix(ns.Raw, l.DynamoNamespace) || !l.DynamoPrefix && ns.Raw != l.DynamoNamespace {
				continue
			}
		}
		found = append(found, s)
	}
	return found
}
