package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// want describes what one parse must produce.
type want struct {
	args     map[string]string // canonical → Raw ("?" = present with Known=false)
	absent   []string          // canonical names that must not be in Args
	issues   []wantIssue       // issues that must be present (others allowed only if listed in exactIssues)
	noIssues bool              // no issue at all
	opaque   []string
	pos      []string
}

type wantIssue struct {
	kind       deploy.FlagIssueKind
	flag       string
	written    string
	word       string // the word whose column the span must start at ("" = skip)
	nth        int
	suggestion string
	contains   string // substring of the message
}

func TestParseServer(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		want want
	}{
		{"abbreviation --tp", "--model-path m --tp 8", want{
			args:   map[string]string{"--tp-size": "8", "--model-path": "m"},
			issues: []wantIssue{{kind: deploy.FlagAbbreviated, flag: "--tp-size", written: "--tp", word: "--tp", suggestion: "--tp-size", contains: "expands to --tp-size"}},
		}},
		{"abbreviation with =", "--tp=8", want{
			args:   map[string]string{"--tp-size": "8"},
			issues: []wantIssue{{kind: deploy.FlagAbbreviated, flag: "--tp-size", written: "--tp"}},
		}},
		{"ambiguous --pp", "--pp 2 --model-path m", want{
			args:   map[string]string{"--model-path": "m"},
			absent: []string{"--pp-size"},
			issues: []wantIssue{{kind: deploy.FlagAmbiguous, written: "--pp", word: "--pp", contains: "could match --pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"}},
		}},
		{"long alias", "--tensor-parallel-size 4 --data-parallel-size 2 --model m", want{
			args:     map[string]string{"--tp-size": "4", "--dp-size": "2", "--model-path": "m"},
			noIssues: true,
		}},
		{"exact alias beats prefix", "--ep 4", want{
			args: map[string]string{"--ep-size": "4"}, noIssues: true,
		}},
		{"human readable int", "--context-length 128Ki --max-total-tokens 1M --max-prefill-tokens 32k", want{
			args: map[string]string{"--context-length": "128Ki", "--max-total-tokens": "1M", "--max-prefill-tokens": "32k"}, noIssues: true,
		}},
		{"human readable int, wrong case", "--context-length 128K", want{
			args:   map[string]string{"--context-length": "128K"},
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--context-length", word: "128K", contains: "case-sensitive"}},
		}},
		{"human readable int, IEC decimal", "--context-length 1.5Ki", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--context-length", contains: "IEC"}},
		}},
		{"duplicate, last wins", "--tp-size 2 --mem-fraction-static 0.8 --tp-size 4", want{
			args:   map[string]string{"--tp-size": "4"},
			issues: []wantIssue{{kind: deploy.FlagDuplicate, flag: "--tp-size", written: "--tp-size", word: "--tp-size", nth: 0, contains: "run.sh:1:39"}},
		}},
		{"duplicate through an alias", "--tp-size 2 --tensor-parallel-size 8", want{
			args:   map[string]string{"--tp-size": "8"},
			issues: []wantIssue{{kind: deploy.FlagDuplicate, flag: "--tp-size", written: "--tp-size", word: "--tp-size"}},
		}},
		{"duplicate through a deprecated alias", "--cuda-graph-max-bs 8 --cuda-graph-max-bs-decode 16", want{
			args:   map[string]string{"--cuda-graph-max-bs-decode": "16"},
			issues: []wantIssue{{kind: deploy.FlagDuplicate, written: "--cuda-graph-max-bs", word: "--cuda-graph-max-bs"}},
		}},
		{"deprecated alias stores under the new name", "--cuda-graph-max-bs 16", want{
			args:   map[string]string{"--cuda-graph-max-bs-decode": "16"},
			absent: []string{"--cuda-graph-max-bs"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, flag: "--cuda-graph-max-bs", written: "--cuda-graph-max-bs", word: "--cuda-graph-max-bs", suggestion: "--cuda-graph-max-bs-decode", contains: "use --cuda-graph-max-bs-decode"}},
		}},
		{"deprecated store-const", "--disable-piecewise-cuda-graph", want{
			args:   map[string]string{"--cuda-graph-backend-prefill": "disabled"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, flag: "--disable-piecewise-cuda-graph", suggestion: "--cuda-graph-backend-prefill"}},
		}},
		{"deprecated no-op", "--prefill-round-robin-balance", want{
			args:   map[string]string{"--prefill-round-robin-balance": "true"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, contains: "no effect"}},
		}},
		{"deprecated --disable-cuda-graph", "--disable-cuda-graph", want{
			args:   map[string]string{"--disable-cuda-graph": "true"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, contains: "--cuda-graph-backend-{decode,prefill}=disabled"}},
		}},
		{"removed flag", "--disaggregation-decode-tp 2 --model-path m", want{
			args:   map[string]string{"--model-path": "m"},
			issues: []wantIssue{{kind: deploy.FlagRemoved, flag: "--disaggregation-decode-tp", word: "--disaggregation-decode-tp", contains: "#19618"}},
		}},
		{"removed flag with a replacement", "--hooks x", want{
			issues: []wantIssue{{kind: deploy.FlagRemoved, suggestion: "--forward-hooks", contains: "use --forward-hooks"}},
		}},
		{"removed flag that is now a prefix of another", "--enable-flashinfer", want{
			args:   map[string]string{"--enable-flashinfer-allreduce-fusion": "true"},
			issues: []wantIssue{{kind: deploy.FlagAbbreviated, written: "--enable-flashinfer", contains: "was removed"}},
		}},
		{"misspelling", "--mem-fraction-statc 0.8", want{
			absent: []string{"--mem-fraction-static"},
			issues: []wantIssue{{kind: deploy.FlagUnknown, flag: "--mem-fraction-statc", word: "--mem-fraction-statc", suggestion: "--mem-fraction-static", contains: "did you mean --mem-fraction-static"}},
		}},
		{"underscores", "--tp_size 8", want{
			issues: []wantIssue{{kind: deploy.FlagUnknown, suggestion: "--tp-size"}},
		}},
		{"far from anything: no suggestion", "--frobnicate-the-widgets", want{
			issues: []wantIssue{{kind: deploy.FlagUnknown, suggestion: ""}},
		}},
		{"negative number is a value", "--chunked-prefill-size -1", want{
			args: map[string]string{"--chunked-prefill-size": "-1"}, noIssues: true,
		}},
		{"negative float is a value", "--schedule-conservativeness -.5", want{
			args:   map[string]string{"--schedule-conservativeness": "-.5"},
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, contains: "must be in [0, ]"}},
		}},
		{"-1e3 is not a number to argparse", "--chunked-prefill-size -1e3", want{
			absent: []string{"--chunked-prefill-size"},
			issues: []wantIssue{
				{kind: deploy.FlagMissingValue, flag: "--chunked-prefill-size", contains: "expected one argument"},
				{kind: deploy.FlagUnknown, written: "-1e3"},
			},
		}},
		{"store_true", "--enable-metrics --trust-remote-code", want{
			args: map[string]string{"--enable-metrics": "true", "--trust-remote-code": "true"}, noIssues: true,
		}},
		{"store_true with =", "--enable-metrics=true", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--enable-metrics", word: "--enable-metrics=true", contains: "ignored explicit argument 'true'"}},
		}},
		{"boolean optional", "--no-lora-strict-loading", want{
			args: map[string]string{"--lora-strict-loading": "false"}, noIssues: true,
		}},
		{"nargs + list", "--cuda-graph-bs-decode 1 2 4 --model-path m", want{
			args: map[string]string{"--cuda-graph-bs-decode": "1 2 4", "--model-path": "m"}, noIssues: true,
		}},
		{"nargs + with = takes one item", "--cuda-graph-bs-decode=1 2", want{
			args:   map[string]string{"--cuda-graph-bs-decode": "1"},
			issues: []wantIssue{{kind: deploy.FlagUnknown, word: "2", contains: "unrecognized argument '2'"}},
			pos:    []string{"2"},
		}},
		{"nargs + items validated", "--cuda-graph-bs-decode 1 two", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, word: "two", contains: "invalid int value: 'two'"}},
		}},
		{"missing value at the end", "--model-path m --served-model-name", want{
			absent: []string{"--served-model-name"},
			issues: []wantIssue{{kind: deploy.FlagMissingValue, flag: "--served-model-name", word: "--served-model-name"}},
		}},
		{"missing value before an option", "--model-path --tp-size 2", want{
			args:   map[string]string{"--tp-size": "2"},
			issues: []wantIssue{{kind: deploy.FlagMissingValue, flag: "--model-path"}},
		}},
		{"choices", "--kv-cache-dtype fp8 --disaggregation-mode prefill", want{
			args:   map[string]string{"--disaggregation-mode": "prefill"},
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--kv-cache-dtype", word: "fp8", contains: "invalid choice: 'fp8'"}},
		}},
		{"int choices compare after conversion", "--fuseep-mode 01", want{
			args: map[string]string{"--fuseep-mode": "01"}, noIssues: true,
		}},
		{"cited range, exclusive bound", "--swa-full-tokens-ratio 0", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, word: "0", contains: "(0, 1]"}},
		}},
		{"cited range, inclusive bound", "--swa-full-tokens-ratio 1.0 --tokenizer-worker-num 1", want{noIssues: true}},
		{"cited range, nan is out", "--swa-full-tokens-ratio nan", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue}},
		}},
		{"no range for mem-fraction-static", "--mem-fraction-static 1.5", want{noIssues: true}},
		{"int type", "--tp-size 2.0", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--tp-size", contains: "invalid int value: '2.0'"}},
		}},
		{"python int syntax", "--tp-size 1_6 --dp-size +2", want{noIssues: true}},
		{"float type", "--mem-fraction-static 0.8a", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, contains: "invalid float value"}},
		}},
		{"json type", `--json-model-override-args {"a":1} --mm-process-config {bad`, want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--mm-process-config", contains: "invalid loads value"}},
		}},
		{"positional", "m --tp-size 2", want{
			pos:    []string{"m"},
			issues: []wantIssue{{kind: deploy.FlagUnknown, word: "m", contains: "no positional arguments"}},
		}},
		{"everything after -- is positional", "--tp-size 2 -- --dp-size 2", want{
			args:   map[string]string{"--tp-size": "2"},
			absent: []string{"--dp-size"},
			pos:    []string{"--dp-size", "2"},
		}},
		{"nargs ? without value", "--model-checksum --tp-size 1", want{
			args: map[string]string{"--model-checksum": "", "--tp-size": "1"}, noIssues: true,
		}},
		{"single dash typo", "-tp 8", want{
			issues: []wantIssue{{kind: deploy.FlagUnknown, written: "-tp", suggestion: "--tp-size"}},
		}},
		{"help", "--help", want{args: map[string]string{"-h": "true"}, noIssues: true}},

		// Placeholders are never interpreted.
		{"placeholder value", "--tp-size $TP --context-length ${CTX}", want{
			args: map[string]string{"--tp-size": "?", "--context-length": "?"}, noIssues: true,
		}},
		{"placeholder after =", "--tp-size=$TP", want{
			args: map[string]string{"--tp-size": "?"}, noIssues: true,
		}},
		{"placeholder where an option could stand", "--model-path m $EXTRA_ARGS --enable-metrics {{.Values.extra}}", want{
			args:   map[string]string{"--model-path": "m", "--enable-metrics": "true"},
			opaque: []string{"$EXTRA_ARGS", "{{.Values.extra}}"},
		}},
		{"placeholder after a list's items", "--cuda-graph-bs-decode 1 2 $MORE", want{
			args:   map[string]string{"--cuda-graph-bs-decode": "?"},
			opaque: []string{"$MORE"},
		}},
		{"placeholder as the first item of a list", "--cuda-graph-bs-decode $BS", want{
			args: map[string]string{"--cuda-graph-bs-decode": "?"}, noIssues: true,
		}},
		{"placeholder option name", "--${FLAG} 3", want{
			opaque: []string{"--${FLAG}"},
			pos:    []string{"3"},
		}},
		{"config=path is not read", "--config=server.yaml", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--config", contains: "never read"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parseServer(tt.cmd)
			check(t, tt.cmd, res, tt.want)
		})
	}
}

