package deploy_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// srv builds a server for the grouping tests: name, source, file and role,
// then flags as name/value pairs, parsed by the engine as the parsers do (a
// router's by sglang_router.launch_router, so its routes are the engine's).
// A value is split into words at spaces; "true" for a flag that takes no
// value means the flag alone; a value starting with "$(" is a placeholder.
func srv(name string, source deploy.Source, file string, role deploy.Role, args ...string) *deploy.Server {
	prog := engine.SGLangServer
	if role == deploy.RoleRouter {
		prog = engine.SGLangRouter
	}
	table := engine.Lookup(prog)
	var argv []deploy.Value
	for i := 0; i+1 < len(args); i += 2 {
		argv = append(argv, deploy.Known(args[i], deploy.Span{}))
		if f, ok := table.Flag(args[i]); ok && !f.TakesValue() && args[i+1] == "true" {
			continue
		}
		if strings.HasPrefix(args[i+1], "$(") {
			argv = append(argv, deploy.Unknown(args[i+1], deploy.Span{}))
			continue
		}
		for _, w := range strings.Fields(args[i+1]) {
			argv = append(argv, deploy.Known(w, deploy.Span{}))
		}
	}
	s, _ := engine.ServerFromLaunch(engine.Launch{Program: prog, Argv: argv}, nil)
	s.Name, s.Source, s.Span, s.Role = name, source, deploy.Span{File: file, Line: 1, Col: 1}, role
	return s
}

func kube(name, file string, role deploy.Role, labels deploy.Labels, args ...string) *deploy.Server {
	s := srv(name, "kubernetes", file, role, args...)
	s.Labels = labels
	return s
}

