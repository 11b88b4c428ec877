package sarif

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaEnv names the OASIS SARIF 2.1.0 JSON schema on disk. The schema is
// the OASIS committee's file, not kvlint's, so it is not in the repository:
// CI (.ci/run) points this at the shared copy.
const schemaEnv = "KVLINT_SARIF_SCHEMA"

// TestSchema validates every log of the corpus against the OASIS schema,
// with format assertions on (uri, uri-reference, date-time), which
// upload-sarif does not do for us.
func TestSchema(t *testing.T) {
	path := os.Getenv(schemaEnv)
	if path == "" {
		t.Skipf("%s is not set: set it to the OASIS sarif-schema-2.1.0.json to validate kvlint's SARIF against it (.ci/run does)", schemaEnv)
	}
	schema := compileSchema(t, path)
	logs := corpus(t)
	for _, name := range slices.Sorted(maps.Keys(logs)) {
		t.Run(name, func(t *testing.T) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(logs[name]))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("not valid SARIF 2.1.0:\n%v", err)
			}
		})
	}
}

// TestSchemaRejects makes sure the validation can fail: a log with a null
// property and a bad URI is not valid.
func TestSchemaRejects(t *testing.T) {
	path := os.Getenv(schemaEnv)
	if path == "" {
		t.Skipf("%s is not set", schemaEnv)
	}
	schema := compileSchema(t, path)
	s := newSynthetic(t)
	t.Chdir(repoRoot)
	good := string(encode(t, s.log))
	for name, bad := range map[string]string{
		"null suppression status": strings.Replace(good, `"status": "accepted"`, `"status": null`, 1),
		"level not an enum":       strings.Replace(good, `"level": "error"`, `"level": "fatal"`, 1),
		"bad guid":                strings.Replace(good, `"guid": "`, `"guid": "x`, 1),
		"uri with a backslash":    strings.Replace(good, `"uri": "my%20chart/`, `"uri": "my%20chart\\\\`, 1),
	} {
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s=%s: %v", schemaEnv, path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var head struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(data, &head)
	id := head.ID
	if id == "" {
		id = "file:///sarif-schema-2.1.0.json"
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return schema
}
