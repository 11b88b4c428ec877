package rules

import (
	"strings"
	"testing"
	"testing/fstest"
)

const goodRule = `# METADATA
# title: T
# description: D
# related_resources:
#   - ref: https://example.com/x
# custom:
#   id: KV900
#   severity: medium
#   remediation: R
package kvlint.rules.good

deny contains {"msg": "m", "server": 0} if false
`

func TestRuleFromModule(t *testing.T) {
	tests := []struct {
		name, file, src, wantErr string
	}{
		{"valid", "policies/x/good.rego", goodRule, ""},
		{"package not named after the file", "policies/x/other.rego", goodRule, "want kvlint.rules.other"},
		{"no metadata", "policies/x/good.rego", "package kvlint.rules.good\n\ndeny contains 1 if false\n", "no METADATA"},
		{"bad id", "policies/x/good.rego", strings.Replace(goodRule, "KV900", "K1", 1), "custom.id"},
		{"bad severity", "policies/x/good.rego", strings.Replace(goodRule, "severity: medium", "severity: warning", 1), "severity"},
		{"no title", "policies/x/good.rego", strings.Replace(goodRule, "# title: T\n", "", 1), "no title"},
		{"no description", "policies/x/good.rego", strings.Replace(goodRule, "# description: D\n", "", 1), "no description"},
		{"no remediation", "policies/x/good.rego", strings.Replace(goodRule, "#   remediation: R\n", "", 1), "no custom.remediation"},
		{"no deny", "policies/x/good.rego", strings.Replace(goodRule, "deny contains", "allow contains", 1), "no deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := parsePolicies(fstest.MapFS{tt.file: {Data: []byte(tt.src)}}, "policies")
			if err != nil {
				t.Fatal(err)
			}
			r, err := ruleFromModule(tt.file, set.modules[tt.file])
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				want := Rule{ID: "KV900", Title: "T", Severity: "medium", Description: "D", Remediation: "R",
					References: []string{"https://example.com/x"}, Package: "kvlint.rules.good"}
				if r.ID != want.ID || r.Title != want.Title || r.Severity != want.Severity || r.Description != want.Description ||
					r.Remediation != want.Remediation || r.Package != want.Package || len(r.References) != 1 || r.References[0] != want.References[0] {
					t.Errorf("rule %+v, want %+v", r, want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestParsePoliciesSeparatesTestsAndLibrary(t *testing.T) {
	fsys := fstest.MapFS{
		"policies/x/good.rego":      {Data: []byte(goodRule)},
		"policies/x/good_test.rego": {Data: []byte("package kvlint.rules.good_test\n\ntest_x if true\n")},
		"policies/lib/kvlint.rego":  {Data: []byte("package kvlint.lib\n\nf(x) := x\n")},
		"policies/README.md":        {Data: []byte("not rego")},
	}
	set, err := parsePolicies(fsys, "policies")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.modules) != 2 || len(set.tests) != 1 {
		t.Errorf("%d modules, %d tests; want 2 and 1", len(set.modules), len(set.tests))
	}
	if files := set.ruleFiles(); len(files) != 1 || files[0] != "policies/x/good.rego" {
		t.Errorf("rule files %v", files)
	}
	if _, err := parsePolicies(fstest.MapFS{"policies/bad.rego": {Data: []byte("package p\n\nx if {")}}, "policies"); err == nil {
		t.Error("a syntax error was accepted")
	}
	// Rego v0 syntax is refused: policies are written in v1.
	if _, err := parsePolicies(fstest.MapFS{"policies/v0.rego": {Data: []byte("package p\n\ndeny[msg] { msg := \"x\" }\n")}}, "policies"); err == nil {
		t.Error("Rego v0 syntax was accepted")
	}
}

func TestCompilerRefusesNetworkBuiltins(t *testing.T) {
	for _, src := range []string{
		"package p\n\nx := http.send({\"method\": \"get\", \"url\": \"https://example.com\"})\n",
		"package p\n\nx := net.lookup_ip_addr(\"example.com\")\n",
		"package p\n\nx := opa.runtime()\n",
	} {
		set, err := parsePolicies(fstest.MapFS{"policies/p.rego": {Data: []byte(src)}}, "policies")
		if err != nil {
			t.Fatal(err)
		}
		c := newCompiler()
		if c.Compile(set.modules); !c.Failed() {
			t.Errorf("compiled a policy that reaches outside:\n%s", src)
		}
	}
}
