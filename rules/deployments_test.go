package rules

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	kvengine "github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers"
)

// incidentPD is the incident as kvlint groups it: prefill, decode (the
// decode of incidentDecode) and a router naming both.
func incidentPD(t *testing.T, tenancyDeclared bool, iso deploy.Isolation) ([]*deploy.Server, []capacity.Estimate, Settings) {
	t.Helper()
	dec, decEst := incidentDecode()
	dec.Name = "llama70b-decode/leader"
	dec.Source = "kubernetes"
	pre := &deploy.Server{
		Engine: deploy.EngineSGLang, Role: deploy.RolePrefill, Name: "llama70b-prefill/leader", Source: "kubernetes",
		Span:  span("examples/incident/prefill.yaml", 22, 44, "sglang.launch_server"),
		Image: deploy.Known("lmsysorg/sglang:v0.5.3", span("examples/incident/prefill.yaml", 21, 20, "lmsysorg/sglang:v0.5.3")),
		Args: map[string]deploy.Value{
			"--model-path":          arg("examples/incident/prefill.yaml", 25, 17, "meta-llama/Llama-3.1-70B-Instruct"),
			"--disaggregation-mode": arg("examples/incident/prefill.yaml", 31, 17, "prefill"),
			"--page-size":           arg("examples/incident/prefill.yaml", 35, 17, "64"),
		},
		Model: arg("examples/incident/prefill.yaml", 25, 17, "meta-llama/Llama-3.1-70B-Instruct"),
	}
	preEst := decEst
	preEst.PoolUpperBound = nil
	const rf = "examples/incident/router.yaml"
	rtr, _ := kvengine.ServerFromLaunch(kvengine.Launch{
		Program: kvengine.SGLangRouter,
		Command: arg(rf, 22, 15, "sglang_router.launch_router"),
		Argv: []deploy.Value{
			arg(rf, 23, 15, "--pd-disaggregation"),
			arg(rf, 24, 15, "--prefill"), arg(rf, 25, 15, "http://llama70b-prefill:30000"),
			arg(rf, 26, 15, "--decode"), arg(rf, 27, 15, "http://llama70b-decode:30000"),
		},
	}, nil)
	rtr.Name, rtr.Source = "llama70b-router", "kubernetes"
	servers := []*deploy.Server{pre, dec, rtr}
	ds := deploy.Group(servers, nil)
	for i := range ds {
		ds[i].Tenancy, ds[i].TenancyDeclared, ds[i].Isolation = deploy.TenancyMulti, tenancyDeclared, iso
	}
	return servers, []capacity.Estimate{preEst, decEst, {}}, Settings{Tenancy: deploy.TenancyMulti, Deployments: ds}
}

