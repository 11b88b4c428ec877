package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestVLLMHumanReadableInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string // substring of the error; "" = no error
	}{
		{"1k", 1000, ""},
		{"1K", 1024, ""},
		{"25.6k", 25600, ""},
		{"1.005k", 1004, ""}, // int(float('1.005') * 1000): the float product truncates
		{"32k", 32000, ""},
		{"32K", 32768, ""},
		{"128K", 131072, ""},
		{"1m", 1_000_000, ""},
		{"1M", 1 << 20, ""},
		{"2g", 2_000_000_000, ""},
		{"80G", 80 << 30, ""},
		{"1t", 1_000_000_000_000, ""},
		{"1T", 1 << 40, ""},
		{" 8192 ", 8192, ""},
		{"1_000", 1000, ""},
		{"-1", -1, ""},
		{"1.5K", 0, "Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?"},
		{"1Ki", 0, "invalid literal"}, // SGLang's IEC suffix is not vLLM's
		{"1e3", 0, "invalid literal"},
		{"auto", 0, "invalid literal"},
		{"k", 0, "invalid literal"},
		{"", 0, "invalid literal"},
	}
	for _, tt := range tests {
		got, err := VLLMHumanReadableInt(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: error %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.err)
		case tt.err == "" && got != tt.want:
			t.Errorf("%q = %d, want %d", tt.in, got, tt.want)
		}
	}
	if _, err := VLLMHumanReadableInt("99999999999T"); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("99999999999T: %v, want ErrOutOfRange", err)
	}
	for _, in := range []string{"-1", "auto", "AUTO", " auto "} {
		if n, err := VLLMHumanReadableIntOrAuto(in); err != nil || n != -1 {
			t.Errorf("or-auto %q = %d, %v; want -1", in, n, err)
		}
	}
	// The two engines read the same text differently.
	if n, _ := HumanReadableInt("1M"); n != 1_000_000 {
		t.Errorf("SGLang 1M = %d", n)
	}
	if _, err := HumanReadableInt("1K"); err == nil {
		t.Errorf("SGLang accepts 1K")
	}
}

