package sarif

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenIncident pins the whole log of the bundled incident. Volatile
// fields are normalized: the version is fixed by the test and the working
// directory's URI becomes file:///SRCROOT/. The driver keeps only the rules
// with results, so adding an unrelated rule does not churn the file
// (TestGitHubConstraints checks that every rule is described).
// go test ./sarif -update rewrites it after an intended change.
func TestGoldenIncident(t *testing.T) {
	t.Chdir(repoRoot)
	rep, err := Build(logOf(t, repoRoot, "examples/incident"))
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	used := map[string]bool{}
	for _, r := range run.Results {
		used[*r.RuleID] = true
	}
	run.Tool.Driver.Rules = slices.DeleteFunc(run.Tool.Driver.Rules, func(d *gosarif.ReportingDescriptor) bool { return !used[d.ID] })
	for _, r := range run.Results {
		i := slices.IndexFunc(run.Tool.Driver.Rules, func(d *gosarif.ReportingDescriptor) bool { return d.ID == *r.RuleID })
		r.WithRuleIndex(i)
	}
	got, err := marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	got = bytes.ReplaceAll(got, []byte(newLocator(repoRoot).rootURI()), []byte("file:///SRCROOT/"))
	golden := filepath.Join(repoRoot, "sarif", "testdata", "incident.sarif")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./sarif -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the incident's SARIF differs from %s; if the change is intended, run go test ./sarif -update\n%s",
			golden, firstDifference(got, want))
	}
	if len(run.Results) == 0 {
		t.Errorf("the incident has no results")
	}
}

func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, gl, wl)
		}
	}
	return ""
}

// runOf decodes a log into the parts the tests look at.
type testRun struct {
	Tool struct {
		Driver struct {
			SemanticVersion string `json:"semanticVersion"`
			Rules           []struct {
				ID string `json:"id"`
			} `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	ColumnKind         string                       `json:"columnKind"`
	OriginalURIBaseIDs map[string]map[string]string `json:"originalUriBaseIds"`
	AutomationDetails  struct {
		ID string `json:"id"`
	} `json:"automationDetails"`
	Invocations []struct {
		ExitCode            int  `json:"exitCode"`
		ExecutionSuccessful bool `json:"executionSuccessful"`
		Notifications       []struct {
			Level   string `json:"level"`
			Message struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []testLocation `json:"locations"`
		} `json:"toolExecutionNotifications"`
	} `json:"invocations"`
	Results []struct {
		RuleID    string `json:"ruleId"`
		RuleIndex int    `json:"ruleIndex"`
		Level     string `json:"level"`
		Message   struct {
			Text string `json:"text"`
		} `json:"message"`
		Locations           []testLocation    `json:"locations"`
		RelatedLocations    []testLocation    `json:"relatedLocations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Suppressions        []struct {
			Kind          string       `json:"kind"`
			Status        string       `json:"status"`
			GUID          string       `json:"guid"`
			Justification string       `json:"justification"`
			Location      testLocation `json:"location"`
		} `json:"suppressions"`
		Properties map[string]string `json:"properties"`
	} `json:"results"`
}

type testLocation struct {
	ID               int `json:"id"`
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
			EndLine     int `json:"endLine"`
			EndColumn   int `json:"endColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
}

func (l testLocation) String() string {
	a, r := l.PhysicalLocation.ArtifactLocation, l.PhysicalLocation.Region
	return fmt.Sprintf("%s|%s:%d:%d-%d:%d", a.URIBaseID, a.URI, r.StartLine, r.StartColumn, r.EndLine, r.EndColumn)
}

func runOf(t testing.TB, data []byte) testRun {
	t.Helper()
	var log struct {
		Runs []testRun `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	return log.Runs[0]
}

