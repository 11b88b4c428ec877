package deploy

import (
	"encoding/json"
	"testing"
)

func TestSourceGrouping(t *testing.T) {
	for _, tc := range []struct {
		s                    Source
		cluster, compose, ob bool
	}{
		{SourceShell, false, false, false},
		{SourceDockerfile, false, false, false},
		{SourceCompose, false, true, true},
		{SourceKubernetes, true, false, true},
		{SourceHelm, true, false, true},
		{SourceHelmValues, true, false, true},
		{SourceTerraform, true, false, true},
	} {
		if tc.s.InCluster() != tc.cluster || tc.s.InCompose() != tc.compose || tc.s.NamedByObject() != tc.ob {
			t.Errorf("%s: InCluster %v, InCompose %v, NamedByObject %v", tc.s, tc.s.InCluster(), tc.s.InCompose(), tc.s.NamedByObject())
		}
	}
}

// The Rego input and the JSON report carry the source by name.
func TestSourceJSON(t *testing.T) {
	data, err := json.Marshal(Server{Source: SourceHelmValues})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back["source"] != "helm-values" {
		t.Errorf("source serialized as %v", back["source"])
	}
}
