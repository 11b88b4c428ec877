package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/verify"
)

func verifiedResult() (*analysis.Result, *verify.Report) {
	span := deploy.Span{File: "d.yaml", Line: 3, Col: 5, EndLine: 3, EndCol: 9}
	res := &analysis.Result{
		Servers: []*deploy.Server{{Name: "decode", Role: deploy.RoleDecode, Span: span}},
		Findings: []diag.Diagnostic{
			{Rule: "KV101", Severity: "high", Message: "pool too small", Span: span},
			{Rule: "KV401", Severity: "high", Message: "typo", Span: span, Suppression: &diag.Suppression{Kind: "inline"}},
			{Rule: "KV402", Severity: "low", Message: "abbreviated", Span: span},
		},
	}
	rep := &verify.Report{Seed: 1, Deployments: []verify.DeploymentReport{}, Findings: []verify.FindingVerdict{
		{Rule: "KV101", Verdict: verify.Confirmed, Evidence: verify.Evidence{Question: "pool too small", Summary: "the pressure path is reached 612.5 times per 1,000 requests"}},
		{}, // suppressed: not verified
		{Rule: "KV402", Verdict: verify.NotApplicable, Evidence: verify.Evidence{Summary: "how a flag is written"}},
	}}
	return res, rep
}

// TestVerifyJSONOnlyAddsToCheck: every member of check's document is kept as it was; the
// findings gain verdict and evidence, and verification is added.
func TestVerifyJSONOnlyAddsToCheck(t *testing.T) {
	res, rep := verifiedResult()
	var plain, verified bytes.Buffer
	if err := CheckJSON(&plain, res); err != nil {
		t.Fatal(err)
	}
	if err := VerifyJSON(&verified, res, rep); err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	if err := json.Unmarshal(plain.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(verified.Bytes(), &b); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, verified.String())
	}
	for k, v := range a {
		if k == "findings" {
			continue
		}
		if !reflect.DeepEqual(v, b[k]) {
			t.Errorf("member %q changed", k)
		}
	}
	if _, ok := b["verification"]; !ok {
		t.Error("no verification member")
	}
	fa, fb := a["findings"].([]any), b["findings"].([]any)
	if len(fa) != 2 || len(fb) != 2 {
		t.Fatalf("findings: %d and %d, want the 2 unsuppressed", len(fa), len(fb))
	}
	wants := []string{"confirmed", "not-applicable"}
	for i := range fa {
		x, y := fa[i].(map[string]any), fb[i].(map[string]any)
		if y["verdict"] != wants[i] {
			t.Errorf("finding %d: verdict %v, want %s", i, y["verdict"], wants[i])
		}
		ev, _ := y["evidence"].(map[string]any)
		if ev["summary"] == "" || ev["summary"] == nil {
			t.Errorf("finding %d: no evidence summary", i)
		}
		delete(y, "verdict")
		delete(y, "evidence")
		if !reflect.DeepEqual(x, y) {
			t.Errorf("finding %d changed beyond the additions:\n%v\n%v", i, x, y)
		}
	}
	// Check's member order is kept, verification last.
	if i, j := strings.Index(verified.String(), `"findings"`), strings.Index(verified.String(), `"verification"`); i < 0 || j < i {
		t.Error("member order changed")
	}
}

func TestVerifyText(t *testing.T) {
	res, rep := verifiedResult()
	var out bytes.Buffer
	if err := VerifyText(&out, res, rep); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"VERDICT         RULE   SEVERITY  LOCATION    SERVER\n",
		"confirmed       KV101  high      d.yaml:3:5  decode\n",
		"not applicable  KV402  low       d.yaml:3:5  decode\n",
		"KV101 at d.yaml:3:5, confirmed:\n    the pressure path is reached 612.5 times per 1,000 requests\n",
		"verified (seed 1): 1 confirmed, 1 not applicable\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "KV401") {
		t.Error("a suppressed finding was shown")
	}
}

func TestVerifyProperties(t *testing.T) {
	_, rep := verifiedResult()
	props := VerifyProperties(rep)
	if len(props) != 3 || props[0]["verdict"] != verify.Confirmed || props[1] != nil || props[2]["evidence"] == nil {
		t.Fatalf("properties %v", props)
	}
}

func TestWithVerdictRejectsNonObjects(t *testing.T) {
	var out bytes.Buffer
	if err := withVerdict(&out, json.RawMessage(`[1]`), verify.FindingVerdict{}); err == nil {
		t.Error("an array was taken for a finding")
	}
	out.Reset()
	if err := withVerdict(&out, json.RawMessage(`{}`), verify.FindingVerdict{Verdict: verify.Inconclusive}); err != nil || !json.Valid(out.Bytes()) {
		t.Errorf("empty object: %v %s", err, out.String())
	}
}