func TestSyntheticLog(t *testing.T) {
	s := newSynthetic(t)
	t.Chdir(repoRoot) // span paths are absolute; %SRCROOT% is s.dir, not the process's directory
	run := runOf(t, encode(t, s.log))

	if got := run.Tool.Driver.SemanticVersion; got != "1.2.3" {
		t.Errorf("semanticVersion %q, want 1.2.3 (from v1.2.3)", got)
	}
	if run.AutomationDetails.ID != "kvlint/deploy/" {
		t.Errorf("automationDetails.id %q, want kvlint/deploy/", run.AutomationDetails.ID)
	}
	if run.ColumnKind != "utf16CodeUnits" {
		t.Errorf("columnKind %q", run.ColumnKind)
	}
	if got, want := run.OriginalURIBaseIDs[SrcRoot]["uri"], fileURI(resolve(s.dir), true); got != want {
		t.Errorf("originalUriBaseIds %s = %q, want %q", SrcRoot, got, want)
	}
	inv := run.Invocations[0]
	if inv.ExitCode != 3 || inv.ExecutionSuccessful {
		t.Errorf("invocation exit %d successful %v, want 3 and false (inputs were not analysed)", inv.ExitCode, inv.ExecutionSuccessful)
	}
	var notes []string
	for _, n := range inv.Notifications {
		where := ""
		if len(n.Locations) > 0 {
			where = " @" + n.Locations[0].String()
		}
		notes = append(notes, n.Level+": "+n.Message.Text+where)
	}
	wantNotes := []string{
		"error: cannot parse this @%SRCROOT%|my%20chart/templates/decode.yaml:2:3-2:5",
		"error: no such file @%SRCROOT%|missing.yaml:0:0-0:0",
		"error: an error with no position",
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notifications\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}

	if len(run.Results) != 5 {
		t.Fatalf("%d results, want 5", len(run.Results))
	}
	byRule := map[string]int{}
	for i, r := range run.Results {
		byRule[r.RuleID] = i
		if got := run.Tool.Driver.Rules[r.RuleIndex].ID; got != r.RuleID {
			t.Errorf("result %s: ruleIndex %d is rule %s", r.RuleID, r.RuleIndex, got)
		}
	}

	kv101 := run.Results[byRule["KV101"]]
	if got := kv101.Locations[0].String(); got != "%SRCROOT%|my%20chart/values.yaml:3:19-3:24" {
		t.Errorf("KV101 location %s", got)
	}
	var related []string
	for _, l := range kv101.RelatedLocations {
		related = append(related, fmt.Sprintf("%d %s %s", l.ID, l, l.Message.Text))
	}
	wantRelated := []string{
		"1 %SRCROOT%|my%20chart/templates/decode.yaml:3:6-3:42 the value is used here",
	}
	if strings.Join(related, "\n") != strings.Join(wantRelated, "\n") {
		t.Errorf("KV101 related locations\n%s\nwant\n%s", strings.Join(related, "\n"), strings.Join(wantRelated, "\n"))
	}
	if len(kv101.Suppressions) != 1 {
		t.Fatalf("KV101 suppressions %+v", kv101.Suppressions)
	}
	sup := kv101.Suppressions[0]
	if sup.Kind != "inSource" || sup.Status != "accepted" || sup.Justification != "the pool is raised by the autoscaler" ||
		sup.Location.String() != "%SRCROOT%|my%20chart/values.yaml:1:3-1:62" || sup.Location.Message.Text != "kvlint:ignore comment" {
		t.Errorf("KV101 suppression %+v", sup)
	}
	if kv101.Level != "error" || kv101.Properties["severity"] != "high" {
		t.Errorf("KV101 level %s properties %v", kv101.Level, kv101.Properties)
	}
	// The fingerprint is GitHub's hash of the finding's line.
	data, _ := os.ReadFile(s.values)
	if got, want := kv101.PartialFingerprints["primaryLocationLineHash"], LineHashes(data)[2]; got != want {
		t.Errorf("KV101 fingerprint %s, want %s", got, want)
	}

	kv403 := run.Results[byRule["KV403"]]
	if got, want := kv403.Locations[0].PhysicalLocation.ArtifactLocation.URI, fileURI(resolve(s.outside), false); got != want {
		t.Errorf("a file outside %s: uri %q, want the absolute %q", SrcRoot, got, want)
	}
	if base := kv403.Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID; base != "" {
		t.Errorf("an absolute URI has uriBaseId %q", base)
	}
	if kv403.Level != "note" || len(kv403.Suppressions) != 0 {
		t.Errorf("KV403 level %s suppressions %v", kv403.Level, kv403.Suppressions)
	}

	kv402 := run.Results[byRule["KV402"]]
	if got := kv402.Locations[0].String(); got != "%SRCROOT%|%C3%BCn%C3%AFcode.sh:1:16-1:20" {
		t.Errorf("KV402 location %s: byte columns 22-26 after ü, ï, ✓ and 😀 are UTF-16 columns 16-20", got)
	}

	kv105 := run.Results[byRule["KV105"]]
	if len(kv105.Suppressions) != 1 || kv105.Suppressions[0].Kind != "external" || kv105.Suppressions[0].Justification != "" {
		t.Errorf("KV105 (suppressed by configuration, no reason) suppressions %+v", kv105.Suppressions)
	}

	kv999 := run.Results[byRule["KV999"]]
	if got := kv999.Locations[0].String(); got != "%SRCROOT%|my%20chart/templates/decode.yaml:1:1-1:6" {
		t.Errorf("a whole-line span: %s, want the line's extent", got)
	}
	if kv999.Level != "warning" {
		t.Errorf("KV999 (medium) level %s", kv999.Level)
	}
}

