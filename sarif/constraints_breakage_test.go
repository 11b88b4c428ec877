package sarif

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The constraint checker must itself fail on the mistakes other tools have
// shipped (linters.md §4): each mutation of a good log is caught.
func TestGitHubProblemsCatchBreakage(t *testing.T) {
	s := newSynthetic(t)
	t.Chdir(repoRoot)
	good := encode(t, s.log)
	if p := githubProblems(good, []string{"KV101"}); len(p) > 0 {
		t.Fatalf("the unmutated log already has problems: %v", p)
	}
	mutations := []struct {
		name   string
		mutate func(run map[string]any)
		want   string
	}{
		{"results missing", func(run map[string]any) { delete(run, "results") }, "run.results is missing"},
		{"startLine 0", func(run map[string]any) { region(run)["startLine"] = 0.0 }, "startLine 0"},
		{"fingerprint missing", func(run map[string]any) { delete(result(run), "partialFingerprints") }, "primaryLocationLineHash"},
		{"git URI", func(run map[string]any) { artifact(run)["uri"] = "git::https://example.com/x.git" }, "scheme"},
		{"windows path", func(run map[string]any) { artifact(run)["uri"] = `deploy\decode.yaml` }, "backslash"},
		{"escapes the root", func(run map[string]any) { artifact(run)["uri"] = "../decode.yaml" }, "leaves"},
		{"wrong rule index", func(run map[string]any) { result(run)["ruleIndex"] = 3.0 }, "ruleIndex"},
		{"null", func(run map[string]any) { result(run)["rank"] = nil }, "null at"},
		{"long description", func(run map[string]any) {
			rule(run)["shortDescription"] = map[string]any{"text": strings.Repeat("x", 1025)}
		}, "longer than 1024"},
		{"bad security-severity", func(run map[string]any) {
			rule(run)["properties"].(map[string]any)["security-severity"] = 8.0
		}, "security-severity"},
		{"no category", func(run map[string]any) { run["automationDetails"] = map[string]any{"id": "run-1"} }, "no category"},
		{"no exit code", func(run map[string]any) { delete(run["invocations"].([]any)[0].(map[string]any), "exitCode") }, "exitCode"},
		{"rule missing", func(run map[string]any) {
			driver := run["tool"].(map[string]any)["driver"].(map[string]any)
			driver["rules"] = slices.DeleteFunc(driver["rules"].([]any), func(r any) bool { return r.(map[string]any)["id"] == "KV101" })
		}, "KV101 is not described"},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(good, &doc); err != nil {
				t.Fatal(err)
			}
			m.mutate(doc["runs"].([]any)[0].(map[string]any))
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			problems := githubProblems(data, []string{"KV101"})
			if !strings.Contains(strings.Join(problems, "\n"), m.want) {
				t.Errorf("problems %q do not mention %q", problems, m.want)
			}
		})
	}
}

// result is the first result (the synthetic KV101 with provenance).
func result(run map[string]any) map[string]any { return run["results"].([]any)[0].(map[string]any) }

func physical(run map[string]any) map[string]any {
	return result(run)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}
func region(run map[string]any) map[string]any { return physical(run)["region"].(map[string]any) }
func artifact(run map[string]any) map[string]any {
	return physical(run)["artifactLocation"].(map[string]any)
}
func rule(run map[string]any) map[string]any {
	return run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any)
}
