package rules

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kvlint/kvlint/diag"
)

// The rules whose findings stop a server from starting, and from which
// severity: what the text report's "cannot start" list is made of.
func TestStopsStartMetadata(t *testing.T) {
	e, err := testEngine()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]diag.Severity{
		"KV103": diag.SeverityInfo, // the engine raises while sizing the pool
		"KV401": diag.SeverityInfo, // argparse: unrecognized arguments
		"KV405": diag.SeverityInfo, // argparse: invalid value; ServerArgs checks
		"KV402": diag.SeverityHigh, // ambiguous option only, not an abbreviation
		"KV404": diag.SeverityHigh, // removed flag only, not a deprecated alias
		"KV209": diag.SeverityHigh, // removed --disaggregation-* flag only
	}
	assumes := map[string]bool{"KV301": true, "KV302": true, "KV303": true}
	for _, r := range e.Rules() {
		if r.StopsStart != want[r.ID] {
			t.Errorf("%s: StopsStart %v, want %v", r.ID, r.StopsStart, want[r.ID])
		}
		if got := r.Assumes == AssumesTenancy; got != assumes[r.ID] {
			t.Errorf("%s: Assumes %q", r.ID, r.Assumes)
		}
	}
	kv404 := Rule{ID: "KV404", StopsStart: diag.SeverityHigh}
	if kv404.Stops(diag.Diagnostic{Rule: "KV404", Severity: "low"}) {
		t.Error("a deprecated alias (low) stops the server")
	}
	if !kv404.Stops(diag.Diagnostic{Rule: "KV404", Severity: "high"}) {
		t.Error("a removed flag (high) does not stop the server")
	}
	if (Rule{ID: "KV101"}).Stops(diag.Diagnostic{Rule: "KV101", Severity: "critical"}) {
		t.Error("a rule without stops_start stops the server")
	}
}

func TestTriageMetadataValues(t *testing.T) {
	tests := []struct {
		name, custom string
		stops        diag.Severity
		assumes      string
		wantErr      string
	}{
		{"stops always", "#   stops_start: true\n", diag.SeverityInfo, "", ""},
		{"stops never", "#   stops_start: false\n", 0, "", ""},
		{"stops from high", "#   stops_start: high\n", diag.SeverityHigh, "", ""},
		{"stops bad severity", "#   stops_start: fatal\n", 0, "", "custom.stops_start"},
		{"stops a number", "#   stops_start: 3\n", 0, "", "custom.stops_start"},
		{"assumes tenancy", "#   assumes: tenancy\n", 0, AssumesTenancy, ""},
		{"assumes something else", "#   assumes: gpu\n", 0, "", "custom.assumes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(goodRule, "#   severity: medium\n", "#   severity: medium\n"+tt.custom, 1)
			file := "policies/x/good.rego"
			set, err := parsePolicies(fstest.MapFS{file: {Data: []byte(src)}}, "policies")
			if err != nil {
				t.Fatal(err)
			}
			r, err := ruleFromModule(file, set.modules[file])
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.StopsStart != tt.stops || r.Assumes != tt.assumes {
				t.Errorf("StopsStart %v Assumes %q, want %v %q", r.StopsStart, r.Assumes, tt.stops, tt.assumes)
			}
		})
	}
}