func TestVLLMTable(t *testing.T) {
	tb := Lookup(VLLMServer)
	if tb == nil {
		t.Fatal("no vLLM table")
	}
	// Generated from vllm-project/vllm 9aaf83ef502f; a change in these
	// counts means the data was regenerated and needs review.
	if got := len(tb.Flags()); got != 255 {
		t.Errorf("%d flags, want 255", got)
	}
	if got := len(tb.RemovedFlags()); got != 82 {
		t.Errorf("%d removed flags, want 82", got)
	}
	tests := []struct {
		name, canon, typ, def, action, aliases, choice string
	}{
		{"--enable-prefix-caching", "--enable-prefix-caching", "bool", "None", "boolean_optional", "--no-enable-prefix-caching", ""},
		{"--no-enable-prefix-caching", "--enable-prefix-caching", "bool", "None", "boolean_optional", "--no-enable-prefix-caching", ""},
		{"-tp", "--tensor-parallel-size", "int", "1", "store", "-tp", ""},
		{"-pp", "--pipeline-parallel-size", "int", "1", "store", "-pp", ""},
		{"-dp", "--data-parallel-size", "int", "1", "store", "-dp", ""},
		{"--gpu-memory-utilization", "--gpu-memory-utilization", "float", "0.92", "store", "", ""},
		{"--kv-cache-memory-bytes", "--kv-cache-memory-bytes", "optional:vllm_human_readable_int", "None", "store", "", ""},
		{"--max-model-len", "--max-model-len", "vllm_human_readable_int_or_auto", "None", "store", "", ""},
		{"--max-num-batched-tokens", "--max-num-batched-tokens", "vllm_human_readable_int", "None", "store", "", ""},
		{"--num-gpu-blocks-override", "--num-gpu-blocks-override", "optional:int", "None", "store", "", ""},
		{"--block-size", "--block-size", "int", "None", "store", "", ""},
		{"--kv-cache-dtype", "--kv-cache-dtype", "str", "'auto'", "store", "", "fp8_e4m3"},
		{"--kv-transfer-config", "--kv-transfer-config", "optional:json", "None", "store", "", ""},
		{"--hf-token", "--hf-token", "str", "None", "store", "", ""},
		{"--disable-log-stats", "--disable-log-stats", "bool", "False", "store_true", "", ""},
	}
	for _, tt := range tests {
		f, ok := tb.Flag(tt.name)
		if !ok || f.Removed != "" {
			t.Errorf("%s: not a live flag", tt.name)
			continue
		}
		if f.Key != tt.canon || f.Type != tt.typ || f.Default != tt.def || f.Action != tt.action {
			t.Errorf("%s: key %s type %s default %s action %s, want %s %s %s %s", tt.name, f.Key, f.Type, f.Default, f.Action, tt.canon, tt.typ, tt.def, tt.action)
		}
		if tt.aliases != "" && !slices.Contains(f.Aliases, tt.aliases) {
			t.Errorf("%s: aliases %v lack %s", tt.name, f.Aliases, tt.aliases)
		}
		if tt.choice != "" && !slices.Contains(f.Choices, tt.choice) {
			t.Errorf("%s: choices %v lack %s", tt.name, f.Choices, tt.choice)
		}
	}
	f, _ := tb.Flag("--gpu-memory-utilization")
	if f.Min == nil || *f.Min != 0 || !f.MinOpen || f.Max == nil || *f.Max != 1 || f.MaxOpen {
		t.Errorf("--gpu-memory-utilization range %s, want (0, 1]", f.rangeString())
	}
	kv, _ := tb.Flag("--kv-transfer-config")
	for _, k := range []string{"kv_connector", "kv_role", "kv_port", "kv_connector_extra_config"} {
		if !kv.hasKey(k) {
			t.Errorf("--kv-transfer-config lacks key %s", k)
		}
	}
	if kv.hasKey("kv_rol") {
		t.Errorf("--kv-transfer-config accepts any key")
	}
	r, ok := tb.Flag("--swap-space")
	if !ok || r.Removed == "" || !strings.Contains(r.Removed, "#36216") {
		t.Errorf("--swap-space: %+v, want removed by #36216", r)
	}
}

// parseVLLM parses a `vllm serve` argv (the words after serve).
func parseVLLM(cmd string, read ReadFile) Result {
	return Lookup(VLLMServer).Parse(line(cmd), read)
}

