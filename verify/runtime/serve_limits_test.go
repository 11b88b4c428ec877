package runtime

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// startServe serves sc on a loopback port until the test ends.
func startServe(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, twoTenants(), ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// A page that rebinds its own name to 127.0.0.1 sends that name as Host:
// it is refused; loopback names with and without a port are served.
func TestServeHostMustBeLoopback(t *testing.T) {
	e := &engine{model: "m"}
	h := e.routes()
	for host, want := range map[string]int{
		"localhost:8080": 200, "127.0.0.1:8080": 200, "[::1]:8080": 200, "LOCALHOST": 200, "[::1]": 200,
		"evil.example:8080": 403, "evil.example": 403, "127.0.0.1.nip.io:8080": 403, "": 403, "localhost.evil.example": 403,
	} {
		r := httptest.NewRequest(http.MethodGet, "/v1/models", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Host %q: status %d, want %d", host, w.Code, want)
		}
	}
}

// Every request is kept for /kvlint/result: past maxServed a request is
// refused rather than retained.
func TestServeBoundsRequests(t *testing.T) {
	old := maxServed
	maxServed = 2
	t.Cleanup(func() { maxServed = old })
	url := "http://" + startServe(t)
	c := &http.Client{Timeout: 10 * time.Second}
	for i, want := range []int{200, 200, 503, 503} {
		r := post(t, c, url, "acme", map[string]any{"model": "x", "prompt": "hello world", "max_tokens": 1})
		if r.status != want {
			t.Errorf("request %d: status %d, want %d (%v)", i, r.status, want, r.body)
		}
	}
}

// A client that sends its headers and then trickles (or never sends) the
// body it announced loses the connection after readTimeout.
func TestServeBodyReadTimeout(t *testing.T) {
	old := readTimeout
	readTimeout = 200 * time.Millisecond
	t.Cleanup(func() { readTimeout = old })
	addr := startServe(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"prompt\":")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatalf("a body that never arrived was answered %d", resp.StatusCode)
		}
	} else if !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("reading the answer: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the server held the connection %s", d)
	}
}
