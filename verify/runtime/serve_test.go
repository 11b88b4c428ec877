package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type servedReply struct {
	status int
	body   map[string]any
	header http.Header
}

func post(t *testing.T, c *http.Client, url, tenant string, body map[string]any) servedReply {
	t.Helper()
	r, err := postE(c, url, tenant, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// postE is post for goroutines, which must not call t.Fatal.
func postE(c *http.Client, url, tenant string, body map[string]any) (servedReply, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/completions", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if tenant != "" {
		req.Header.Set(TenantHeader, tenant)
	}
	resp, err := c.Do(req)
	if err != nil {
		return servedReply{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return servedReply{}, fmt.Errorf("response is not JSON: %q", raw)
	}
	return servedReply{resp.StatusCode, out, resp.Header}, nil
}

func cachedTokens(t *testing.T, r servedReply) float64 {
	t.Helper()
	usage, _ := r.body["usage"].(map[string]any)
	details, _ := usage["prompt_tokens_details"].(map[string]any)
	v, ok := details["cached_tokens"].(float64)
	if !ok {
		t.Fatalf("no usage.prompt_tokens_details.cached_tokens in %v", r.body)
	}
	return v
}

func TestServeOpenAICompletionsOverLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sc := twoTenants()
	sc.Prefill[0].CacheReport = true
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, sc, ln) }()
	url := "http://" + ln.Addr().String()
	c := &http.Client{Timeout: 10 * time.Second}

	prompt := words(11, 600) + " {my secret} " + words(12, 40)
	first := post(t, c, url, "acme", map[string]any{"model": "x", "prompt": prompt, "max_tokens": 12, "cache_salt": "s-acme"})
	if first.status != 200 || first.body["object"] != "text_completion" {
		t.Fatalf("first completion: %d %v", first.status, first.body)
	}
	choices := first.body["choices"].([]any)
	if text := choices[0].(map[string]any)["text"]; text != "{my secret} " {
		t.Errorf("the model said %q, want its own secret quoted", text)
	}
	if cachedTokens(t, first) != 0 {
		t.Error("a cold cache reported cached tokens")
	}
	if first.header.Get("X-Kvlint-Ttft-Us") == "" {
		t.Error("no virtual TTFT header")
	}
	again := post(t, c, url, "acme", map[string]any{"prompt": prompt, "max_tokens": 4, "cache_salt": "s-acme"})
	if got := cachedTokens(t, again); got != 640 {
		t.Errorf("same tenant, same salt: %v cached tokens, want 640", got)
	}
	other := post(t, c, url, "globex", map[string]any{"prompt": prompt, "max_tokens": 4, "cache_salt": "s-globex"})
	if got := cachedTokens(t, other); got != 0 {
		t.Errorf("another salt: %v cached tokens, want 0", got)
	}
	// The user field names the tenant when there is no header.
	user := post(t, c, url, "", map[string]any{"prompt": []string{"hello"}, "max_tokens": 2, "user": "initech"})
	if user.status != 200 {
		t.Errorf("one-string array prompt: %d %v", user.status, user.body)
	}

	tooLong := post(t, c, url, "acme", map[string]any{"prompt": words(13, 5000), "max_tokens": 4})
	if tooLong.status != 400 || tooLong.body["object"] != "error" || tooLong.body["code"] != float64(400) ||
		!strings.HasPrefix(tooLong.body["message"].(string), "The input (5000 tokens) is longer than the model's context length (4096 tokens).") {
		t.Errorf("over-long prompt: %d %v", tooLong.status, tooLong.body)
	}
	for _, bad := range []map[string]any{{"prompt": ""}, {"prompt": 3}, {"prompt": "x", "stream": true}, {"prompt": "x", "max_tokens": -1}} {
		if r := post(t, c, url, "acme", bad); r.status != 400 {
			t.Errorf("%v: status %d", bad, r.status)
		}
	}

	// Concurrent clients, bounded.
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenant := []string{"acme", "globex"}[i%2]
			r, err := postE(c, url, tenant, map[string]any{"prompt": words(uint64(100+i), 300), "max_tokens": 8, "cache_salt": "s-" + tenant})
			if err != nil || r.status != 200 {
				errs <- fmt.Sprintf("request %d: %v %d %v", i, err, r.status, r.body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	resp, err := c.Get(url + "/kvlint/result")
	if err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if res.Summary.OK != 20 || res.Summary.Rejected != 1 || res.Summary.CrossTenantLeaks != 0 {
		t.Errorf("result so far: %+v", res.Summary)
	}

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve returned %v after its context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
}

func TestServeRejectsAnInvalidScenario(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Serve(context.Background(), Scenario{}, ln); err == nil {
		t.Fatal("Serve accepted a scenario without workers")
	}
}