func TestParseVLLM(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		want want
	}{
		{"positional model and short forms", "meta-llama/Llama-3.1-8B-Instruct -tp 4 -pp 2 -dp 2", want{
			args:     map[string]string{"--tensor-parallel-size": "4", "--pipeline-parallel-size": "2", "--data-parallel-size": "2"},
			pos:      []string{"meta-llama/Llama-3.1-8B-Instruct"},
			noIssues: true,
		}},
		{"short form with =", "m -tp=4", want{args: map[string]string{"--tensor-parallel-size": "4"}, noIssues: true}},
		{"short option with its value attached", "m -qfp8", want{args: map[string]string{"--quantization": "fp8"}, noIssues: true}},
		{"underscores are dashes up to the first dot", "m --gpu_memory_utilization 0.95 --max_num_seqs=64 --enable_prefix_caching", want{
			args:     map[string]string{"--gpu-memory-utilization": "0.95", "--max-num-seqs": "64", "--enable-prefix-caching": "true"},
			noIssues: true,
		}},
		{"--no- booleans", "m --no-enable-prefix-caching --no_enable_chunked_prefill", want{
			args:     map[string]string{"--enable-prefix-caching": "false", "--enable-chunked-prefill": "false"},
			noIssues: true,
		}},
		{"1k is decimal, 1K binary", "m --max-num-batched-tokens 1k --max-model-len 128K --kv-cache-memory-bytes 20G", want{
			args:     map[string]string{"--max-num-batched-tokens": "1k", "--max-model-len": "128K", "--kv-cache-memory-bytes": "20G"},
			noIssues: true,
		}},
		{"decimals with a binary suffix", "m --max-num-batched-tokens 1.5K", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--max-num-batched-tokens", word: "1.5K", contains: "Did you mean to use 1.5k instead?"}},
		}},
		{"max-model-len auto", "m --max-model-len auto", want{args: map[string]string{"--max-model-len": "auto"}, noIssues: true}},
		{"SGLang's suffix is not vLLM's", "m --max-model-len 128Ki", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--max-model-len", word: "128Ki", contains: "1K as 1024"}},
		}},
		{"removed flag", "m --swap-space 4", want{
			absent: []string{"--swap-space"},
			issues: []wantIssue{{kind: deploy.FlagRemoved, flag: "--swap-space", written: "--swap-space", word: "--swap-space", contains: "removed from vLLM (2026-03-07 #36216"}},
		}},
		{"removed flag written with underscores", "m --swap_space 4", want{
			issues: []wantIssue{{kind: deploy.FlagRemoved, flag: "--swap-space", written: "--swap-space", word: "--swap_space"}},
		}},
		{"removed flag with its replacement named", "m --enable-reasoning", want{
			issues: []wantIssue{{kind: deploy.FlagRemoved, flag: "--enable-reasoning", suggestion: "--reasoning-parser", contains: "use --reasoning-parser instead"}},
		}},
		{"range checked by pydantic", "m --gpu-memory-utilization 1.5", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--gpu-memory-utilization", word: "1.5", contains: "must be in (0, 1]; vLLM refuses to start (vllm/config/cache.py"}},
		}},
		{"prefix abbreviation", "m --kv-cache-memory 8G", want{
			args:   map[string]string{"--kv-cache-memory-bytes": "8G"},
			issues: []wantIssue{{kind: deploy.FlagAbbreviated, flag: "--kv-cache-memory-bytes", written: "--kv-cache-memory"}},
		}},
		{"single-dash abbreviation", "m -t 2", want{
			args:   map[string]string{"--tensor-parallel-size": "2"},
			issues: []wantIssue{{kind: deploy.FlagAbbreviated, flag: "--tensor-parallel-size", written: "-t"}},
		}},
		{"ambiguous single-dash prefix", "m -d 2", want{
			issues: []wantIssue{{kind: deploy.FlagAmbiguous, written: "-d", contains: "could match -dcp, -dp, -dpn"}},
		}},
		{"-O3 and -O 2", "m -O3", want{args: map[string]string{"--optimization-level": "3"}, noIssues: true}},
		{"-O n", "m -O 2", want{args: map[string]string{"--optimization-level": "2"}, noIssues: true}},
		{"-O=n", "m -O=1", want{args: map[string]string{"--optimization-level": "1"}, noIssues: true}},
		{"--model is moved to the front", "--dtype auto --model meta-llama/Llama-3.1-8B -tp 2", want{
			args:   map[string]string{"--dtype": "auto", "--tensor-parallel-size": "2"},
			absent: []string{"--model"},
			pos:    []string{"meta-llama/Llama-3.1-8B"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, flag: "--model", word: "--model", contains: "deprecated"}},
		}},
		{"--model= is moved too", "--model=m", want{
			pos:    []string{"m"},
			issues: []wantIssue{{kind: deploy.FlagDeprecated, flag: "--model"}},
		}},
		{"a second positional", "m other", want{
			pos:    []string{"m", "other"},
			issues: []wantIssue{{kind: deploy.FlagUnknown, word: "other", contains: "one positional argument"}},
		}},
		{"served-model-name without a positional model", "--port 8000 --served-model-name x", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--served-model-name", word: "--served-model-name", contains: "should be provided as the first positional argument"}},
		}},
		{"unknown flag", "m --max-mdoel-len 4096", want{
			issues: []wantIssue{{kind: deploy.FlagUnknown, written: "--max-mdoel-len", suggestion: "--max-model-len"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkResult(t, tt.cmd, parseVLLM(tt.cmd, nil), tt.want)
		})
	}
}