func check(t *testing.T, cmd string, res Result, w want) {
	t.Helper()
	for k, v := range w.args {
		got, ok := res.Args[k]
		switch {
		case !ok:
			t.Errorf("Args[%s] missing; args %v", k, res.Args)
		case v == "?" && got.Known:
			t.Errorf("Args[%s] = %q known, want a placeholder", k, got.Raw)
		case v != "?" && (got.Raw != v || !got.Known):
			t.Errorf("Args[%s] = %q (known %v), want %q", k, got.Raw, got.Known, v)
		}
	}
	for _, k := range w.absent {
		if v, ok := res.Args[k]; ok {
			t.Errorf("Args[%s] = %q, want absent", k, v.Raw)
		}
	}
	if w.noIssues && len(res.Issues) > 0 {
		t.Errorf("unexpected issues: %+v", res.Issues)
	}
	for _, wi := range w.issues {
		found := false
		for _, is := range issuesOf(res, wi.kind) {
			if (wi.flag == "" || is.Flag == wi.flag) && (wi.written == "" || is.Written == wi.written) &&
				(wi.contains == "" || strings.Contains(is.Message, wi.contains)) &&
				(wi.suggestion == is.Suggestion || (wi.suggestion == "" && wi.kind != deploy.FlagUnknown)) {
				if wi.word != "" {
					if col := colOf(t, cmd, wi.word, wi.nth); is.Span.Col != col || is.Span.Line != 1 || is.Span.File != "run.sh" {
						t.Errorf("%s issue span %v, want run.sh:1:%d", wi.kind, is.Span, col)
					}
				}
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no %s issue like %+v; issues: %+v", wi.kind, wi, res.Issues)
		}
	}
	var opaque, pos []string
	for _, v := range res.Opaque {
		opaque = append(opaque, v.Raw)
	}
	for _, v := range res.Positionals {
		pos = append(pos, v.Raw)
	}
	if strings.Join(opaque, " ") != strings.Join(w.opaque, " ") {
		t.Errorf("Opaque = %q, want %q", opaque, w.opaque)
	}
	if strings.Join(pos, " ") != strings.Join(w.pos, " ") {
		t.Errorf("Positionals = %q, want %q", pos, w.pos)
	}
	for _, is := range res.Issues {
		if is.Span.IsZero() {
			t.Errorf("issue without a span: %+v", is)
		}
	}
}

func TestParseSpans(t *testing.T) {
	cmd := "--tp=8 --cuda-graph-bs-decode 1 2 4 --enable-metrics"
	res := parseServer(cmd)
	tp := res.Args["--tp-size"]
	if tp.Span.Col != 6 || tp.Span.EndCol != 7 {
		t.Errorf("value after = spans %v, want columns 6-7", tp.Span)
	}
	bs := res.Args["--cuda-graph-bs-decode"]
	if bs.Span.Col != colOf(t, cmd, "1", 0) || bs.Span.EndCol != colOf(t, cmd, "4", 0)+1 {
		t.Errorf("list spans %v, want first item to last", bs.Span)
	}
	if items := res.Lists["--cuda-graph-bs-decode"]; len(items) != 1 || len(items[0]) != 3 || items[0][2].Span.Col != colOf(t, cmd, "4", 0) {
		t.Errorf("Lists = %+v", items)
	}
	flag := res.Args["--enable-metrics"]
	if flag.Span.Col != colOf(t, cmd, "--enable-metrics", 0) || flag.Span.EndCol != flag.Span.Col+len("--enable-metrics") {
		t.Errorf("store_true spans %v, want the flag", flag.Span)
	}
	abbrev := issuesOf(res, deploy.FlagAbbreviated)
	if len(abbrev) != 1 || abbrev[0].Span.Col != 1 || abbrev[0].Span.EndCol != 5 {
		t.Errorf("abbreviation issue %+v, want the span of --tp only", abbrev)
	}
}

func TestParseRouter(t *testing.T) {
	cmd := "--pd-disaggregation --prefill http://p1:30000 9000 --prefill http://p2:30000 --decode http://d1:30001 --decode http://d2:30001 --prefill-policy cache_aware --decode-policy power_of_two --host 0.0.0.0 --port 8000"
	res := Lookup(SGLangRouter).Parse(line(cmd), nil)
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %+v", res.Issues)
	}
	prefill := res.Lists["--prefill"]
	if len(prefill) != 2 || len(prefill[0]) != 2 || prefill[0][1].Raw != "9000" || len(prefill[1]) != 1 || prefill[1][0].Raw != "http://p2:30000" {
		t.Errorf("--prefill occurrences = %+v", prefill)
	}
	if got := res.Args["--prefill"].Raw; got != "http://p1:30000 9000 http://p2:30000" {
		t.Errorf("Args[--prefill] = %q", got)
	}
	if d := res.Lists["--decode"]; len(d) != 2 || d[1][0].Raw != "http://d2:30001" {
		t.Errorf("--decode occurrences = %+v", d)
	}
	if res.Args["--pd-disaggregation"].Raw != "true" || res.Args["--port"].Raw != "8000" {
		t.Errorf("args = %+v", res.Args)
	}

	// --decode takes exactly one URL (nargs=1): a second word is unrecognized.
	res = Lookup(SGLangRouter).Parse(line("--decode http://d1 http://d2"), nil)
	if len(res.Positionals) != 1 || res.Positionals[0].Raw != "http://d2" {
		t.Errorf("positionals = %+v", res.Positionals)
	}
	// Service discovery selectors are lists.
	res = Lookup(SGLangRouter).Parse(line("--service-discovery --prefill-selector app=sglang role=prefill --decode-selector role=decode --policy round_robin"), nil)
	if got := res.Args["--prefill-selector"].Raw; got != "app=sglang role=prefill" || len(res.Issues) != 0 {
		t.Errorf("--prefill-selector = %q, issues %+v", got, res.Issues)
	}
	res = Lookup(SGLangRouter).Parse(line("--policy fastest --model-path m --config x.yaml"), nil)
	if len(issuesOf(res, deploy.FlagInvalidValue)) != 1 || len(issuesOf(res, deploy.FlagUnknown)) != 1 {
		t.Errorf("want an invalid policy and an unknown --config: %+v", res.Issues)
	}
}

func TestParseRouterServer(t *testing.T) {
	res := Lookup(SGLangRouterServer).Parse(line("--model-path m --dp-size 2 --router-policy round_robin --router-dp-worker-base-port 32000 --config x.yaml"), nil)
	if res.Args["--router-policy"].Raw != "round_robin" || res.Args["--dp-size"].Raw != "2" || res.Args["--router-dp-worker-base-port"].Raw != "32000" {
		t.Errorf("args = %+v", res.Args)
	}
	ign := issuesOf(res, deploy.FlagInvalidValue)
	if len(ign) != 1 || !strings.Contains(ign[0].Message, "never reads --config") {
		t.Errorf("want the ignored --config reported: %+v", res.Issues)
	}
	if len(res.Errors) != 0 {
		t.Errorf("the file must not be read: %v", res.Errors)
	}
}
