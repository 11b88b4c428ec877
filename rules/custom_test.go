package rules

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// customRule is a valid custom policy: it fires on every SGLang server
// without --enable-metrics.
const customRule = `# METADATA
# title: Metrics not exported
# description: The server does not export Prometheus metrics.
# custom:
#   id: ACME001
#   severity: medium
#   remediation: Add --enable-metrics.
package kvlint.rules.require_metrics

import data.acme.helpers

deny contains {"msg": "no --enable-metrics", "server": s.index, "arg": ""} if {
	some s in input.servers
	helpers.is_sglang(s)
	not s.args["--enable-metrics"]
}
`

const customHelper = `package acme.helpers

is_sglang(s) if s.engine == "sglang"
`

// writePolicies writes files (name → content) into a new directory.
func writePolicies(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCustomPolicyFindings(t *testing.T) {
	dir := writePolicies(t, map[string]string{
		"require_metrics.rego": customRule,
		"lib/helpers.rego":     customHelper,
		"require_metrics_test.rego": `package kvlint.rules.require_metrics_test
test_nothing if true
`,
	})
	e, err := New(context.Background(), Options{PolicyDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := e.Rule("ACME001")
	if !ok || r.File != filepath.ToSlash(filepath.Join(dir, "require_metrics.rego")) || r.Severity != "medium" {
		t.Fatalf("Rule(ACME001) = %+v, %v", r, ok)
	}
	if _, ok := e.Rule("KV101"); !ok {
		t.Error("the built-in rules are gone")
	}
	srv, est := incidentDecode()
	with := &deploy.Server{Engine: deploy.EngineSGLang, Span: span("b.sh", 2, 1, "python3"),
		Args: map[string]deploy.Value{"--enable-metrics": arg("b.sh", 2, 40, "true")}}
	findings, err := e.Evaluate(context.Background(), []*deploy.Server{srv, with}, []capacity.Estimate{est, {}}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var acme []diag.Diagnostic
	for _, f := range findings {
		if f.Rule == "ACME001" {
			acme = append(acme, f)
		}
	}
	if len(acme) != 1 || acme[0].Server != 0 || acme[0].Span != srv.Span || acme[0].Title != "Metrics not exported" {
		t.Errorf("ACME001 findings %+v, want one on server 0 at its launch command", acme)
	}
}

func TestCustomPolicyRejected(t *testing.T) {
	rule := func(old, new string) string { return strings.Replace(customRule, old, new, 1) }
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"http.send", map[string]string{"require_metrics.rego": rule(`not s.args["--enable-metrics"]`,
			`not s.args["--enable-metrics"]
	resp := http.send({"method": "GET", "url": "https://example.com"})
	resp.status_code == 200`)}, "require_metrics.rego:16: http.send is not available to kvlint policies: kvlint never reaches the network"},
		{"http.send in a helper call argument", map[string]string{"x.rego": "package acme.x\n\nf(u) := count(http.send({\"method\": \"GET\", \"url\": u}))\n"},
			"x.rego:3: http.send is not available"},
		{"net.lookup_ip_addr", map[string]string{"x.rego": "package acme.x\n\nips := net.lookup_ip_addr(\"example.com\")\n"}, "x.rego:3: net.lookup_ip_addr is not available"},
		{"time.now_ns", map[string]string{"x.rego": "package acme.x\n\nnow := time.now_ns()\n"}, "x.rego:3: time.now_ns is not available to kvlint policies: its result depends on the clock"},
		{"opa.runtime", map[string]string{"x.rego": "package acme.x\n\nenv := opa.runtime().env\n"}, "x.rego:3: opa.runtime is not available"},
		{"http.send in a test", map[string]string{"x.rego": customHelper, "x_test.rego": "package acme.x_test\n\ntest_x if http.send({\"method\": \"GET\", \"url\": \"u\"})\n"}, "x_test.rego:3: http.send"},
		{"id of a built-in", map[string]string{"require_metrics.rego": rule("ACME001", "KV101")}, "IDs starting with KV are reserved"},
		{"id in the wrong form", map[string]string{"require_metrics.rego": rule("ACME001", "acme-one")}, `custom.id "acme-one"`},
		{"ids collide", map[string]string{"require_metrics.rego": customRule, "lib/helpers.rego": customHelper,
			"other.rego": strings.ReplaceAll(customRule, "require_metrics", "other")}, "ACME001 is already used by"},
		{"package of a built-in rule", map[string]string{"pool_below_context.rego": rule("package kvlint.rules.require_metrics", "package kvlint.rules.pool_below_context")},
			"package kvlint.rules.pool_below_context is kvlint's own"},
		{"kvlint.lib", map[string]string{"x.rego": "package kvlint.lib\n\nx := 1\n"}, "package kvlint.lib is kvlint's own"},
		{"reserved package", map[string]string{"x.rego": "package kvlint.mine\n\nx := 1\n"}, "package kvlint.mine is reserved"},
		{"no metadata", map[string]string{"r.rego": "package kvlint.rules.r\n\ndeny contains 1 if false\n"}, "no METADATA"},
		{"package not named after the file", map[string]string{"metrics.rego": customRule, "lib/helpers.rego": customHelper}, "want kvlint.rules.metrics"},
		{"parse error", map[string]string{"x.rego": "package acme.x\n\nx := {\n"}, "x.rego:4: rego_parse_error"},
		{"compile error", map[string]string{"x.rego": "package acme.x\n\nx := data.acme.y.z + undefined_function(1)\n"}, "x.rego:3"},
		{"no policies", map[string]string{"README.md": "nothing"}, "no .rego policies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writePolicies(t, tt.files)
			_, err := New(context.Background(), Options{PolicyDirs: []string{dir}})
			var pe *PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("New = %v, want a *PolicyError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestCustomPolicyDirNotADirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.rego")
	if err := os.WriteFile(f, []byte(customHelper), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{f, filepath.Join(t.TempDir(), "missing")} {
		var pe *PolicyError
		if _, err := New(context.Background(), Options{PolicyDirs: []string{dir}}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "--policy "+dir) {
			t.Errorf("New(%s) = %v, want a PolicyError naming the flag", dir, err)
		}
	}
}

func TestNewTakesOneOptions(t *testing.T) {
	if _, err := New(context.Background(), Options{}, Options{}); err == nil {
		t.Error("New accepted two Options")
	}
}

// A policy that does too much work is stopped by the timeout: an input
// error at the policy that names the flag to raise, and kvlint's own
// rules still judge the server.
func TestEvaluateTimeout(t *testing.T) {
	dir := writePolicies(t, map[string]string{"slow.rego": `# METADATA
# title: Slow
# description: Counts for a long time.
# custom:
#   id: ACME002
#   severity: low
#   remediation: None.
package kvlint.rules.slow

deny contains {"msg": "slow", "server": 0} if {
	count({x | some x in numbers.range(1, 100000000); x % 7 == 0}) > 0
}
`})
	e, err := New(context.Background(), Options{PolicyDirs: []string{dir}, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, est := incidentDecode()
	start := time.Now()
	fs, err := e.Evaluate(context.Background(), []*deploy.Server{srv}, []capacity.Estimate{est}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var failed, own int
	for _, f := range fs {
		switch {
		case f.IsInputError():
			failed++
			if !strings.HasSuffix(f.Span.File, "slow.rego") || f.Span.Line != 10 || f.Span.Col != 1 || !strings.Contains(f.Message, "did not finish within 50ms (--policy-timeout)") {
				t.Errorf("policy error %s: %s, want a timeout at slow.rego:10:1, its deny rule", f.Span, f.Message)
			}
		case strings.HasPrefix(f.Rule, "KV"):
			own++
		}
	}
	if failed != 1 || own == 0 {
		t.Errorf("Evaluate = %d policy errors and %d findings of kvlint's rules, want 1 and some: %v", failed, own, fs)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %s to stop the evaluation", d)
	}
}

func TestForbiddenBuiltins(t *testing.T) {
	caps := restrictedCapabilities()
	left := map[string]bool{}
	for _, b := range caps.Builtins {
		left[b.Name] = true
	}
	for _, name := range []string{"http.send", "net.lookup_ip_addr", "net.cidr_contains", "opa.runtime", "time.now_ns", "rand.intn", "uuid.rfc4122", "io.jwt.decode_verify", "json.verify_schema", "crypto.x509.parse_and_verify_certificates"} {
		if left[name] {
			t.Errorf("%s is available to policies", name)
		}
	}
	for _, name := range []string{"sprintf", "count", "time.parse_rfc3339_ns", "regex.match", "json.marshal", "object.union"} {
		if !left[name] {
			t.Errorf("%s was removed, but it is deterministic and local", name)
		}
	}
}