// checkResult asserts a want against a parse of cmd (words as line()
// splits them).
func checkResult(t *testing.T, cmd string, res Result, w want) {
	t.Helper()
	for k, v := range w.args {
		got, ok := res.Args[k]
		switch {
		case !ok:
			t.Errorf("Args[%s] missing (args %v)", k, res.Args)
		case v == "?" && got.Known:
			t.Errorf("Args[%s] = %q is known, want a placeholder", k, got.Raw)
		case v != "?" && (got.Raw != v || !got.Known):
			t.Errorf("Args[%s] = %q (known %v), want %q", k, got.Raw, got.Known, v)
		}
	}
	for _, k := range w.absent {
		if _, ok := res.Args[k]; ok {
			t.Errorf("Args[%s] present", k)
		}
	}
	if w.noIssues && len(res.Issues) != 0 {
		t.Errorf("issues: %+v", res.Issues)
	}
	if w.pos != nil {
		var got []string
		for _, p := range res.Positionals {
			got = append(got, p.Raw)
		}
		if !slices.Equal(got, w.pos) {
			t.Errorf("positionals %v, want %v", got, w.pos)
		}
	}
	for _, wi := range w.issues {
		found := false
		for _, is := range res.Issues {
			if is.Kind != wi.kind || (wi.flag != "" && is.Flag != wi.flag) || (wi.written != "" && is.Written != wi.written) ||
				(wi.suggestion != "" && is.Suggestion != wi.suggestion) || !strings.Contains(is.Message, wi.contains) {
				continue
			}
			if wi.word != "" && is.Span.Col != colOf(t, cmd, wi.word, wi.nth) {
				t.Errorf("%s issue at column %d, want the column of %q", wi.kind, is.Span.Col, wi.word)
			}
			found = true
		}
		if !found {
			t.Errorf("no issue %+v in %+v", wi, res.Issues)
		}
	}
}

func TestParseVLLMDottedKeys(t *testing.T) {
	cmd := "m --kv_transfer_config.kv_connector NixlConnector --kv-transfer-config.kv_role=kv_producer --kv-transfer-config.kv_port 1k"
	res := parseVLLM(cmd, nil)
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %+v", res.Issues)
	}
	cfg := res.Args["--kv-transfer-config"]
	if cfg.Raw != `{"kv_connector": "NixlConnector", "kv_role": "kv_producer", "kv_port": 1000}` || !cfg.Known {
		t.Errorf("merged value %q", cfg.Raw)
	}
	if cfg.Span.Col != colOf(t, cmd, "--kv_transfer_config.kv_connector", 0) {
		t.Errorf("merged value spans column %d, want the first dotted key", cfg.Span.Col)
	}
	// Each key keeps the span of its own value.
	keys := []struct{ key, raw, word string }{
		{"kv_connector", "NixlConnector", "NixlConnector"},
		{"kv_port", "1000", "1k"},
	}
	for _, k := range keys {
		v := res.Args["--kv-transfer-config."+k.key]
		if v.Raw != k.raw || v.Span.Col != colOf(t, cmd, k.word, 0) || v.Span.EndCol != v.Span.Col+len(k.word) {
			t.Errorf("%s = %q at %d-%d, want %q at the column of %q", k.key, v.Raw, v.Span.Col, v.Span.EndCol, k.raw, k.word)
		}
	}
	role := res.Args["--kv-transfer-config.kv_role"]
	want := colOf(t, cmd, "--kv-transfer-config.kv_role=kv_producer", 0) + len("--kv-transfer-config.kv_role=")
	if role.Raw != "kv_producer" || role.Span.Col != want {
		t.Errorf("kv_role = %q at column %d, want kv_producer at %d", role.Raw, role.Span.Col, want)
	}
}

func TestParseVLLMJSONKeys(t *testing.T) {
	cmd := `m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_consumer","kv_buffer_size":5e9}`
	res := parseVLLM(cmd, nil)
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %+v", res.Issues)
	}
	word := `{"kv_connector":"NixlConnector","kv_role":"kv_consumer","kv_buffer_size":5e9}`
	base := colOf(t, cmd, word, 0)
	tests := []struct{ key, raw, text string }{
		{"kv_connector", "NixlConnector", `"NixlConnector"`},
		{"kv_role", "kv_consumer", `"kv_consumer"`},
		{"kv_buffer_size", "5e9", "5e9"},
	}
	for _, tt := range tests {
		v := res.Args["--kv-transfer-config."+tt.key]
		at := base + strings.Index(word, tt.text)
		if v.Raw != tt.raw || v.Span.Col != at || v.Span.EndCol != at+len(tt.text) {
			t.Errorf("%s = %q at %d-%d, want %q at %d-%d", tt.key, v.Raw, v.Span.Col, v.Span.EndCol, tt.raw, at, at+len(tt.text))
		}
	}
}

