package deploy

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Service is a Kubernetes Service: the DNS name a router's URL uses, and the
// pod labels behind it.
type Service struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	Selector  map[string]string `json:"selector,omitempty"`
	Span      Span              `json:"span"` // metadata.name
}

// Link is a route of a router with the servers it reaches.
type Link struct {
	Router *Server
	Route
	Servers []*Server // reached servers, in input order
	// Match says how Target was resolved: "service" (a Service's selector),
	// "name" (an object or compose service of that name), "port" (a server
	// on this host listening there), "labels" (a selector), "" (nothing).
	Match string
}

// Group puts servers that serve one endpoint into one Deployment: a router
// with the prefill and decode pools (or workers) its flags reach, the roles
// of one object (RoleBasedGroup, LeaderWorkerSet, Dynamo graph), and prefill
// and decode servers with no router that share a file or an app label.
// Every server ends up in exactly one deployment; the rest stand alone.
//
// Deployments come in the order of their first server; Tenancy and
// Isolation are left for the caller (they are settings, not in the files).
func Group(servers []*Server, services []Service) []Deployment {
	g := newGrouping(servers)
	var links []Link
	for i, s := range servers {
		if s.Role != RoleRouter {
			continue
		}
		for _, l := range routerLinks(s) {
			l.Servers, l.Match = g.resolve(s, l, services)
			for _, t := range l.Servers {
				g.union(i, g.index[t])
			}
			links = append(links, l)
		}
	}
	g.unionObjects()
	g.unionOrphanPD()
	return g.deployments(links)
}

type grouping struct {
	servers []*Server
	index   map[*Server]int
	parent  []int
}

func newGrouping(servers []*Server) *grouping {
	g := &grouping{servers: servers, index: make(map[*Server]int, len(servers)), parent: make([]int, len(servers))}
	for i, s := range servers {
		g.index[s] = i
		g.parent[i] = i
	}
	return g
}

func (g *grouping) find(i int) int {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

// union joins two sets; the smaller index becomes the root so roots are
// deterministic.
func (g *grouping) union(a, b int) {
	ra, rb := g.find(a), g.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	g.parent[rb] = ra
}

// unionObjects joins the servers one Kubernetes object runs: the roles of a
// RoleBasedGroup or Dynamo graph, the leader and workers of a LeaderWorkerSet,
// the containers of one pod. The k8s parser names them object/role/….
func (g *grouping) unionObjects() {
	first := map[string]int{}
	for i, s := range g.servers {
		if !s.Source.InCluster() {
			continue
		}
		key := s.Span.File + "\x00" + s.Namespace + "\x00" + objectName(s)
		if j, ok := first[key]; ok {
			g.union(j, i)
		} else {
			first[key] = i
		}
	}
}

// unionOrphanPD joins prefill and decode servers that no router reached:
// those launched from one file (a script, a compose project, a manifest that
// defines both pools), then Kubernetes pools in one directory that share a
// namespace and an app label (app.kubernetes.io/instance, else app). The
// directory keeps copies of a deployment in other directories (overlays,
// environments) apart.
func (g *grouping) unionOrphanPD() {
	hasRouter := map[int]bool{}
	for i, s := range g.servers {
		if s.Role == RoleRouter {
			hasRouter[g.find(i)] = true
		}
	}
	orphan := func(i int) bool {
		r := g.servers[i].Role
		return (r == RolePrefill || r == RoleDecode) && !hasRouter[g.find(i)]
	}
	byFile := map[string]int{}
	byLabel := map[string]int{}
	for i, s := range g.servers {
		if !orphan(i) {
			continue
		}
		if j, ok := byFile[s.Span.File]; ok {
			g.union(j, i)
		} else {
			byFile[s.Span.File] = i
		}
	}
	for i, s := range g.servers {
		if !orphan(i) || !s.Source.InCluster() {
			continue
		}
		app := s.Labels["app.kubernetes.io/instance"]
		if app == "" {
			app = s.Labels["app"]
		}
		if app == "" {
			continue
		}
		key := filepath.Dir(s.Span.File) + "\x00" + s.Namespace + "\x00" + app
		if j, ok := byLabel[key]; ok {
			g.union(j, i)
		} else {
			byLabel[key] = i
		}
	}
}

func (g *grouping) deployments(links []Link) []Deployment {
	members := map[int][]*Server{}
	var roots []int
	for i, s := range g.servers {
		r := g.find(i)
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], s)
	}
	sort.Ints(roots) // a root is its set's smallest index: first-server order
	out := make([]Deployment, 0, len(roots))
	at := map[int]int{}
	for _, r := range roots {
		d := Deployment{Servers: members[r], Mode: ModeColocated}
		for _, s := range d.Servers {
			if s.Role == RolePrefill || s.Role == RoleDecode || (s.Role == RoleRouter && pdRouter(s)) {
				d.Mode = ModeDisaggregated
			}
		}
		d.Name = deploymentName(d.Servers)
		at[r] = len(out)
		out = append(out, d)
	}
	for _, l := range links {
		d := &out[at[g.find(g.index[l.Router])]]
		d.Links = append(d.Links, l)
	}
	uniqueNames(out)
	return out
}