// Suppression GUIDs are stable from run to run and distinct per finding.
func TestSuppressionGUIDStable(t *testing.T) {
	s := newSynthetic(t)
	t.Chdir(repoRoot)
	a, b := runOf(t, encode(t, s.log)), runOf(t, encode(t, s.log))
	ga, gb := a.Results[0].Suppressions[0].GUID, b.Results[0].Suppressions[0].GUID
	if ga != gb {
		t.Errorf("GUID changed between runs: %s, %s", ga, gb)
	}
	if other := a.Results[3].Suppressions[0].GUID; other == ga {
		t.Errorf("two suppressions share GUID %s", ga)
	}
}

func TestCleanRunHasEmptyResults(t *testing.T) {
	dir := t.TempDir() // nothing to check: no servers, no findings
	t.Chdir(dir)
	data := encode(t, logOf(t, dir, "."))
	if !bytes.Contains(data, []byte(`"results": []`)) {
		t.Errorf("a clean run must carry \"results\": [] (GitHub rejects a run without it):\n%s", data)
	}
	run := runOf(t, data)
	if inv := run.Invocations[0]; inv.ExitCode != 0 || !inv.ExecutionSuccessful {
		t.Errorf("invocation %+v, want exit 0, successful", inv)
	}
	if len(run.Tool.Driver.Rules) != len(engine(t).Rules()) {
		t.Errorf("%d rules described, want all %d even when none fired", len(run.Tool.Driver.Rules), len(engine(t).Rules()))
	}
}

// manyFindings is n findings on one line of a real file, severities cycling
// from info to critical.
func manyFindings(t *testing.T, n int) Log {
	dir := t.TempDir()
	file := filepath.Join(dir, "serve.sh")
	text := []byte("python -m sglang.launch_server --tp 2\n")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	files := source.NewSet()
	files.Add(source.NewFile(file, text, source.SyntaxShell))
	l := Log{Rules: engine(t).Rules(), WorkDir: dir, ExitCode: 1, Files: files}
	sevs := diag.Severities()
	for i := range n {
		sev := sevs[i%len(sevs)]
		l.Findings = append(l.Findings, diag.Diagnostic{
			Rule: "KV402", Severity: sev.String(), Title: "Abbreviated flag",
			// Hex digests keep the messages from compressing away.
			Message: fmt.Sprintf("finding %d of severity %s: %x", i, sev, sha256.Sum256([]byte(strconv.Itoa(i)))),
			Span:    deploy.Span{File: file, Line: 1, Col: 32, EndLine: 1, EndCol: 36},
		})
	}
	return l
}

func TestTooManyResultsKeepsTheMostSevere(t *testing.T) {
	defer func(n int) { maxResults = n }(maxResults)
	maxResults = 20
	run := runOf(t, encode(t, manyFindings(t, 50)))
	if len(run.Results) != 20 {
		t.Fatalf("%d results, want the limit 20", len(run.Results))
	}
	for _, r := range run.Results {
		if r.Properties["severity"] != "critical" && r.Properties["severity"] != "high" {
			t.Errorf("kept a %s result while more severe ones were dropped", r.Properties["severity"])
		}
	}
	notes := run.Invocations[0].Notifications
	if len(notes) != 1 || !strings.Contains(notes[0].Message.Text, "50 results; 30 of the least severe were left out") {
		t.Errorf("notifications %+v, want one saying 30 of 50 were left out", notes)
	}
}