// groups renders deployments as "name(mode): member, member" for comparison.
func groups(ds []deploy.Deployment) []string {
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
		servers  []*deploy.Server
		services []deploy.Service
		want     []string
	}{
		{
			name: "router URLs name objects (LeaderWorkerSet), across files",
			servers: []*deploy.Server{
				kube("llama-prefill/leader", "p.yaml", deploy.RolePrefill, deploy.Labels{"app": "llama", "pd_role": "prefill"}),
				kube("llama-decode/leader", "d.yaml", deploy.RoleDecode, deploy.Labels{"app": "llama", "pd_role": "decode"}),
				kube("llama-router", "r.yaml", deploy.RoleRouter, nil, "--pd-disaggregation", "true",
					"--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode.inference.svc.cluster.local:30000"),
				kube("other", "o.yaml", deploy.RoleColocated, deploy.Labels{"app": "other"}),
			},
			want: []string{
				"llama(disaggregated): llama-prefill/leader, llama-decode/leader, llama-router",
				"other(colocated): other",
			},
		},
		{
			name: "router URLs through Services and their selectors",
			servers: []*deploy.Server{
				kube("p1", "pd.yaml", deploy.RolePrefill, deploy.Labels{"role": "p", "m": "a"}),
				kube("p2", "pd.yaml", deploy.RolePrefill, deploy.Labels{"role": "p", "m": "a"}),
				kube("d1", "pd.yaml", deploy.RoleDecode, deploy.Labels{"role": "d", "m": "a"}),
				kube("lb", "pd.yaml", deploy.RoleRouter, nil, "--pd-disaggregation", "true",
					"--prefill", "http://prefill-svc:30000 8999", "--decode", "http://decode-svc:30000"),
			},
			services: []deploy.Service{
				{Name: "prefill-svc", Selector: map[string]string{"role": "p", "m": "a"}},
				{Name: "decode-svc", Selector: map[string]string{"role": "d"}},
			},
			want: []string{"lb(disaggregated): p1, p2, d1, lb"},
		},
		{
			name: "a Service in another namespace does not match",
			servers: []*deploy.Server{
				withNS(kube("p", "a.yaml", deploy.RolePrefill, deploy.Labels{"r": "p"}), "team-a"),
				withNS(kube("lb", "b.yaml", deploy.RoleRouter, nil, "--prefill", "http://svc.team-b:30000"), "team-b"),
			},
			services: []deploy.Service{{Name: "svc", Namespace: "team-a", Selector: map[string]string{"r": "p"}}},
			want:     []string{"p(disaggregated): p", "lb(colocated): lb"},
		},
		{
			name: "service discovery selectors",
			servers: []*deploy.Server{
				kube("rbg/prefill", "rbg.yaml", deploy.RolePrefill, deploy.Labels{"pd_role": "prefill"}),
				kube("rbg/decode", "rbg.yaml", deploy.RoleDecode, deploy.Labels{"pd_role": "decode"}),
				kube("gw", "gw.yaml", deploy.RoleRouter, nil, "--pd-disaggregation", "true", "--service-discovery", "true",
					"--prefill-selector", "pd_role=prefill", "--decode-selector", "pd_role=decode"),
				kube("x", "x.yaml", deploy.RoleDecode, deploy.Labels{"pd_role": "other"}),
			},
			want: []string{"gw(disaggregated): rbg/prefill, rbg/decode, gw", "x(disaggregated): x"},
		},
		{
			name: "the roles of one object are one deployment",
			servers: []*deploy.Server{
				kube("dsv3/prefill", "rbg.yaml", deploy.RolePrefill, nil),
				kube("dsv3/decode", "rbg.yaml", deploy.RoleDecode, nil),
				kube("dsv3/router", "rbg.yaml", deploy.RoleRouter, nil),
			},
			want: []string{"dsv3(disaggregated): dsv3/prefill, dsv3/decode, dsv3/router"},
		},
		{
			name: "compose routers name services",
			servers: []*deploy.Server{
				srv("prefill", "compose", "pd/compose.yaml", deploy.RolePrefill),
				srv("decode", "compose", "pd/compose.yaml", deploy.RoleDecode),
				srv("router", "compose", "pd/compose.yaml", deploy.RoleRouter, "--pd-disaggregation", "true",
					"--prefill", "http://prefill:30000", "--decode", "http://decode:30001"),
				srv("prefill", "compose", "other/compose.yaml", deploy.RolePrefill),
				srv("prefill", "compose", "third/compose.yaml", deploy.RolePrefill),
			},
			want: []string{"pd(disaggregated): prefill, decode, router", "prefill(disaggregated): prefill", "prefill#2(disaggregated): prefill"},
		},
		{
			name: "a script's servers on localhost ports",
			servers: []*deploy.Server{
				srv("pd.sh:3", "shell", "pd.sh", deploy.RolePrefill, "--port", "30000"),
				srv("pd.sh:4", "shell", "pd.sh", deploy.RoleDecode, "--port", "30001"),
				srv("pd.sh:5", "shell", "pd.sh", deploy.RoleColocated, "--port", "30002"),
				srv("pd.sh:6", "shell", "pd.sh", deploy.RoleRouter, "--pd-disaggregation", "true",
					"--prefill", "http://127.0.0.1:30000", "--decode", "http://localhost:30001"),
			},
			want: []string{"pd.sh(disaggregated): pd.sh:3, pd.sh:4, pd.sh:6", "pd.sh:5(colocated): pd.sh:5"},
		},
		{
			name: "the default port is SGLang's 30000",
			servers: []*deploy.Server{
				srv("a.sh:1", "shell", "a.sh", deploy.RoleColocated),
				srv("a.sh:2", "shell", "a.sh", deploy.RoleRouter, "--worker-urls", "http://0.0.0.0:30000"),
			},
			want: []string{"a.sh(colocated): a.sh:1, a.sh:2"},
		},
		{
			name: "prefill and decode with no router: by file, then by app label",
			servers: []*deploy.Server{
				srv("s.sh:1", "shell", "s.sh", deploy.RolePrefill),
				srv("s.sh:2", "shell", "s.sh", deploy.RoleDecode),
				kube("mist-prefill", "p.yaml", deploy.RolePrefill, deploy.Labels{"app": "m"}),
				kube("mist-decode", "d.yaml", deploy.RoleDecode, deploy.Labels{"app": "m"}),
				kube("n-decode", "n.yaml", deploy.RoleDecode, deploy.Labels{"app": "n"}),
				kube("c1", "c.yaml", deploy.RoleColocated, deploy.Labels{"app": "m"}),
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
			servers: []*deploy.Server{
				kube("pool-prefill", "a.yaml", deploy.RolePrefill, nil),
				kube("pool-decode", "a.yaml", deploy.RoleDecode, nil),
				kube("lb-a", "b.yaml", deploy.RoleRouter, nil, "--prefill", "http://pool-prefill:1", "--decode", "http://pool-decode:1"),
				kube("lb-b", "c.yaml", deploy.RoleRouter, nil, "--prefill", "http://pool-prefill:1"),
			},
			want: []string{"lb-a(disaggregated): pool-prefill, pool-decode, lb-a, lb-b"},
		},
		{
			name: "placeholders and unknown hosts reach nothing",
			servers: []*deploy.Server{
				kube("p", "a.yaml", deploy.RolePrefill, nil),
				kube("lb", "b.yaml", deploy.RoleRouter, nil, "--decode", "http://elsewhere.example.com:80", "--prefill", "$(PREFILL_URL)"),
			},
			want: []string{"p(disaggregated): p", "lb(colocated): lb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := groups(deploy.Group(tt.servers, tt.services))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func withNS(s *deploy.Server, ns string) *deploy.Server {
	s.Namespace = ns
	return s
}

func TestGroupLinks(t *testing.T) {
	p := kube("pool-prefill", "a.yaml", deploy.RolePrefill, nil)
	d := kube("pool-decode", "a.yaml", deploy.RoleDecode, nil)
	lb := kube("lb", "b.yaml", deploy.RoleRouter, nil, "--prefill", "http://pool-prefill:30000 8999 http://gone:1 none http://pool-prefill-0.pool:2", "--decode", "http://pool-decode:30000")
	ds := deploy.Group([]*deploy.Server{p, d, lb}, nil)
	if len(ds) != 1 {
		t.Fatalf("want one deployment, got %v", groups(ds))
	}
	type link struct {
		role          deploy.Role
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
		{deploy.RolePrefill, "http://pool-prefill:30000", "8999", "name", 1, true},
		{deploy.RolePrefill, "http://gone:1", "none", "", 0, false},
		{deploy.RolePrefill, "http://pool-prefill-0.pool:2", "", "name", 1, true},
		{deploy.RoleDecode, "http://pool-decode:30000", "", "name", 1, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links\n got %+v\nwant %+v", got, want)
	}
	if !ds[0].Complete() {
		t.Error("prefill and decode: want complete")
	}
}

func TestCompleteAndModes(t *testing.T) {
	ds := deploy.Group([]*deploy.Server{
		srv("a.sh:1", "shell", "a.sh", deploy.RolePrefill),
		srv("b.sh:1", "shell", "b.sh", deploy.RoleColocated),
		srv("c.sh:1", "shell", "c.sh", deploy.RoleRouter, "--pd-disaggregation", "true"),
	}, nil)
	want := []struct {
		mode     deploy.Mode
		complete bool
	}{{deploy.ModeDisaggregated, false}, {deploy.ModeColocated, true}, {deploy.ModeDisaggregated, false}}
	for i, d := range ds {
		if d.Mode != want[i].mode || d.Complete() != want[i].complete {
			t.Errorf("%s: mode %s complete %v, want %s %v", d.Name, d.Mode, d.Complete(), want[i].mode, want[i].complete)
		}
	}
}

func TestGroupNeverPanics(t *testing.T) {
	odd := []*deploy.Server{
		srv("", "", "", deploy.RoleRouter, "--prefill", "8999 none :: http://[::1 http://:0", "--decode", "://", "--worker-urls", "%%%"),
		srv("", "", "", deploy.RoleRouter, "--service-discovery", "true", "--prefill-selector", "=x novalue", "--selector", ""),
		srv("", "kubernetes", "", deploy.RolePrefill),
	}
	ds := deploy.Group(odd, []deploy.Service{{Name: "", Selector: nil}})
	n := 0
	for _, d := range ds {
		n += len(d.Servers)
	}
	if n != len(odd) {
		t.Errorf("%d servers in deployments, want %d", n, len(odd))
	}
	if len(deploy.Group(nil, nil)) != 0 {
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
		servers := []*deploy.Server{
			withNS(kube("a", "x.yaml", deploy.RolePrefill, deploy.Labels{label: "prefill", "app": ns}), ns),
			kube("b", "y.yaml", deploy.RoleDecode, deploy.Labels{"pd_role": "decode", "k": "v", "app": ns}),
			srv("s.sh:1", "shell", "s.sh", deploy.RoleDecode, "--port", decode),
			withNS(kube("lb", "z.yaml", deploy.RoleRouter, nil, "--prefill", prefill, "--decode", decode,
				"--service-discovery", "true", "--prefill-selector", selector, "--service-discovery-namespace", ns), ns),
			srv("s.sh:2", "shell", "s.sh", deploy.RoleRouter, "--prefill", prefill, "--worker-urls", decode),
		}
		ds := deploy.Group(servers, []deploy.Service{{Name: label, Namespace: ns, Selector: map[string]string{label: "prefill"}}})
		seen := map[*deploy.Server]int{}
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
	servers := []*deploy.Server{
		kube("llama-prefill/leader", "broken/p.yaml", deploy.RolePrefill, deploy.Labels{"app": "llama"}),
		kube("llama-decode/leader", "broken/d.yaml", deploy.RoleDecode, deploy.Labels{"app": "llama"}),
		kube("llama-router", "broken/r.yaml", deploy.RoleRouter, nil, "--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode:30000"),
		kube("llama-prefill/leader", "fixed/p.yaml", deploy.RolePrefill, deploy.Labels{"app": "llama"}),
		kube("llama-decode/leader", "fixed/d.yaml", deploy.RoleDecode, deploy.Labels{"app": "llama"}),
		kube("llama-router", "fixed/r.yaml", deploy.RoleRouter, nil, "--prefill", "http://llama-prefill:30000", "--decode", "http://llama-decode:30000"),
		kube("other-prefill", "x/p.yaml", deploy.RolePrefill, deploy.Labels{"app": "other"}),
		kube("other-decode", "y/d.yaml", deploy.RoleDecode, deploy.Labels{"app": "other"}),
	}
	got := groups(deploy.Group(servers, []deploy.Service{{Name: "llama-prefill", Selector: map[string]string{"app": "llama"}}}))
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
