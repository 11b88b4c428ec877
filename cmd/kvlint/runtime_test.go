package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRuntimeServeOverLoopback runs `kvlint runtime serve` on a free loopback port and
// talks to it with a real HTTP client, then stops it the way an interrupt does.
func TestRuntimeServeOverLoopback(t *testing.T) {
	var stdout, stderr syncBuffer
	root := newRoot(&stdout, &stderr)
	root.SetArgs([]string{"runtime", "serve", "--scenario", "../../verify/runtime/testdata/healthy.yaml", "--listen", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()

	addr := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if m := addr.FindStringSubmatch(stdout.String()); m != nil {
			base = "http://" + m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve returned early: %v (stderr %q)", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", stdout.String())
		}
	}

	client := &http.Client{Timeout: 10 * time.Second}
	body := `{"prompt": "hello {secret} world", "max_tokens": 4, "cache_salt": "s1"}`
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Tenant", "acme")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var reply struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &reply) != nil || len(reply.Choices) != 1 {
		t.Fatalf("completion: %d %s", resp.StatusCode, raw)
	}
	if got := reply.Choices[0].Text; got != "{sec" {
		t.Errorf("the toy model recites the secret it reads: got %q, want %q", got, "{sec")
	}
	if resp.Header.Get("X-Kvlint-Ttft-Us") == "" {
		t.Error("no virtual TTFT header")
	}

	resp, err = client.Get(base + "/kvlint/result")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"requests"`) {
		t.Fatalf("result: %d %.200s", resp.StatusCode, raw)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve after an interrupt: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestLoopbackAddr(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"localhost:0", "127.0.0.1:0", true},
		{"[::1]:9000", "[::1]:9000", true},
		{"127.8.9.10:1", "127.8.9.10:1", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"[::]:80", "", false},
		{"10.0.0.1:80", "", false},
		{"example.com:80", "", false},
		{"127.0.0.1", "", false},
		{"127.0.0.1:http", "", false},
		{"127.0.0.1:-1", "", false},
	}
	for _, tc := range cases {
		got, err := loopbackAddr(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("loopbackAddr(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
