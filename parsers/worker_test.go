package parsers

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// TestWireRoundTrip: what a worker sends back (servers with typed values,
// spans and origins; diagnostics) decodes to what it was.
func TestWireRoundTrip(t *testing.T) {
	span := deploy.Span{File: "chart/templates/d.yaml", Line: 3, Col: 5, EndLine: 3, EndCol: 9}
	v := deploy.Value{Raw: "0.9", Known: true, Typed: deploy.TypedFloat(0.9), Span: span,
		Origin: deploy.Origin{{Kind: deploy.StepValuesFile, Span: span}, {Kind: deploy.StepSet, Text: "a=b", Inferred: true}}}
	obj := deploy.TypedObject(deploy.Member{Key: "b", Value: deploy.TypedList(deploy.TypedInt(-3), deploy.TypedNull())},
		deploy.Member{Key: "a", Value: deploy.TypedObject()}, deploy.Member{Key: "c", Value: deploy.TypedList()})
	srv := &deploy.Server{
		Engine: deploy.EngineVLLM, Role: deploy.RoleColocated, Name: "x", Source: deploy.SourceHelm, Span: span,
		Args: map[string]deploy.Value{
			"--gpu-memory-utilization": v,
			"--json":                   {Raw: "{}", Known: true, Typed: obj, Span: span},
			"--flag":                   {Raw: "true", Known: true, Typed: deploy.TypedBool(true)},
			"--unknown":                {Raw: "${X}", Span: span},
			"--str":                    {Raw: "s", Known: true, Typed: deploy.TypedString("s\x00é")},
		},
		Positionals: []deploy.Value{v},
		ArgLists:    map[string][][]deploy.Value{"--x": {{v, v}}},
		Routes:      []deploy.Route{{Role: deploy.RolePrefill, Target: "http://p:1", Selector: map[string]string{"a": "b"}}},
		Model:       v, Image: deploy.Known("vllm/vllm-openai:v0.8.5", span),
		Labels:     deploy.Labels{"app": "x"},
		Entrypoint: &deploy.ImageEntrypoint{Image: "i", Words: []string{"vllm", "serve"}, Source: "s"},
	}
	in := parseResponse{
		Servers:    []*deploy.Server{srv},
		Services:   []deploy.Service{{Name: "svc", Selector: map[string]string{"app": "x"}, Span: span}},
		Errors:     []*diag.Diagnostic{diag.Errorf(span, "bad %s", "thing")},
		Unanalysed: []Unanalysed{{Span: span, Kind: UnanalysedTerraformModule, Name: "vpc", Source: "terraform-aws-modules/vpc/aws"}},
		Files:      []wireFile{{Name: "chart/values.yaml", Data: []byte("a: 1\n"), Syntax: 1}},
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&in); err != nil {
		t.Fatal(err)
	}
	var out parseResponse
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the response:\n got %#v\nwant %#v", out.Servers[0], in.Servers[0])
	}
	got, _ := out.Servers[0].Args["--json"].Typed.Object()
	if len(got) != 3 || got[0].Key != "b" {
		t.Errorf("object members out of order: %v", got)
	}
}
