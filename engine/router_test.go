package engine

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// TestRouterRoutes: the router's routes come from its typed flags.
func TestRouterRoutes(t *testing.T) {
	cmd := "python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:1 8998 --prefill http://q:2 none --prefill http://r:3 --decode http://d:4 --service-discovery --service-discovery-namespace team --prefill-selector app=x role=p --decode-selector bad"
	s, _, ok := Server(line(cmd), nil)
	if !ok {
		t.Fatal("no launch detected")
	}
	want := []deploy.Route{
		{Role: deploy.RolePrefill, Target: "http://p:1", BootstrapPort: "8998"},
		{Role: deploy.RolePrefill, Target: "http://q:2", BootstrapPort: "none"},
		{Role: deploy.RolePrefill, Target: "http://r:3"},
		{Role: deploy.RoleDecode, Target: "http://d:4"},
		{Role: deploy.RolePrefill, Target: "app=x role=p", Discovery: true, Selector: map[string]string{"app": "x", "role": "p"}, Namespace: "team"},
		{Role: deploy.RoleDecode, Target: "bad", Discovery: true, Namespace: "team"},
	}
	if len(s.Routes) != len(want) {
		t.Fatalf("routes %+v, want %+v", s.Routes, want)
	}
	for i := range want {
		got, w := s.Routes[i], want[i]
		if got.Role != w.Role || got.Target != w.Target || got.BootstrapPort != w.BootstrapPort || got.Discovery != w.Discovery || got.Namespace != w.Namespace || len(got.Selector) != len(w.Selector) {
			t.Errorf("route %d: %+v, want %+v", i, got, w)
			continue
		}
		for k, v := range w.Selector {
			if got.Selector[k] != v {
				t.Errorf("route %d: selector %v, want %v", i, got.Selector, w.Selector)
			}
		}
	}
	// Without --service-discovery the selectors name nothing.
	s, _, _ = Server(line("python -m sglang_router.launch_router --prefill-selector app=x --worker-urls http://w:1 http://w:2"), nil)
	if len(s.Routes) != 2 || s.Routes[0].Target != "http://w:1" || s.Routes[1].Target != "http://w:2" || s.Routes[0].Role != "" {
		t.Errorf("routes %+v, want the two workers", s.Routes)
	}
}