// pdRouter reports a router started with --pd-disaggregation.
func pdRouter(s *Server) bool {
	on, _ := s.Args["--pd-disaggregation"].Typed.Bool()
	return on
}

// deploymentName is what the members' names have in common: the object name
// of a one-object deployment, the shared stem of several objects
// (llama-prefill, llama-decode, llama-router → llama), else the router's or
// the first server's name; a script's deployment is named after the file.
func deploymentName(servers []*Server) string {
	var names []string
	for _, s := range servers {
		if s.Source.NamedByObject() {
			names = append(names, objectName(s))
		}
	}
	if len(names) == len(servers) {
		if stem := commonStem(names); stem != "" {
			return stem
		}
		if p := composeProject(servers); p != "" {
			return p
		}
		for _, s := range servers {
			if s.Role == RoleRouter {
				return objectName(s)
			}
		}
		return names[0]
	}
	file := servers[0].Span.File
	for _, s := range servers {
		if s.Span.File != file {
			return servers[0].Name
		}
	}
	if len(servers) == 1 {
		return servers[0].Name
	}
	return file
}

// composeProject is the compose project the servers form — compose names
// a project after the directory of its file — or "" when they are not all
// services of one compose file.
func composeProject(servers []*Server) string {
	file := servers[0].Span.File
	for _, s := range servers {
		if !s.Source.InCompose() || s.Span.File != file {
			return ""
		}
	}
	dir := filepath.Base(filepath.Dir(file))
	if dir == "." || dir == string(filepath.Separator) {
		abs, err := filepath.Abs(filepath.Dir(file))
		if err != nil {
			return ""
		}
		dir = filepath.Base(abs)
	}
	return dir
}

// commonStem is the longest common prefix of names that ends at a word
// boundary (-, _ or .), without the separator; "" when shorter than 3.
func commonStem(names []string) string {
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	whole := true
	for _, n := range names {
		if len(n) > len(prefix) && !isSeparator(n[len(prefix)]) {
			whole = false
		}
	}
	if !whole {
		i := strings.LastIndexAny(prefix, "-_.")
		if i < 0 {
			return ""
		}
		prefix = prefix[:i]
	}
	prefix = strings.TrimRight(prefix, "-_.")
	if len(prefix) < 3 {
		return ""
	}
	return prefix
}

func isSeparator(b byte) bool { return b == '-' || b == '_' || b == '.' }

// uniqueNames suffixes repeated names with #2, #3… in order.
func uniqueNames(ds []Deployment) {
	seen := map[string]int{}
	for i := range ds {
		n := ds[i].Name
		seen[n]++
		if seen[n] > 1 {
			ds[i].Name = n + "#" + strconv.Itoa(seen[n])
		}
	}
}

// objectName is the Kubernetes object or compose service a server belongs
// to: its name up to the first "/" (role path) or "#" (nth launch).
func objectName(s *Server) string {
	n := s.Name
	if i := strings.IndexAny(n, "/#"); i >= 0 {
		n = n[:i]
	}
	return n
}

// sameDir reports whether two files are in one directory.
func sameDir(a, b string) bool { return filepath.Dir(a) == filepath.Dir(b) }