func TestParseVLLMJSONProblems(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		want want
	}{
		{"unknown key", `m --kv-transfer-config {"kv_connector":"NixlConnector","kv_rol":"kv_producer"}`, want{
			issues: []wantIssue{
				{kind: deploy.FlagInvalidValue, flag: "--kv-transfer-config", written: "--kv-transfer-config.kv_rol", contains: "did you mean kv_role?"},
				{kind: deploy.FlagInvalidValue, flag: "--kv-transfer-config", written: "--kv-transfer-config.kv_connector", contains: "Please specify kv_role"},
			},
		}},
		{"unknown dotted key", "m --kv-transfer-config.kv_rol kv_producer", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, written: "--kv-transfer-config.kv_rol", word: "--kv-transfer-config.kv_rol", contains: "forbid extra keys"}},
		}},
		{"bad role", "m --kv-transfer-config.kv_connector X --kv-transfer-config.kv_role producer", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, written: "--kv-transfer-config.kv_role", word: "producer", contains: "not one of kv_producer, kv_consumer, kv_both"}},
		}},
		{"not JSON", "m --kv-transfer-config {kv_role:x}", want{
			issues: []wantIssue{{kind: deploy.FlagInvalidValue, flag: "--kv-transfer-config", word: "{kv_role:x}", contains: "not valid JSON"}},
		}},
		{"human-readable numbers inside JSON", `m --kv-transfer-config {"kv_buffer_size":2g}`, want{
			args: map[string]string{"--kv-transfer-config": `{"kv_buffer_size":2g}`}, noIssues: true,
		}},
		{"JSON discarded by dotted keys", `m --kv-transfer-config {"kv_connector":"NixlConnector"} --kv-transfer-config.kv_role kv_both`, want{
			args:   map[string]string{"--kv-transfer-config": `{"kv_role": "kv_both"}`, "--kv-transfer-config.kv_role": "kv_both"},
			absent: []string{"--kv-transfer-config.kv_connector"},
			issues: []wantIssue{{kind: deploy.FlagDuplicate, flag: "--kv-transfer-config", word: "--kv-transfer-config", contains: "discarded, not merged"}},
		}},
		{"dotted key given twice", "m --kv-transfer-config.kv_port 1 --kv-transfer-config.kv_port 2", want{
			args:   map[string]string{"--kv-transfer-config.kv_port": "2"},
			issues: []wantIssue{{kind: deploy.FlagDuplicate, word: "--kv-transfer-config.kv_port", nth: 0, contains: "Found duplicate keys"}},
		}},
		{"dotted list append", "m --compilation-config.splitting_ops+ a,b --compilation-config.splitting_ops+ c", want{
			args: map[string]string{"--compilation-config": `{"splitting_ops": ["a", "b", "c"]}`}, noIssues: true,
		}},
		{"nested dotted keys", "m --kv-transfer-config.kv_connector_extra_config.backends UCX", want{
			args: map[string]string{"--kv-transfer-config.kv_connector_extra_config": `{"backends": "UCX"}`}, noIssues: true,
		}},
		{"dotted key as the last word", "m --kv-transfer-config.kv_role", want{
			issues: []wantIssue{{kind: deploy.FlagMissingValue, contains: "IndexError"}},
		}},
		{"placeholder value", "m --kv-transfer-config.kv_connector NixlConnector --kv-transfer-config.kv_role $ROLE", want{
			args: map[string]string{"--kv-transfer-config.kv_role": "?", "--kv-transfer-config": "?", "--kv-transfer-config.kv_connector": "NixlConnector"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkResult(t, tt.cmd, parseVLLM(tt.cmd, nil), tt.want)
		})
	}
}

