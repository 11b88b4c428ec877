package verify

import (
	"strings"
	"testing"
)

// An audit that sees no cross-tenant difference is read by its controls:
// isolation only with the server's own hit seen and the power to see it;
// with the hit seen but too little power, it says the power was low (not
// that the hit was missing).
func TestEndpointVerdictReadsTheControls(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  EndpointReport
		want string
	}{
		{"drift", EndpointReport{Control: KSTest{Significant: true}, Significant: true}, "A/A control is significant"},
		{"shared", EndpointReport{Significant: true, PositiveControl: KSTest{Significant: true}, Power: 0.9}, "shared across tenants"},
		{"isolated", EndpointReport{PositiveControl: KSTest{Significant: true}, Power: 0.95}, "no cross-tenant sharing seen, with the power shown"},
		{"low power", EndpointReport{PositiveControl: KSTest{Significant: true}, Power: 0.42}, "only 42% of the time (power below 0.80): too few samples"},
		{"no power figure", EndpointReport{PositiveControl: KSTest{Significant: true}}, "power could not be computed"},
		{"no hit", EndpointReport{Power: 0.95}, "was not measurably faster either"},
	} {
		if got := endpointVerdict(&tc.rep); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