func TestOverSizeLimitCutsResults(t *testing.T) {
	defer func(n int) { maxGzipBytes = n }(maxGzipBytes)
	l := manyFindings(t, 400)
	full, _ := gzipSize(encode(t, l))
	empty := l
	empty.Findings = nil
	base, _ := gzipSize(encode(t, empty))
	// Room for about half of the results' share of the compressed log.
	maxGzipBytes = base + (full-base)/2
	data := encode(t, l)
	size, _ := gzipSize(data)
	if size > maxGzipBytes {
		t.Fatalf("gzip size %d over the limit %d", size, maxGzipBytes)
	}
	run := runOf(t, data)
	kept := len(run.Results)
	if kept < 150 || kept > 250 {
		t.Errorf("%d of 400 results kept under half their share of the size, want about 200", kept)
	}
	// The 80 critical results are the ones kept first.
	critical := 0
	for _, r := range run.Results {
		if r.Properties["severity"] == "critical" {
			critical++
		}
	}
	if critical != 80 {
		t.Errorf("%d critical results kept, want all 80", critical)
	}
	notes := run.Invocations[0].Notifications
	if len(notes) != 1 || !strings.Contains(notes[0].Message.Text, "gzip-compressed") {
		t.Errorf("notifications %+v, want one about the compressed size", notes)
	}
}

func TestRelatedLocationsCapped(t *testing.T) {
	defer func(n int) { maxRelatedLocations = n }(maxRelatedLocations)
	maxRelatedLocations = 2
	l := manyFindings(t, 1)
	span := l.Findings[0].Span
	set := deploy.Step{Kind: deploy.StepSet, Text: "--set a=1"}
	l.Findings[0].Origin = deploy.Origin{set, deploy.At(deploy.StepTemplate, span), deploy.At(deploy.StepInclude, span),
		set, deploy.At(deploy.StepInclude, span), deploy.At(deploy.StepInclude, span)}
	run := runOf(t, encode(t, l))
	if got := len(run.Results[0].RelatedLocations); got != 2 {
		t.Errorf("%d related locations, want 2", got)
	}
	if notes := run.Invocations[0].Notifications; len(notes) != 1 || !strings.Contains(notes[0].Message.Text, "first 2 of 4") {
		t.Errorf("notifications %+v", notes)
	}
}