const vllmYAML = `# vLLM serving config
model: meta-llama/Llama-3.1-8B-Instruct
tensor_parallel_size: 2
gpu-memory-utilization: 0.85
enable-prefix-caching: false
enforce-eager: true
max-model-len: 32k
api-key: [k1, k2]
kv-transfer-config:
  kv_connector: NixlConnector
  kv_role: kv_both
port: 8000
`

func TestVLLMConfigFile(t *testing.T) {
	cmd := "--config serve.yaml --port 8001"
	res := parseVLLM(cmd, files(map[string]string{"serve.yaml": vllmYAML}))
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	want := map[string]string{
		"--model":                      "meta-llama/Llama-3.1-8B-Instruct",
		"--tensor-parallel-size":       "2", // underscores work in vLLM's files
		"--gpu-memory-utilization":     "0.85",
		"--enforce-eager":              "true",
		"--max-model-len":              "32k",
		"--api-key":                    "k1 k2",
		"--kv-transfer-config":         `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`,
		"--kv-transfer-config.kv_role": "kv_both",
		"--port":                       "8001", // the command line wins
	}
	for k, v := range want {
		if got := res.Args[k]; got.Raw != v || !got.Known {
			t.Errorf("Args[%s] = %q, want %q", k, got.Raw, v)
		}
	}
	if _, ok := res.Args["--enable-prefix-caching"]; ok {
		t.Errorf("enable-prefix-caching: false reached argparse")
	}
	// "enable-prefix-caching: false" is dropped by vLLM: prefix caching stays on.
	var dropped *deploy.FlagIssue
	for i, is := range res.Issues {
		if is.Kind == deploy.FlagInvalidValue && is.Flag == "--enable-prefix-caching" {
			dropped = &res.Issues[i]
		}
	}
	if dropped == nil || !strings.Contains(dropped.Message, "keeps its default (on)") || dropped.Span.File != "cfg/serve.yaml" || dropped.Span.Line != 5 || dropped.Suggestion != "--no-enable-prefix-caching" {
		t.Errorf("dropped false: %+v", dropped)
	}
	if len(res.Issues) != 1 {
		t.Errorf("issues: %+v", res.Issues)
	}
	tp := res.Args["--tensor-parallel-size"]
	if tp.Span.File != "cfg/serve.yaml" || tp.Span.Line != 3 || tp.Span.Col != 23 {
		t.Errorf("tp span %+v, want cfg/serve.yaml:3:23", tp.Span)
	}
	role := res.Args["--kv-transfer-config.kv_role"]
	if role.Span.File != "cfg/serve.yaml" || role.Span.Line != 11 || role.Span.Col != 12 || role.Span.EndCol != 19 {
		t.Errorf("kv_role span %+v, want its value at cfg/serve.yaml:11:12", role.Span)
	}
}

func TestVLLMConfigFileErrors(t *testing.T) {
	read := files(map[string]string{"a.yaml": "port: 1\n", "list.yaml": "- a\n", "empty.yaml": ""})
	tests := []struct{ cmd, err string }{
		{"--port 1 --config a.yaml", "No model specified!"},
		{"m --config a.yaml --config a.yaml", "More than one config file specified!"},
		{"m --config", "No config file specified!"},
		{"m --config a.json", "Config file must be of a yaml/yml type. json supplied"},
		{"m --config list.yaml", "must hold a mapping"},
		{"m --config empty.yaml", "is empty"},
		{"m --config missing.yaml", "cannot read config file missing.yaml"},
	}
	for _, tt := range tests {
		res := parseVLLM(tt.cmd, read)
		if len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Message, tt.err) {
			t.Errorf("%s: errors %v, want %q", tt.cmd, res.Errors, tt.err)
		}
	}
	res := parseVLLM("m --config=a.yaml", read)
	if len(issuesOf(res, deploy.FlagInvalidValue)) != 1 || !strings.Contains(res.Issues[0].Message, "the file is never read") {
		t.Errorf("--config=: %+v", res.Issues)
	}
	res = parseVLLM("m --config $CFG", read)
	if len(res.Opaque) != 1 || len(res.Errors) != 0 {
		t.Errorf("placeholder config: opaque %v errors %v", res.Opaque, res.Errors)
	}
}

