package rules

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// inputJSON builds the input document and returns it as plain JSON values.
func inputJSON(t *testing.T, servers []*deploy.Server, est []capacity.Estimate, s Settings) map[string]any {
	t.Helper()
	v, err := buildInput(servers, est, s)
	if err != nil {
		t.Fatal(err)
	}
	x, err := ast.JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	// Through encoding/json so numbers compare the way json.Unmarshal gives them.
	data, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCapacityMatchesItsJSON checks that the capacity object is exactly the
// JSON of capacity.Estimate (the contract of `kvlint capacity`): every field
// is set to a non-zero value, so omitempty drops nothing, and compared.
func TestCapacityMatchesItsJSON(t *testing.T) {
	var est capacity.Estimate
	fillNonZero(t, reflect.ValueOf(&est).Elem())
	doc := inputJSON(t, []*deploy.Server{{Engine: deploy.EngineSGLang}}, []capacity.Estimate{est}, Settings{})
	got := doc["servers"].([]any)[0].(map[string]any)["capacity"]

	data, err := json.Marshal(est)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("capacity in the input\n got %v\nwant %v", got, want)
	}
}

// fillNonZero sets every field of a struct to a non-zero value of its type.
func fillNonZero(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("s" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64, reflect.Int32:
			f.SetInt(int64(7 + i))
		case reflect.Float64:
			f.SetFloat(0.5 + float64(i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			switch p.Elem().Kind() {
			case reflect.Int64, reflect.Int:
				p.Elem().SetInt(int64(1000 + i))
			case reflect.Float64:
				p.Elem().SetFloat(0.25 + float64(i))
			default:
				t.Fatalf("fillNonZero: pointer to %s", p.Elem().Kind())
			}
			f.Set(p)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String {
				t.Fatalf("fillNonZero: slice of %s", f.Type().Elem().Kind())
			}
			f.Set(reflect.ValueOf([]string{"x", "y"}))
		default:
			t.Fatalf("fillNonZero: field %s of kind %s", v.Type().Field(i).Name, f.Kind())
		}
	}
}

func TestInputDocument(t *testing.T) {
	srv := &deploy.Server{
		Engine: deploy.EngineSGLang, Role: deploy.RolePrefill, Name: "prefill-0", Source: "kubernetes",
		Span: span("k8s/prefill.yaml", 20, 9, "sglang.launch_server"),
		Args: map[string]deploy.Value{
			"--tp-size":       typedArg("k8s/prefill.yaml", 22, 11, "8", deploy.TypedInt(8)),
			"--cuda-graph-bs": typedArg("k8s/prefill.yaml", 25, 11, "1 2", deploy.TypedList(deploy.TypedInt(1), deploy.TypedInt(2))),
			"--json-model-override-args": typedArg("k8s/prefill.yaml", 26, 11, `{"a":{"b":0.5}}`,
				deploy.TypedObject(deploy.Member{Key: "a", Value: deploy.TypedObject(deploy.Member{Key: "b", Value: deploy.TypedFloat(0.5)})})),
			"--enable-dp-attention": typedArg("k8s/prefill.yaml", 27, 11, "true", deploy.TypedBool(true)),
			"--max-total-tokens":    deploy.Unknown("{{ .Values.maxTokens }}", span("k8s/prefill.yaml", 23, 11, "{{ .Values.maxTokens }}")),
		},
		Opaque: []deploy.Value{deploy.Unknown("$EXTRA_ARGS", span("k8s/prefill.yaml", 24, 11, "$EXTRA_ARGS"))},
		FlagIssues: []deploy.FlagIssue{
			{Kind: deploy.FlagAbbreviated, Flag: "--tp-size", Written: "--tp", Message: "m", Span: span("k8s/prefill.yaml", 22, 5, "--tp")},
			{Kind: deploy.FlagUnknown, Flag: "--foo", Written: "--foo", Suggestion: "--food"},
		},
		Model:    arg("k8s/prefill.yaml", 21, 11, "org/model"),
		Replicas: deploy.Unknown("{{ .Values.replicas }}", span("k8s/prefill.yaml", 8, 13, "{{ .Values.replicas }}")),
	}
	doc := inputJSON(t, []*deploy.Server{srv}, make([]capacity.Estimate, 1), Settings{Tenancy: deploy.TenancyMulti, ExpectedConcurrency: 16})

	wantSettings := map[string]any{"tenancy": "multi", "expected_concurrency": 16.0}
	if !reflect.DeepEqual(doc["settings"], wantSettings) {
		t.Errorf("settings %v, want %v", doc["settings"], wantSettings)
	}
	s := doc["servers"].([]any)[0].(map[string]any)
	capObj := s["capacity"].(map[string]any)
	delete(s, "capacity")
	want := map[string]any{
		"index": 0.0, "engine": "sglang", "role": "prefill", "name": "prefill-0",
		"file": "k8s/prefill.yaml", "line": 20.0,
		"args": map[string]any{
			"--tp-size":                  map[string]any{"value": "8", "known": true, "typed": 8.0},
			"--cuda-graph-bs":            map[string]any{"value": "1 2", "known": true, "typed": []any{1.0, 2.0}},
			"--json-model-override-args": map[string]any{"value": `{"a":{"b":0.5}}`, "known": true, "typed": map[string]any{"a": map[string]any{"b": 0.5}}},
			"--enable-dp-attention":      map[string]any{"value": "true", "known": true, "typed": true},
			"--max-total-tokens":         map[string]any{"value": "{{ .Values.maxTokens }}", "known": false, "typed": nil},
		},
		"opaque_args": true,
		"opaque":      []any{"$EXTRA_ARGS"},
		"model":       map[string]any{"value": "org/model", "known": true, "typed": nil},
		"gpu":         nil,
		"replicas":    nil, // a placeholder is never read as a number
		"flag_issues": []any{
			map[string]any{"index": 0.0, "kind": "abbreviated", "flag": "--tp-size", "written": "--tp", "message": "m", "suggestion": ""},
			map[string]any{"index": 1.0, "kind": "unknown", "flag": "--foo", "written": "--foo", "message": "", "suggestion": "--food"},
		},
		"deployment": 0.0, // alone: no Settings.Deployments
		"image":      nil,
		"entrypoint": nil,
		"mla":        nil, // the model is not in the catalog
		// Not resolved (the pipeline's step): every string unknown, null.
		"release": map[string]any{"version": nil, "source": nil, "floating": false, "judged": nil, "judged_commit": nil, "upgrade": false, "from": nil},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("server\n got %v\nwant %v", s, want)
	}
	// An empty estimate: unknowns are null, lists are empty, never null.
	for _, key := range []string{"pool_tokens", "pool_upper_bound", "context_length", "kv_budget_bytes", "mem_fraction_static"} {
		if v, ok := capObj[key]; !ok || v != nil {
			t.Errorf("capacity.%s = %v (present %v), want null", key, v, ok)
		}
	}
	for _, key := range []string{"missing", "assumptions", "derivation"} {
		if l, ok := capObj[key].([]any); !ok || len(l) != 0 {
			t.Errorf("capacity.%s = %#v, want []", key, capObj[key])
		}
	}
}

func TestInputDefaults(t *testing.T) {
	doc := inputJSON(t, []*deploy.Server{{Engine: deploy.EngineVLLM, Replicas: deploy.Known("3", deploy.Span{})}}, make([]capacity.Estimate, 1), Settings{})
	if got := doc["settings"].(map[string]any)["expected_concurrency"]; got != nil {
		t.Errorf("expected_concurrency %v, want null when not declared", got)
	}
	s := doc["servers"].([]any)[0].(map[string]any)
	if s["replicas"] != 3.0 || s["opaque_args"] != false {
		t.Errorf("replicas %v, opaque_args %v", s["replicas"], s["opaque_args"])
	}
	if l := s["flag_issues"].([]any); len(l) != 0 {
		t.Errorf("flag_issues %v, want []", l)
	}
	if a := s["args"].(map[string]any); len(a) != 0 {
		t.Errorf("args %v, want {}", a)
	}
}
