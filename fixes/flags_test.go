package fixes

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// argvWords splits the one-line text of run.sh on spaces into argv words
// spanned in it; a word with "$" is a placeholder, as the shell parser
// leaves an unresolved variable.
func argvWords(text string) []deploy.Value {
	var out []deploy.Value
	col := 1
	for _, w := range strings.Split(text, " ") {
		if w != "" {
			out = append(out, deploy.Value{Raw: strings.Trim(w, `'`), Known: !strings.Contains(w, "$"),
				Span: deploy.Span{File: "run.sh", Line: 1, Col: col, EndLine: 1, EndCol: col + len(w)}})
		}
		col += len(w) + 1
	}
	return out
}

// fixesOf parses argv (the SGLang server's, in run.sh) and returns the
// fixes of the finding of rule about the issue of kind.
func fixesOf(t *testing.T, argv, rule string, kind deploy.FlagIssueKind, release string) []diag.Fix {
	t.Helper()
	res := engine.Lookup(engine.SGLangServer).Parse(argvWords(argv), nil)
	srv := &deploy.Server{Engine: deploy.EngineSGLang, Args: res.Args, FlagIssues: res.Issues, Options: res.Options,
		Release: deploy.Release{Version: release}}
	engine.JudgeRelease(srv)
	set := source.NewSet()
	set.Add(source.NewFile("run.sh", []byte(argv), source.SyntaxShell))
	r := &analysis.Result{Servers: []*deploy.Server{srv}, Files: set}
	for _, is := range srv.FlagIssues {
		if is.Kind == kind {
			r.Findings = append(r.Findings, diag.Diagnostic{Rule: rule, Span: is.Span, Arg: is.Flag})
		}
	}
	if len(r.Findings) == 0 {
		t.Fatalf("%q: no %s issue in %+v", argv, kind, srv.FlagIssues)
	}
	Attach(r)
	return r.Findings[0].Fixes
}

// applied is the text after a fix's replacements (all on line 1).
func applied(t *testing.T, text string, f diag.Fix) string {
	t.Helper()
	for i := len(f.Replacements) - 1; i >= 0; i-- {
		r := f.Replacements[i]
		if r.Span.Line != 1 || r.Span.EndLine != 1 {
			t.Fatalf("replacement %+v is not on line 1", r)
		}
		text = text[:r.Span.Col-1] + r.NewText + text[r.Span.EndCol-1:]
	}
	return text
}

