package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serveDeployment boots `kvlint runtime serve DIR --listen 127.0.0.1:0` and returns its
// base URL; the server stops when the test ends.
func serveDeployment(t *testing.T, dir string) string {
	t.Helper()
	var stdout, stderr syncBuffer
	root := newRoot(&stdout, &stderr)
	root.SetArgs([]string{"runtime", "serve", dir, "--listen", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	addr := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if m := addr.FindStringSubmatch(stdout.String()); m != nil {
			return "http://" + m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve returned early: %v (stderr %q)", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q %q", stdout.String(), stderr.String())
		}
	}
}

// TestEndpointAuditTellsCacheOnFromOff runs `kvlint verify --endpoint` against the runtime
// served from deployment files: a shared prefix cache is significant, the same server with
// --disable-radix-cache or with the isolation key enforced is not. The times are wall
// times on loopback; the modelled hit saves about 65 ms of an 88 ms miss (Llama-3.1-8B on
// an H100, 2,048-token prompts), so only the verdict is asserted, never a time.
func TestEndpointAuditTellsCacheOnFromOff(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time audit: seconds of wall time")
	}
	for _, tc := range []struct {
		dir         string
		significant bool
		code        int
	}{
		{"shared", true, exitFindings},
		{"cache-off", false, exitClean},
		{"salted", false, exitClean},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			base := serveDeployment(t, "testdata/endpoint/"+tc.dir)
			var out, errOut bytes.Buffer
			code := run([]string{"verify", "--endpoint", base, "--endpoint-requests", "92", "--endpoint-rate", "500",
				"--tenant-header", "X-Tenant", "--format", "json"}, &out, &errOut)
			var doc struct {
				Endpoint *struct {
					URL         string   `json:"url"`
					Requests    int      `json:"requests"`
					PValue      *float64 `json:"p_value"`
					AUC         *float64 `json:"auc"`
					Power       *float64 `json:"power"`
					Significant bool     `json:"significant"`
					Control     struct {
						Significant bool `json:"significant"`
					} `json:"control"`
				} `json:"endpoint"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Endpoint == nil {
				t.Fatalf("exit %d, output %q, stderr %q: %v", code, out.String(), errOut.String(), err)
			}
			e := doc.Endpoint
			if code != tc.code || e.Significant != tc.significant || e.Control.Significant {
				t.Errorf("exit %d (want %d), significant %v (want %v), control significant %v: %s", code, tc.code, e.Significant, tc.significant, e.Control.Significant, out.String())
			}
			if e.Requests != 92 || e.URL != base+"/v1/completions" || e.PValue == nil || e.AUC == nil || e.Power == nil {
				t.Errorf("report %+v", e)
			}
		})
	}
}

// TestEndpointAuditFollowsNoRedirect: a server that redirects is not followed anywhere;
// the audit fails with the status it got.
func TestEndpointAuditFollowsNoRedirect(t *testing.T) {
	var out, errOut bytes.Buffer
	srv := redirectServer(t)
	code := run([]string{"verify", "--endpoint", srv, "--endpoint-requests", "32"}, &out, &errOut)
	if code != exitInput || !strings.Contains(errOut.String(), "307") {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
}

// redirectServer answers every request with a redirect to another host, and fails the test
// if a request ever reaches that host.
func redirectServer(t *testing.T) string {
	t.Helper()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the audit followed a redirect to %s", r.URL)
	}))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/completions", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
