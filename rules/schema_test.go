package rules

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers"
)

func compiledInputSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(InputSchema()))
	if err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("input.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("input.schema.json")
	if err != nil {
		t.Fatalf("compiling the schema: %v", err)
	}
	return s
}

// schemaInput is the input document as a JSON value of the validator.
func schemaInput(t *testing.T, servers []*deploy.Server, est []capacity.Estimate, s Settings) any {
	t.Helper()
	v, err := buildInput(servers, est, s)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(v.String()))
	if err != nil {
		t.Fatalf("input is not JSON: %v", err)
	}
	return doc
}

// TestInputSchemaValidatesRealDocuments builds the input of the repository's
// examples, the way kvlint check does, and validates it.
func TestInputSchemaValidatesRealDocuments(t *testing.T) {
	schema := compiledInputSchema(t)
	files, errs := parsers.Discover([]string{"../examples"}, nil)
	if len(errs) > 0 {
		t.Fatalf("discovering the examples: %v", errs)
	}
	servers, _ := parsers.ParseFiles(files)
	if len(servers) < 3 {
		t.Fatalf("only %d servers in the examples", len(servers))
	}
	est := make([]capacity.Estimate, len(servers))
	for i, s := range servers {
		est[i] = capacity.EstimateServer(s, capacity.Options{Catalog: capacity.Default(), GPU: "H100-80GB"})
	}
	for _, settings := range []Settings{{}, {Tenancy: deploy.TenancyMulti, ExpectedConcurrency: 8}} {
		if err := schema.Validate(schemaInput(t, servers, est, settings)); err != nil {
			t.Errorf("settings %+v: %v", settings, err)
		}
	}
	// And a server about which nothing is known.
	bare := []*deploy.Server{{Engine: deploy.EngineSGLang, Name: "x", FlagIssues: []deploy.FlagIssue{{Kind: deploy.FlagUnknown, Flag: "--x"}}}}
	if err := schema.Validate(schemaInput(t, bare, []capacity.Estimate{{}}, Settings{})); err != nil {
		t.Errorf("bare server: %v", err)
	}
	// And one whose image supplied its program.
	srv, e := incidentDecode()
	srv.Entrypoint = &deploy.ImageEntrypoint{Image: "vllm/vllm-openai:v0.8.5", Words: []string{"vllm", "serve"}, Source: "seed", Release: "0.8.5", Floating: true}
	if err := schema.Validate(schemaInput(t, []*deploy.Server{srv}, []capacity.Estimate{e}, Settings{})); err != nil {
		t.Errorf("server with an image entrypoint: %v", err)
	}
}

// The schema is not vacuous: documents of the wrong shape fail.
func TestInputSchemaRejectsWrongDocuments(t *testing.T) {
	schema := compiledInputSchema(t)
	srv, est := incidentDecode()
	good := schemaInput(t, []*deploy.Server{srv}, []capacity.Estimate{est}, Settings{})
	raw, _ := json.Marshal(good)
	for _, edit := range []struct{ old, new string }{
		{`"pool_upper_bound":65536`, `"pool_upper_bound":"65536"`},
		{`"engine":"sglang"`, `"engine":"tgi"`},
		{`"known":true`, `"known":"yes"`},
		{`"servers":[`, `"extra":1,"servers":[`},
	} {
		if !bytes.Contains(raw, []byte(edit.old)) {
			t.Fatalf("%s is not in the document %s", edit.old, raw)
		}
		bad, err := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.Replace(raw, []byte(edit.old), []byte(edit.new), 1)))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(bad) == nil {
			t.Errorf("the schema accepted %s", edit.new)
		}
	}
}