func TestIncidentInItsDeployment(t *testing.T) {
	none := deploy.DefaultIsolation()
	tests := []struct {
		name     string
		declared bool
		iso      deploy.Isolation
		want     []string // rule severity server
	}{
		{"declared multi-tenant: KV101 critical plus KV301", true, none,
			[]string{"KV101 critical 1", "KV104 high 1", "KV301 high 0"}},
		{"assumed multi-tenant: KV101 stays high, KV301 medium", false, none,
			[]string{"KV101 high 1", "KV104 high 1", "KV301 medium 0"}},
		{"gateway salt on a release that drops it: KV304 at the image", true,
			deploy.Isolation{CacheSalt: deploy.CacheSaltGateway, ExternalKV: deploy.ExternalKVShared},
			[]string{"KV101 critical 1", "KV104 high 1", "KV304 high 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, est, s := incidentPD(t, tt.declared, tt.iso)
			findings, err := engine(t).Evaluate(context.Background(), servers, est, s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range findings {
				if f.Rule == "KV105" {
					continue // the fixture's capacity is partial; KV105 says so
				}
				got = append(got, fmt.Sprintf("%s %s %d", f.Rule, f.Severity, f.Server))
				if f.Rule == "KV304" && f.Span != servers[0].Image.Span {
					t.Errorf("KV304 at %v, want the image at %v", f.Span, servers[0].Image.Span)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDeploymentsInput(t *testing.T) {
	servers, est, s := incidentPD(t, true, deploy.Isolation{CacheSalt: deploy.CacheSaltClient, ExternalKV: deploy.ExternalKVNamespaced})
	doc := inputJSON(t, servers, est, s)
	ds := doc["deployments"].([]any)
	if len(ds) != 1 {
		t.Fatalf("deployments %v", ds)
	}
	d := ds[0].(map[string]any)
	want := map[string]any{
		"index": 0.0, "name": "llama70b", "mode": "disaggregated", "complete": true,
		"tenancy": "multi", "tenancy_declared": true,
		"isolation": map[string]any{"cache_salt": "client", "per_tenant_deployments": false, "external_kv": "namespaced"},
		"servers":   []any{0.0, 1.0, 2.0}, "prefill": []any{0.0}, "decode": []any{1.0}, "routers": []any{2.0},
		"links": []any{
			map[string]any{"router": 2.0, "role": "prefill", "target": "http://llama70b-prefill:30000", "bootstrap_port": "", "discovery": false, "match": "name", "servers": []any{0.0}},
			map[string]any{"router": 2.0, "role": "decode", "target": "http://llama70b-decode:30000", "bootstrap_port": "", "discovery": false, "match": "name", "servers": []any{1.0}},
		},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("deployment\n got %v\nwant %v", d, want)
	}
	for i, raw := range doc["servers"].([]any) {
		srv := raw.(map[string]any)
		if srv["deployment"] != 0.0 {
			t.Errorf("server %d deployment %v", i, srv["deployment"])
		}
	}
	if img := doc["servers"].([]any)[0].(map[string]any)["image"]; !reflect.DeepEqual(img, map[string]any{"value": "lmsysorg/sglang:v0.5.3", "known": true, "typed": nil}) {
		t.Errorf("image %v", img)
	}
	if mla := doc["servers"].([]any)[1].(map[string]any)["mla"]; mla != false {
		t.Errorf("Llama 3.1 70B: mla %v, want false", mla)
	}
	if ep := doc["servers"].([]any)[0].(map[string]any)["entrypoint"]; ep != nil {
		t.Errorf("a command written whole: entrypoint %v, want null", ep)
	}
}

func TestEntrypointInput(t *testing.T) {
	servers, est, s := incidentPD(t, true, deploy.Isolation{})
	servers[1].Entrypoint = &deploy.ImageEntrypoint{Image: "registry.corp/sgl:1", Words: []string{"python3", "-m", "sglang.launch_server"}, Source: ".kvlint.yaml:4"}
	doc := inputJSON(t, servers, est, s)
	want := map[string]any{"image": "registry.corp/sgl:1", "words": []any{"python3", "-m", "sglang.launch_server"},
		"source": ".kvlint.yaml:4", "release": nil, "floating": false}
	if ep := doc["servers"].([]any)[1].(map[string]any)["entrypoint"]; !reflect.DeepEqual(ep, want) {
		t.Errorf("entrypoint\n got %v\nwant %v", ep, want)
	}
}

func TestDeploymentsInputRejectsBadGroupings(t *testing.T) {
	a := &deploy.Server{Engine: deploy.EngineSGLang, Name: "a"}
	b := &deploy.Server{Engine: deploy.EngineSGLang, Name: "b"}
	stranger := &deploy.Server{Name: "stranger"}
	tests := []struct {
		name string
		ds   []deploy.Deployment
		want string
	}{
		{"a server left out", []deploy.Deployment{{Name: "x", Servers: []*deploy.Server{a}}}, "in no deployment"},
		{"a server twice", []deploy.Deployment{{Name: "x", Servers: []*deploy.Server{a, b}}, {Name: "y", Servers: []*deploy.Server{b}}}, "in deployments 0 and 1"},
		{"a server not evaluated", []deploy.Deployment{{Name: "x", Servers: []*deploy.Server{a, b, stranger}}}, "not among the servers"},
		{"a link from elsewhere", []deploy.Deployment{{Name: "x", Servers: []*deploy.Server{a, b}, Links: []deploy.Link{{Router: stranger}}}}, "link from a router"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := engine(t).Evaluate(context.Background(), []*deploy.Server{a, b}, make([]capacity.Estimate, 2), Settings{Deployments: tt.ds})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// The schema describes grouped deployments too: the examples, grouped the
// way kvlint check groups them, validate.
func TestInputSchemaValidatesGroupedExamples(t *testing.T) {
	schema := compiledInputSchema(t)
	files, errs := parsers.Discover([]string{"../examples"}, nil)
	if len(errs) > 0 {
		t.Fatalf("discovering the examples: %v", errs)
	}
	p := parsers.ParseFileSet(files)
	est := make([]capacity.Estimate, len(p.Servers))
	for i, s := range p.Servers {
		est[i] = capacity.EstimateServer(s, capacity.Options{Catalog: capacity.Default()})
	}
	ds := deploy.Group(p.Servers, p.Services)
	linked := false
	for i := range ds {
		ds[i].Tenancy, ds[i].Isolation = deploy.TenancyMulti, deploy.DefaultIsolation()
		linked = linked || len(ds[i].Links) > 0
	}
	if !linked {
		t.Fatal("no router links among the examples: the schema of links is not exercised")
	}
	if err := schema.Validate(schemaInput(t, p.Servers, est, Settings{Tenancy: deploy.TenancyMulti, Deployments: ds})); err != nil {
		t.Error(err)
	}
}
