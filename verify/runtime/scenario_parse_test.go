package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestYAMLAndJSONScenariosAgree(t *testing.T) {
	y, err := LoadScenario("testdata/healthy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := LoadScenario("testdata/healthy.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(y, j) {
		t.Fatalf("YAML and JSON forms differ:\n%+v\n%+v", y, j)
	}
}

func TestTestdataScenariosAreValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		if _, err := LoadScenario(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestScenarioErrorsPointAtTheValue(t *testing.T) {
	cases := []struct {
		name, src   string
		line, col   int
		msgContains string
	}{
		{"unknown field", "name: x\nprefill:\n  - pool_tokens: 64\n    pool_size: 9\ndecode:\n  - pool_tokens: 64\n", 4, 5, "field pool_size not found"},
		{"wrong type", "prefill:\n  - pool_tokens: lots\n", 2, 18, "cannot unmarshal"},
		{"negative page size", "prefill:\n  - pool_tokens: 64\n    page_size: -4\ndecode:\n  - pool_tokens: 64\n", 3, 16, "page_size: must be between 1 and 4096, got -4"},
		{"unknown fault", "prefill:\n  - pool_tokens: 64\ndecode:\n  - pool_tokens: 64\nfaults: [stale-pages, gremlins]\n", 5, 23, `unknown fault "gremlins"`},
		{"no decode worker", "name: x\nprefill:\n  - pool_tokens: 64\n", 1, 1, "at least one decode worker"},
		{"script names an unknown tenant", "prefill:\n  - pool_tokens: 4096\ndecode:\n  - pool_tokens: 4096\nworkload:\n  tenants: [{name: a}]\n  script:\n    - {tenant: b, prompt: hi}\n", 8, 16, `unknown tenant "b"`},
		{"not a mapping", "- a\n- b\n", 1, 1, "a scenario is a mapping"},
		{"bad syntax", "name: [unclosed\n", 1, 1, ""},
		{"pool too small for its context", "prefill:\n  - pool_tokens: 1\ndecode:\n  - pool_tokens: 64\n", 2, 18, "Memory pool size is too small"},
	}
	for _, tc := range cases {
		_, err := ParseScenario("s.yaml", []byte(tc.src))
		var se *ScenarioError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a *ScenarioError", tc.name, err)
			continue
		}
		if se.File != "s.yaml" || se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Error(), tc.msgContains) {
			t.Errorf("%s: got %s (line %d col %d), want s.yaml:%d:%d containing %q", tc.name, se, se.Line, se.Col, tc.line, tc.col, tc.msgContains)
		}
	}
	if _, err := ParseScenario("e.yaml", nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: %v", err)
	}
}

func TestLoadScenarioMissingFile(t *testing.T) {
	_, err := LoadScenario(filepath.Join(t.TempDir(), "nope.yaml"))
	var se *ScenarioError
	if !errors.As(err, &se) || !errors.Is(err, err) {
		t.Fatalf("missing file: %v", err)
	}
}

func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("prefill: [{pool_tokens: 64}]\ndecode: [{pool_tokens: 64}]\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("{}"))
	f.Add([]byte("timing: {jitter: .nan}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario("fuzz.yaml", data)
		if err != nil {
			var se *ScenarioError
			if !errors.As(err, &se) || se.File != "fuzz.yaml" || se.Msg == "" {
				t.Fatalf("error of the wrong shape: %#v", err)
			}
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		// Small scenarios are cheap enough to run: no input may make the runtime panic,
		// and every request must end with an outcome.
		full, _ := sc.withDefaults()
		if full.Workload.Requests+len(full.Workload.Script) > 40 || full.Workload.PromptTokens.Max > 4096 ||
			full.Workload.MaxTokens > 256 || full.Workload.Extraction != nil {
			return
		}
		for _, w := range append(append([]Worker(nil), full.Prefill...), full.Decode...) {
			if w.PoolTokens*w.Count > 1<<16 || w.MaxRunningRequests > 1024 {
				return
			}
		}
		sc.MaxVirtualSeconds = 120
		res, err := Run(sc)
		if err != nil {
			t.Fatalf("valid scenario failed to run: %v", err)
		}
		for _, r := range res.Requests {
			if r.Outcome == "" {
				t.Fatalf("request %d has no outcome", r.ID)
			}
		}
	})
}