func TestMappings(t *testing.T) {
	for _, tt := range []struct {
		sev           diag.Severity
		level, secSev string
	}{
		{diag.SeverityCritical, "error", "9.5"},
		{diag.SeverityHigh, "error", "8.0"},
		{diag.SeverityMedium, "warning", "5.5"},
		{diag.SeverityLow, "note", "2.0"},
		{diag.SeverityInfo, "note", ""},
		{0, "note", ""},
	} {
		if got := level(tt.sev); got != tt.level {
			t.Errorf("level(%v) = %s, want %s", tt.sev, got, tt.level)
		}
		if got := securitySeverity(tt.sev); got != tt.secSev {
			t.Errorf("securitySeverity(%v) = %q, want %q", tt.sev, got, tt.secSev)
		}
	}
	for in, want := range map[string]string{
		"": "kvlint/", "kvlint": "kvlint/", "kvlint/": "kvlint/", "/deploy/prod/": "deploy/prod/", "a/b": "a/b/",
	} {
		if got := automationID(in); got != want {
			t.Errorf("automationID(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"v1.2.3": "1.2.3", "1.2.3-rc.1": "1.2.3-rc.1", "v0.0.0-20261101120000-abcdef123456": "0.0.0-20261101120000-abcdef123456",
		"devel": "0.0.0-devel", "": "0.0.0-devel", "(devel)": "0.0.0-devel", "v1.2": "0.0.0-1.2",
	} {
		if got := semanticVersion(in); got != want || !semverPattern.MatchString(got) {
			t.Errorf("semanticVersion(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"short":                     "short",
		strings.Repeat("a", 1024):   strings.Repeat("a", 1024),
		strings.Repeat("a", 1025):   strings.Repeat("a", 1023) + "…",
		strings.Repeat("😀", 513):    strings.Repeat("😀", 511) + "…",
		strings.Repeat("a b ", 300): strings.TrimSpace(strings.Repeat("a b ", 256)[:1023]) + "…",
	} {
		got := truncate(in, 1024)
		if got != want {
			t.Errorf("truncate(%d chars) = %d chars %q…, want %d chars", len(in), utf16Length(got), got[:min(20, len(got))], utf16Length(want))
		}
		if utf16Length(got) > 1024 {
			t.Errorf("truncate(%d chars) is %d UTF-16 units long", len(in), utf16Length(got))
		}
	}
}

func TestArtifactURIs(t *testing.T) {
	root := t.TempDir()
	loc := newLocator(root)
	tests := []struct{ file, uri, base string }{
		{filepath.Join(root, "deploy", "decode.yaml"), "deploy/decode.yaml", SrcRoot},
		{filepath.Join(root, "my chart", "values#1.yaml"), "my%20chart/values%231.yaml", SrcRoot},
		{filepath.Join(root, "a:b.yaml"), "./a:b.yaml", SrcRoot},
		{filepath.Join(root, "..", "elsewhere.sh"), fileURI(filepath.Join(resolve(root), "..", "elsewhere.sh"), false), ""},
	}
	for _, tt := range tests {
		a := loc.artifact(tt.file)
		base := ""
		if a.URIBaseId != nil {
			base = *a.URIBaseId
		}
		if *a.URI != tt.uri || base != tt.base {
			t.Errorf("artifact(%s) = %s (base %q), want %s (base %q)", tt.file, *a.URI, base, tt.uri, tt.base)
		}
	}
	// A relative path is relative to the process's directory.
	t.Chdir(root)
	if a := loc.artifact("deploy/decode.yaml"); *a.URI != "deploy/decode.yaml" {
		t.Errorf("relative path: %s", *a.URI)
	}
	if got := loc.rootURI(); !strings.HasPrefix(got, "file:///") || !strings.HasSuffix(got, "/") {
		t.Errorf("rootURI %s", got)
	}
}

// A command-line --set is no file: it must not become a related location
// (a URI "--set%20…" under %SRCROOT% points nowhere) but is named in the
// message, and every related location is a file with a message that says
// which way the value flows there.
func TestRelatedLocationsAreFilesOnly(t *testing.T) {
	l := manyFindings(t, 1)
	f := &l.Findings[0]
	span := f.Span
	f.Origin = deploy.Origin{
		deploy.At(deploy.StepInclude, span),
		{Kind: deploy.StepSet, Text: "--set decode.maxTotalTokens=8192"},
	}
	r := runOf(t, encode(t, l)).Results[0]
	if len(r.RelatedLocations) != 1 {
		t.Fatalf("%d related locations, want only the include site", len(r.RelatedLocations))
	}
	loc := r.RelatedLocations[0]
	if uri := loc.PhysicalLocation.ArtifactLocation.URI; uri != "serve.sh" || loc.ID != 1 || loc.Message.Text != "the value passes through here" {
		t.Errorf("related location %d %q %q", loc.ID, uri, loc.Message.Text)
	}
	want := f.Message + " (the value was set on the command line: --set decode.maxTotalTokens=8192)"
	if r.Message.Text != want {
		t.Errorf("message %q\nwant %q", r.Message.Text, want)
	}
}

// Each kind of step is worded by the way the value flows through it.
func TestStepMessages(t *testing.T) {
	for kind, want := range map[deploy.StepKind]string{
		deploy.StepValuesFile:      "the value was set here",
		deploy.StepTFVars:          "the value was set here",
		deploy.StepVariableDefault: "the value was set here",
		deploy.StepAssignment:      "the value was set here",
		deploy.StepEnv:             "the value was set here",
		deploy.StepSet:             "the value was set here",
		deploy.StepTemplate:        "the value is used here",
		deploy.StepInclude:         "the value passes through here",
		deploy.StepVariable:        "the value passes through here",
		deploy.StepReference:       "the value passes through here",
		deploy.StepWritten:         "the value is written here",
		deploy.StepImage:           "the image's entrypoint supplies the value",
	} {
		if got := stepMessage(kind); got != want {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
	}
}