func TestVLLMServer(t *testing.T) {
	tests := []struct {
		cmd   string
		model string
		role  deploy.Role
		issue string // a substring of some issue's message
	}{
		{"vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000", "meta-llama/Llama-3.1-8B-Instruct", deploy.RoleColocated, ""},
		{"/usr/local/bin/vllm serve m", "m", deploy.RoleColocated, ""},
		{"vllm serve --model m", "m", deploy.RoleColocated, "deprecated"},
		{"vllm serve --port 8000", "", deploy.RoleColocated, ""},
		{"vllm serve m --kv-transfer-config.kv_connector NixlConnector --kv-transfer-config.kv_role kv_producer", "m", deploy.RolePrefill, ""},
		{`vllm serve m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_consumer"}`, "m", deploy.RoleDecode, ""},
		{`vllm serve m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_both"}`, "m", deploy.RoleColocated, ""},
		{`vllm serve m --kv-transfer-config {"kv_role":"kv_producer"}`, "m", deploy.RoleColocated, ""}, // no connector: not a transfer instance
		{"vllm serve m --kv-transfer-config $KV", "m", "", ""},
		{"vllm serve m --kv-transfer-config.kv_connector X --kv-transfer-config.kv_role $ROLE", "m", "", ""},
		{"vllm serve m --kv-transfer-config.kv_connector X", "m", "", "Please specify kv_role"},
		{"python3 -m vllm.entrypoints.openai.api_server --model m -tp 2", "m", deploy.RoleColocated, ""},
		{"python3 -m vllm.entrypoints.openai.api_server m", "", deploy.RoleColocated, "never uses it"},
		{"python -m vllm.entrypoints.cli.main serve m", "m", deploy.RoleColocated, ""},
		{"exec uv run vllm serve m", "m", deploy.RoleColocated, ""},
		{"vllm serve $MODEL_NAME --port 8000", "$MODEL_NAME", deploy.RoleColocated, ""},
		{"vllm serve --dtype auto --model ${MODEL}", "${MODEL}", deploy.RoleColocated, "deprecated"},
	}
	for _, tt := range tests {
		srv, errs, ok := Server(line(tt.cmd), nil)
		if !ok {
			t.Errorf("%s: not recognised", tt.cmd)
			continue
		}
		if srv.Engine != deploy.EngineVLLM || srv.Model.Raw != tt.model || srv.Role != tt.role || len(errs) != 0 {
			t.Errorf("%s: engine %s model %q role %q errors %v; want vllm %q %q", tt.cmd, srv.Engine, srv.Model.Raw, srv.Role, errs, tt.model, tt.role)
		}
		if tt.issue != "" {
			found := false
			for _, is := range srv.FlagIssues {
				found = found || strings.Contains(is.Message, tt.issue)
			}
			if !found {
				t.Errorf("%s: no issue %q in %+v", tt.cmd, tt.issue, srv.FlagIssues)
			}
		}
	}
	srv, _, _ := Server(line("vllm serve m"), nil)
	if srv.Model.Span.Col != 12 || srv.Span.Col != 1 {
		t.Errorf("spans: model %+v server %+v", srv.Model.Span, srv.Span)
	}
	// A placeholder that names a model is the model, unknown; one that may
	// hold flags is opaque.
	srv, _, _ = Server(line("vllm serve $MODEL -tp 2"), nil)
	if srv.Model.Raw != "$MODEL" || srv.Model.Known || len(srv.Opaque) != 0 || len(srv.FlagIssues) != 0 {
		t.Errorf("vllm serve $MODEL: model %+v opaque %v issues %v", srv.Model, srv.Opaque, srv.FlagIssues)
	}
	srv, _, _ = Server(line("vllm serve $ARGS"), nil)
	if srv.Model.IsSet() || len(srv.Opaque) != 1 {
		t.Errorf("vllm serve $ARGS: model %+v opaque %v", srv.Model, srv.Opaque)
	}
}
