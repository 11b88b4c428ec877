package verify

import (
	"slices"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

func depOn(versions ...string) deploy.Deployment {
	var d deploy.Deployment
	for _, v := range versions {
		d.Servers = append(d.Servers, &deploy.Server{Engine: deploy.EngineSGLang, Release: deploy.Release{Version: v, Source: "image v" + v}})
	}
	return d
}

// TestReleaseDecidesTheEnginePaths: each path belongs to the releases the source shows it
// in, and a boundary not read in the source says so.
func TestReleaseDecidesTheEnginePaths(t *testing.T) {
	all := []rt.Mechanism{rt.MechAbortStillTransfers, rt.MechReleaseInFlight, rt.MechUncheckedRoom, rt.MechSaltDropped}
	for _, tc := range []struct {
		versions []string
		judged   string
		want     []rt.Mechanism
		inferred bool
	}{
		// Before 20fd53b8f (first in 0.4.7) an aborted request was not queued for transfer.
		{[]string{"0.4.6"}, "0.4.6", []rt.Mechanism{rt.MechReleaseInFlight, rt.MechUncheckedRoom, rt.MechSaltDropped}, false},
		{[]string{"0.5.3"}, "0.5.3", all, false},
		{[]string{"0.5.6.post2"}, "0.5.6.post2", all, false},
		// 0.5.13 passes the salt (c396e4924), as its README says: an inferred boundary.
		{[]string{"0.5.13"}, "0.5.13", []rt.Mechanism{rt.MechAbortStillTransfers, rt.MechReleaseInFlight, rt.MechUncheckedRoom}, true},
		// Servers that disagree are modelled at the oldest.
		{[]string{"0.5.13", "0.5.3"}, "0.5.3", all, false},
		// Unknown: main as mirrored, which has #17430 and #23300.
		{nil, "main", []rt.Mechanism{rt.MechAbortStillTransfers, rt.MechReleaseInFlight}, false},
		{[]string{""}, "main", []rt.Mechanism{rt.MechAbortStillTransfers, rt.MechReleaseInFlight}, false},
	} {
		er := releaseOf(depOn(tc.versions...))
		if er.Judged != tc.judged || !slices.Equal(er.Mechanisms(), tc.want) || (len(er.Inferred) > 0) != tc.inferred {
			t.Errorf("%v: judged %s, paths %v, inferred %v; want %s, %v, inferred %v", tc.versions, er.Judged, er.Mechanisms(), er.Inferred, tc.judged, tc.want, tc.inferred)
		}
	}
	for _, p := range enginePaths {
		if p.Path == "" || p.Reference == "" {
			t.Errorf("%s is not cited", p.Mechanism)
		}
	}
}