func TestFlagFixes(t *testing.T) {
	tests := []struct {
		name, argv, rule string
		kind             deploy.FlagIssueKind
		release          string
		want             string // the text after the fix; "" for no fix
	}{
		{"abbreviation", "--tp 2 --port 1", "KV402", deploy.FlagAbbreviated, "", "--tp-size 2 --port 1"},
		{"abbreviation with =", "--tp=2", "KV402", deploy.FlagAbbreviated, "", "--tp-size=2"},
		{"quoted abbreviation", "'--tp' 2", "KV402", deploy.FlagAbbreviated, "", "'--tp-size' 2"},
		{"ambiguous: no one name", "--pp 2", "KV402", deploy.FlagAmbiguous, "", ""},
		// v0.5.3 had --pp-size alone; --pp-max-micro-batch-size came in
		// 0.5.3.post1 (engine/data/sglang_server_history.tsv): judged on
		// its release the prefix is an abbreviation (engine.JudgeRelease).
		{"ambiguous today, one name on the release", "--pp 2 --port 1", "KV402", deploy.FlagAbbreviated, "0.5.3", "--pp-size 2 --port 1"},
		{"ambiguous on the release too", "--pp 2", "KV402", deploy.FlagAmbiguous, "0.5.6.post2", ""},
		// Between two snapshots the history cannot say which it had.
		{"ambiguous, release not read", "--pp 2", "KV402", deploy.FlagAmbiguous, "0.5.3.post9", ""},
		{"typo", "--mem-fraction-statc 0.8 --port 1", "KV401", deploy.FlagUnknown, "", "--mem-fraction-static 0.8 --port 1"},
		// A switch's typo: the closest flag takes no value either.
		{"typo of a switch", "--enable-metrcs --port 1", "KV401", deploy.FlagUnknown, "", "--enable-metrics --port 1"},
		{"typo whose value does not fit", "--enable-metrcs 1", "KV401", deploy.FlagUnknown, "", ""},
		// --tp-size, --dp-size, --pp-size and --ep-size are one edit away.
		{"two flags as close", "--xp-size 2", "KV401", deploy.FlagUnknown, "", ""},
		{"single dash, underscores", "-tp_size 2", "KV401", deploy.FlagUnknown, "", "--tp-size 2"},
		{"duplicate: the earlier goes", "--port 1 --tp-size 2 --port 3", "KV403", deploy.FlagDuplicate, "", "--tp-size 2 --port 3"},
		{"deprecated alias", "--cuda-graph-max-bs 64", "KV404", deploy.FlagDeprecated, "", "--cuda-graph-max-bs-decode 64"},
		// v0.5.9 lies after v0.5.6.post2, the last release the flag
		// history reads, which has no --cuda-graph-max-bs-decode yet; the
		// deprecation stands there, not known either way (on v0.5.3,
		// which predates it, there is no deprecation to fix:
		// engine.JudgeRelease).
		{"replacement newer than the release", "--cuda-graph-max-bs 64", "KV404", deploy.FlagDeprecated, "0.5.9", ""},
		// "--cuda-graph-backend-{decode,prefill}=disabled" is two flags.
		{"deprecated into two flags", "--disable-cuda-graph --port 1", "KV404", deploy.FlagDeprecated, "", ""},
		{"deprecated and without effect", "--port 1 --collect-tokens-histogram", "KV404", deploy.FlagDeprecated, "", "--port 1"},
		{"removed, a switch became a setting", "--enable-flashinfer-mxfp4-moe --port 1", "KV404", deploy.FlagRemoved, "", "--moe-runner-backend=flashinfer_mxfp4 --port 1"},
		{"removed, no replacement", "--port 1 --schedule-heuristic lpm", "KV404", deploy.FlagRemoved, "", "--port 1"},
		{"invalid choice", "--load-format safetensor", "KV405", deploy.FlagInvalidValue, "", "--load-format safetensors"},
		{"invalid choice, nothing near", "--load-format zip", "KV405", deploy.FlagInvalidValue, "", ""},
		{"missing value", "--port", "KV405", deploy.FlagMissingValue, "", ""},
		// A flag v0.5.3 does not have yet: the deprecated alias that
		// stores into it, which v0.5.3 has, else the option with its value.
		{"newer than the release: its alias", "--cuda-graph-max-bs-decode 64 --port 1", "KV401", deploy.FlagUnknown, "0.5.3", "--cuda-graph-max-bs 64 --port 1"},
		{"newer than the release: removed with its value", "--port 1 --dcp-size 2", "KV401", deploy.FlagUnknown, "0.5.3", "--port 1"},
		{"newer than the release: a switch", "--port 1 --enable-prefill-cp", "KV401", deploy.FlagUnknown, "0.5.3", "--port 1"},
		// Ranges (engine/data/sglang_server_ranges.tsv).
		{"below an inclusive bound", "--tokenizer-worker-num 0", "KV405", deploy.FlagInvalidValue, "", "--tokenizer-worker-num 1"},
		{"above an inclusive bound", "--grpc-port 65536", "KV405", deploy.FlagInvalidValue, "", "--grpc-port 65535"},
		{"float at an exclusive bound", "--swa-full-tokens-ratio 0", "KV405", deploy.FlagInvalidValue, "", ""},
		{"float above an inclusive bound", "--swa-full-tokens-ratio 1.5", "KV405", deploy.FlagInvalidValue, "", "--swa-full-tokens-ratio 1"},
		{"integral decimal for an int", "--tp-size 2.0", "KV405", deploy.FlagInvalidValue, "", "--tp-size 2"},
		{"fractional decimal for an int", "--tp-size 2.5", "KV405", deploy.FlagInvalidValue, "", ""},
	}
	for _, tt := range tests {
		fixes := fixesOf(t, tt.argv, tt.rule, tt.kind, tt.release)
		if tt.want == "" {
			if len(fixes) != 0 {
				t.Errorf("%s: want no fix, got %+v", tt.name, fixes)
			}
			continue
		}
		if len(fixes) != 1 || fixes[0].Unwritable != "" {
			t.Errorf("%s: want one writable fix, got %+v", tt.name, fixes)
			continue
		}
		if got := applied(t, tt.argv, fixes[0]); got != tt.want {
			t.Errorf("%s: after the fix %q, want %q (%s)", tt.name, got, tt.want, fixes[0].Description)
		}
	}
}

// A flag whose value is a placeholder cannot be deleted with it: the fix
// is described and says why it is not applied.
func TestFlagFixUnwritable(t *testing.T) {
	fixes := fixesOf(t, "--port $PORT --port 1", "KV403", deploy.FlagDuplicate, "")
	if len(fixes) != 1 || fixes[0].Unwritable == "" || len(fixes[0].Replacements) != 0 {
		t.Fatalf("want one unwritable fix, got %+v", fixes)
	}
	if !strings.Contains(fixes[0].Unwritable, "$PORT at run.sh:1:8 is computed") {
		t.Errorf("Unwritable = %q", fixes[0].Unwritable)
	}
}

// The defaults the PD fixes compare with come from the engine's flag
// table, unquoted.
func TestSGLangDefault(t *testing.T) {
	if d, ok := sglangDefault("--disaggregation-transfer-backend"); !ok || d != "mooncake" {
		t.Errorf("transfer backend default = %q, %v", d, ok)
	}
	if n, ok := defaultBootstrapPort(); !ok || n != 8998 {
		t.Errorf("bootstrap port default = %d, %v", n, ok)
	}
	if _, ok := sglangDefault("--no-such-flag"); ok {
		t.Error("a flag the table lacks has a default")
	}
}
