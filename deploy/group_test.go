package deploy

import (
	"reflect"
	"strings"
	"testing"
)

// srv builds a server for the grouping tests: name, source, file and role,
// then flags as name/value pairs.
func srv(name string, source Source, file string, role Role, args ...string) *Server {
	s := &Server{Name: name, Source: source, Span: Span{File: file, Line: 1, Col: 1}, Role: role, Args: map[string]Value{}, Engine: EngineSGLang}
	if role == RoleRouter {
		s.Engine = EngineSGLangRouter
	}
	for i := 0; i+1 < len(args); i += 2 {
		s.Args[args[i]] = Known(args[i+1], Span{})
	}
	return s
}

func kube(name, file string, role Role, labels Labels, args ...string) *Server {
	s := srv(name, "kubernetes", file, role, args...)
	s.Labels = labels
	return s
}

// groups renders deployments as "name(mode): member, member" for comparison.
func groups(ds []Deployment) []string {
	var out []string
	for _, d := range ds {
		var names []string
		for _, s := range d.Servers {
			names = append(names, s.Name)
		}
		out = append(out, d.Name+"("+string(d.Mode)+"): "+strings.Join(names, ", "))
	}
	return out
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name     string
		servers  []*Server
		services []Service
		want     []string
	}{
		{
			name: "router URLs name objects (LeaderWorkerSet), across files",
			servers: []*Server{
				kube("llama-prefill/leader", "p.yaml", RolePrefill, Labels{"app": "llama", "pd_role": "prefill"}),
				kube("llama-decode/leader", "d.yaml", RoleDecode, Labels{"app": "llama", "pd_role": "decode"}),
				kube("llama-router", "r.yaml", RoleRouter, nil, "--pd-disaggregation", "true",
					"--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode.inference.svc.cluster.local:30000"),
				kube("other", "o.yaml", RoleColocated, Labels{"app": "other"}),
			},
			want: []string{
				"llama(disaggregated): llama-prefill/leader, llama-decode/leader, llama-router",
				"other(colocated): other",
			},
		},
		{
			name: "router URLs through Services and their selectors",
			servers: []*Server{
				kube("p1", "pd.yaml", RolePrefill, Labels{"role": "p", "m": "a"}),
				kube("p2", "pd.yaml", RolePrefill, Labels{"role": "p", "m": "a"}),
				kube("d1", "pd.yaml", RoleDecode, Labels{"role": "d", "m": "a"}),
				kube("lb", "pd.yaml", RoleRouter, nil, "--pd-disaggregation", "true",
					"--prefill", "http://prefill-svc:30000 8999", "--decode", "http://decode-svc:30000"),
			},
			services: []Service{
				{Name: "prefill-svc", Selector: map[string]string{"role": "p", "m": "a"}},
				{Name: "decode-svc", Selector: map[string]string{"role": "d"}},
			},
			want: []string{"lb(disaggregated): p1, p2, d1, lb"},
		},
		{
			name: "a Service in another namespace does not match",
			servers: []*Server{
				withNS(kube("p", "a.yaml", RolePrefill, Labels{"r": "p"}), "team-a"),
				withNS(kube("lb", "b.yaml", RoleRouter, nil, "--prefill", "http://svc.team-b:30000"), "team-b"),
			},
			services: []Service{{Name: "svc", Namespace: "team-a", Selector: map[string]string{"r": "p"}}},
			want:     []string{"p(disaggregated): p", "lb(colocated): lb"},
		},
		{
			name: "service discovery selectors",
			servers: []*Server{
				kube("rbg/prefill", "rbg.yaml", RolePrefill, Labels{"pd_role": "prefill"}),
				kube("rbg/decode", "rbg.yaml", RoleDecode, Labels{"pd_role": "decode"}),
				kube("gw", "gw.yaml", RoleRouter, nil, "--pd-disaggregation", "true", "--service-discovery", "true",
					"--prefill-selector", "pd_role=prefill", "--decode-selector", "pd_role=decode"),
				kube("x", "x.yaml", RoleDecode, Labels{"pd_role": "other"}),
			},
			want: []string{"gw(disaggregated): rbg/prefill, rbg/decode, gw", "x(disaggregated): x"},
		},
		{
			name: "the roles of one object are one deployment",
			servers: []*Server{
				kube("dsv3/prefill", "rbg.yaml", RolePrefill, nil),
				kube("dsv3/decode", "rbg.yaml", RoleDecode, nil),
				kube("dsv3/router", "rbg.yaml", RoleRouter, nil),
			},
			want: []string{"dsv3(disaggregated): dsv3/prefill, dsv3/decode, dsv3/router"},
		},
		{
			name: "compose routers name services",
			servers: []*Server{
				srv("prefill", "compose", "pd/compose.yaml", RolePrefill),
				srv("decode", "compose", "pd/compose.yaml", RoleDecode),
				srv("router", "compose", "pd/compose.yaml", RoleRouter, "--pd-disaggregation", "true",
					"--prefill", "http://prefill:30000", "--decode", "http://decode:30001"),
				srv("prefill", "compose", "other/compose.yaml", RolePrefill),
				srv("prefill", "compose", "third/compose.yaml", RolePrefill),
			},
			want: []string{"pd(disaggregated): prefill, decode, router", "prefill(disaggregated): prefill", "prefill#2(disaggregated): prefill"},
		},
		{
			name: "a script's servers on localhost ports",
			servers: []*Server{
				srv("pd.sh:3", "shell", "pd.sh", RolePrefill, "--port", "30000"),
				srv("pd.sh:4", "shell", "pd.sh", RoleDecode, "--port", "30001"),
				srv("pd.sh:5", "shell", "pd.sh", RoleColocated, "--port", "30002"),
				srv("pd.sh:6", "shell", "pd.sh", RoleRouter, "--pd-disaggregation", "true",
					"--prefill", "http://127.0.0.1:30000", "--decode", "http://localhost:30001"),
			},
			want: []string{"pd.sh(disaggregated): pd.sh:3, pd.sh:4, pd.sh:6", "pd.sh:5(colocated): pd.sh:5"},
		},
		{
			name: "the default port is SGLang's 30000",
			servers: []*Server{
				srv("a.sh:1", "shell", "a.sh", RoleColocated),
				srv("a.sh:2", "shell", "a.sh", RoleRouter, "--worker-urls", "http://0.0.0.0:30000"),
			},
			want: []string{"a.sh(colocated): a.sh:1, a.sh:2"},
		},
		{
			name: "prefill and decode with no router: by file, then by app label",
			servers: []*Server{
				srv("s.sh:1", "shell", "s.sh", RolePrefill),
				srv("s.sh:2", "shell", "s.sh", RoleDecode),
				kube("mist-prefill", "p.yaml", RolePrefill, Labels{"app": "m"}),
				kube("mist-decode", "d.yaml", RoleDecode, Labels{"app": "m"}),
				kube("n-decode", "n.yaml", RoleDecode, Labels{"app": "n"}),
				kube("c1", "c.yaml", RoleColocated, Labels{"app": "m"}),
			},
			want: []string{
				"s.sh(disaggregated): s.sh:1, s.sh:2",
				"mist(disaggregated): mist-prefill, mist-decode",
				"n-decode(disaggregated): n-decode",
				"c1(colocated): c1",
			},
		},
		{
			name: "two routers in front of the same pools are one deployment",
			servers: []*Server{
				kube("pool-prefill", "a.yaml", RolePrefill, nil),
				kube("pool-decode", "a.yaml", RoleDecode, nil),
				kube("lb-a", "b.yaml", RoleRouter, nil, "--prefill", "http://pool-prefill:1", "--decode", "http://pool-decode:1"),
				kube("lb-b", "c.yaml", RoleRouter, nil, "--prefill", "http://pool-prefill:1"),
			},
			want: []string{"lb-a(disaggregated): pool-prefill, pool-decode, lb-a, lb-b"},
		},
		{
			name: "placeholders and unknown hosts reach nothing",
			servers: []*Server{
				kube("p", "a.yaml", RolePrefill, nil),
				func() *Server {
					s := kube("lb", "b.yaml", RoleRouter, nil, "--decode", "http://elsewhere.example.com:80")
					s.Args["--prefill"] = Unknown("$(PREFILL_URL)", Span{})
					return s
				}(),
			},
			want: []string{"p(disaggregated): p", "lb(colocated): lb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := groups(Group(tt.servers, tt.services))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func withNS(s *Server, ns string) *Server {
	s.Namespace = ns
	return s
}

func TestGroupLinks(t *testing.T) {
	p := kube("pool-prefill", "a.yaml", RolePrefill, nil)
	d := kube("pool-decode", "a.yaml", RoleDecode, nil)
	lb := kube("lb", "b.yaml", RoleRouter, nil, "--prefill", "http://pool-prefill:30000 8999 http://gone:1 none http://pool-prefill-0.pool:2", "--decode", "http://pool-decode:30000")
	ds := Group([]*Server{p, d, lb}, nil)
	if len(ds) != 1 {
		t.Fatalf("want one deployment, got %v", groups(ds))
	}
	type link struct {
		role          Role
		target, port  string
		match         string
		reached       int
		firstIsPrefil bool
	}
	var got []link
	for _, l := range ds[0].Links {
		if l.Router != lb {
			t.Errorf("link %q has router %v", l.Target, l.Router)
		}
		got = append(got, link{l.Role, l.Target, l.BootstrapPort, l.Match, len(l.Servers), len(l.Servers) > 0 && l.Servers[0] == p})
	}
	want := []link{
		{RolePrefill, "http://pool-prefill:30000", "8999", "name", 1, true},
		{RolePrefill, "http://gone:1", "none", "", 0, false},
		{RolePrefill, "http://pool-prefill-0.pool:2", "", "name", 1, true},
		{RoleDecode, "http://pool-decode:30000", "", "name", 1, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links\n got %+v\nwant %+v", got, want)
	}
	if !ds[0].Complete() {
		t.Error("prefill and decode: want complete")
	}
}

func TestCompleteAndModes(t *testing.T) {
	ds := Group([]*Server{
		srv("a.sh:1", "shell", "a.sh", RolePrefill),
		srv("b.sh:1", "shell", "b.sh", RoleColocated),
		srv("c.sh:1", "shell", "c.sh", RoleRouter, "--pd-disaggregation", "true"),
	}, nil)
	want := []struct {
		mode     Mode
		complete bool
	}{{ModeDisaggregated, false}, {ModeColocated, true}, {ModeDisaggregated, false}}
	for i, d := range ds {
		if d.Mode != want[i].mode || d.Complete() != want[i].complete {
			t.Errorf("%s: mode %s complete %v, want %s %v", d.Name, d.Mode, d.Complete(), want[i].mode, want[i].complete)
		}
	}
}

func TestCommonStem(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"llama70b-prefill", "llama70b-decode", "llama70b-router"}, "llama70b"},
		{[]string{"abc1", "abc2"}, ""},
		{[]string{"qwen-a", "qwen2-b"}, ""},
		{[]string{"x-a", "x-b"}, ""},
		{[]string{"solo"}, "solo"},
		{[]string{"team.pd_prefill", "team.pd_decode"}, "team.pd"},
	} {
		if got := commonStem(tt.names); got != tt.want {
			t.Errorf("commonStem(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestGroupNeverPanics(t *testing.T) {
	odd := []*Server{
		srv("", "", "", RoleRouter, "--prefill", "8999 none :: http://[::1 http://:0", "--decode", "://", "--worker-urls", "%%%"),
		srv("", "", "", RoleRouter, "--service-discovery", "true", "--prefill-selector", "=x novalue", "--selector", ""),
		srv("", "kubernetes", "", RolePrefill),
	}
	ds := Group(odd, []Service{{Name: "", Selector: nil}})
	n := 0
	for _, d := range ds {
		n += len(d.Servers)
	}
	if n != len(odd) {
		t.Errorf("%d servers in deployments, want %d", n, len(odd))
	}
	if len(Group(nil, nil)) != 0 {
		t.Error("no servers: want no deployments")
	}
}

// FuzzGroup feeds arbitrary router flags and labels to the grouping: it must
// not panic and must put every server in exactly one deployment.
func FuzzGroup(f *testing.F) {
	f.Add("http://a:30000 8999 http://b.ns.svc:1 none", "http://c:2", "k=v", "a", "ns")
	f.Add("127.0.0.1:30000", "localhost", "pd_role=decode x=y", "pd_role", "")
	f.Add("::1", "http://[::1]:30001", "=", "", "")
	f.Fuzz(func(t *testing.T, prefill, decode, selector, label, ns string) {
		servers := []*Server{
			withNS(kube("a", "x.yaml", RolePrefill, Labels{label: "prefill", "app": ns}), ns),
			kube("b", "y.yaml", RoleDecode, Labels{"pd_role": "decode", "k": "v", "app": ns}),
			srv("s.sh:1", "shell", "s.sh", RoleDecode, "--port", decode),
			withNS(kube("lb", "z.yaml", RoleRouter, nil, "--prefill", prefill, "--decode", decode,
				"--service-discovery", "true", "--prefill-selector", selector, "--service-discovery-namespace", ns), ns),
			srv("s.sh:2", "shell", "s.sh", RoleRouter, "--prefill", prefill, "--worker-urls", decode),
		}
		ds := Group(servers, []Service{{Name: label, Namespace: ns, Selector: map[string]string{label: "prefill"}}})
		seen := map[*Server]int{}
		for _, d := range ds {
			if d.Name == "" {
				t.Errorf("deployment without a name: %v", groups(ds))
			}
			for _, s := range d.Servers {
				seen[s]++
			}
		}
		for _, s := range servers {
			if seen[s] != 1 {
				t.Errorf("%s is in %d deployments", s.Name, seen[s])
			}
		}
	})
}

func TestGroupPrefersTheRoutersDirectory(t *testing.T) {
	servers := []*Server{
		kube("llama-prefill/leader", "broken/p.yaml", RolePrefill, Labels{"app": "llama"}),
		kube("llama-decode/leader", "broken/d.yaml", RoleDecode, Labels{"app": "llama"}),
		kube("llama-router", "broken/r.yaml", RoleRouter, nil, "--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode:30000"),
		kube("llama-prefill/leader", "fixed/p.yaml", RolePrefill, Labels{"app": "llama"}),
		kube("llama-decode/leader", "fixed/d.yaml", RoleDecode, Labels{"app": "llama"}),
		kube("llama-router", "fixed/r.yaml", RoleRouter, nil, "--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode:30000"),
		kube("other-prefill", "x/p.yaml", RolePrefill, Labels{"app": "other"}),
		kube("other-decode", "y/d.yaml", RoleDecode, Labels{"app": "other"}),
	}
	got := groups(Group(servers, []Service{{Name: "llama-prefill", Selector: map[string]string{"app": "llama"}}}))
	want := []string{
		"llama(disaggregated): llama-prefill/leader, llama-decode/leader, llama-router",
		"llama#2(disaggregated): llama-prefill/leader, llama-decode/leader, llama-router",
		"other-prefill(disaggregated): other-prefill",
		"other-decode(disaggregated): other-decode",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
