package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestHistoryReleases(t *testing.T) {
	for _, c := range []struct {
		e          deploy.Engine
		first, n   string
		minRelease int
	}{
		{deploy.EngineVLLM, "0.5.0", "main", 33},
		{deploy.EngineSGLang, "0.3.0", "main", 90},
	} {
		h := HistoryOf(c.e)
		if h == nil {
			t.Fatalf("%s: no history", c.e)
		}
		if len(h.Releases) < c.minRelease || h.Releases[0].Version != c.first || h.Releases[h.Newest()].Version != c.n {
			t.Errorf("%s: %d releases from %s to %s", c.e, len(h.Releases), h.Releases[0].Version, h.Releases[h.Newest()].Version)
		}
		for i := 1; i < h.Newest(); i++ {
			if deploy.CompareVersions(h.Releases[i-1].Version, h.Releases[i].Version) >= 0 {
				t.Errorf("%s: releases out of order: %s before %s", c.e, h.Releases[i-1].Version, h.Releases[i].Version)
			}
		}
	}
}

func TestHistoryFacts(t *testing.T) {
	v, s := HistoryOf(deploy.EngineVLLM), HistoryOf(deploy.EngineSGLang)
	at := func(h *History, ver string) int {
		i, exact, ok := h.At(ver)
		if !exact || !ok {
			t.Fatalf("%s not read", ver)
		}
		return i
	}
	for _, c := range []struct {
		h      *History
		flag   string
		ver    string
		exists bool
	}{
		{v, "--disable-log-requests", "0.6.3", true},
		{v, "--swap-space", "0.6.3", true},
		{v, "--max-context-len-to-capture", "0.6.3", true},
		{v, "--max-context-len-to-capture", "0.6.4", false},
		// Read at release commits no fork tags (vllm_releases.tsv cites
		// them): --swap-space went with the V0 engine between v0.10.1.1
		// and v0.20.0; --num-scheduler-steps with multi-step scheduling
		// in v0.10.1; --attention-backend came between them.
		{v, "--swap-space", "0.10.1.1", true},
		{v, "--swap-space", "0.20.0", false},
		{v, "--num-scheduler-steps", "0.10.0", true},
		{v, "--num-scheduler-steps", "0.10.1", false},
		{v, "--attention-backend", "0.10.1.1", false},
		{v, "--attention-backend", "0.20.2", true},
		{s, "--disaggregation-mode", "0.3.0", false},
		{s, "--disaggregation-mode", "0.4.4.post2", true},
		{s, "--disable-flashinfer", "0.4.0", true},
		{s, "--disable-flashinfer", "0.4.6", false},
	} {
		if got, known := c.h.Exists(c.flag, at(c.h, c.ver)); !known || got != c.exists {
			t.Errorf("%s at %s: exists %v known %v, want %v", c.flag, c.ver, got, known, c.exists)
		}
	}
	if got, _ := v.Exists("--disable-log-requests", v.Newest()); got {
		t.Errorf("--disable-log-requests is accepted at main; the history says vllm#35723 removed it")
	}
	// Between two snapshots: the one before it, not exact.
	if i, exact, ok := v.At("0.11.0"); !ok || exact || v.Releases[i].Version != "0.10.1.1" {
		t.Errorf("At(0.11.0) = %s exact %v ok %v", v.Releases[i].Version, exact, ok)
	}
	// Newer than the last release read: the last release, not main.
	if i, exact, ok := v.At("0.21.0"); !ok || exact || v.Releases[i].Version != "0.20.2" {
		t.Errorf("At(0.21.0) = %s exact %v ok %v", v.Releases[i].Version, exact, ok)
	}
	for _, r := range v.Releases {
		if r.Evidence == "" {
			t.Errorf("vLLM release %s cites nothing", r.Version)
		}
	}
	if _, _, ok := v.At("0.4.3"); ok {
		t.Errorf("At(0.4.3) is before the history and must say so")
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"0.5.3", "0.5.3.post1", -1},
		{"0.5.3.post1", "0.5.4", -1},
		{"0.5.0rc0", "0.5.0", -1},
		{"0.10.1", "0.9.2", 1},
		{"v0.6.3", "0.6.3", 0},
		{"0.10.1.1", "0.10.1", 1},
	} {
		if got := deploy.CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestJudgeRelease(t *testing.T) {
	span := deploy.Span{File: "a.sh", Line: 1, Col: 30}
	srv := func(version string) *deploy.Server {
		return &deploy.Server{
			Engine:  deploy.EngineSGLang,
			Options: []deploy.WrittenOption{{Flag: "--disaggregation-mode", Written: deploy.Known("--disaggregation-mode", span)}},
			Release: deploy.Release{Version: version, Source: "image lmsysorg/sglang:v" + version},
		}
	}
	old := srv("0.3.0")
	JudgeRelease(old)
	if len(old.FlagIssues) != 1 || old.FlagIssues[0].Kind != deploy.FlagUnknown || old.FlagIssues[0].Span != span || old.Release.Judged != "0.3.0" {
		t.Fatalf("0.3.0: %+v %+v", old.FlagIssues, old.Release)
	}
	for _, v := range []string{"0.4.5", "", "0.5.9"} { // has it; unknown (main); between snapshots
		s := srv(v)
		JudgeRelease(s)
		if len(s.FlagIssues) != 0 {
			t.Errorf("%q: %+v", v, s.FlagIssues)
		}
	}
}

// TestJudgeReleaseDeprecation: a deprecation of the newest table is judged
// against the release the server runs. --cuda-graph-max-bs became a
// deprecated alias only after 0.5.6.post2 (engine/data/sglang_server_history.tsv;
// modal-projects/sglang@2495c02c).
func TestJudgeReleaseDeprecation(t *testing.T) {
	judge := func(cmd string, rel deploy.Release) *deploy.Server {
		t.Helper()
		srv, _ := ServerFromLaunch(Launch{Program: SGLangServer, Argv: line(cmd)}, nil)
		if srv == nil {
			t.Fatalf("%s: no server", cmd)
		}
		srv.Release = rel
		JudgeRelease(srv)
		return srv
	}
	deprecated := func(s *deploy.Server) []deploy.FlagIssue {
		var out []deploy.FlagIssue
		for _, is := range s.FlagIssues {
			if is.Kind == deploy.FlagDeprecated {
				out = append(out, is)
			}
		}
		return out
	}
	const alias = "--model-path m --cuda-graph-max-bs 64 --tp-size 2"
	pinned := func(v string) deploy.Release {
		return deploy.Release{Version: v, Source: "image lmsysorg/sglang:v" + v}
	}
	col := colOf(t, alias, "--cuda-graph-max-bs", 0)
	for _, c := range []struct {
		name    string
		cmd     string
		rel     deploy.Release
		want    bool   // a deprecated issue stays
		message string // part of its message
	}{
		// Read at the release, which has the flag as an option of its own.
		{"before", alias, pinned("0.5.3"), false, ""},
		// Between two snapshots that both leave it undeprecated.
		{"between-before", alias, pinned("0.5.3.post9"), false, ""},
		// Unknown release: the newest, as the table says.
		{"unknown", alias, deploy.Release{}, true, "the release this server runs is unknown"},
		// After the last release the history reads: the deprecation may
		// or may not be in it.
		{"between-unknown", alias, pinned("0.5.9"), true, "the newest release before it that the flag history reads: v0.5.6.post2 (5c8bd8b5) does not deprecate it and main@8905cbd4 does, so whether v0.5.9 does is not known here"},
		// Moved by --engine-release past the deprecation: it names where.
		{"upgrade", alias, deploy.Release{Version: "main", Source: "--engine-release sglang=main", Upgrade: true, From: "0.5.3", FromSource: "image lmsysorg/sglang:v0.5.3"},
			true, "flags read at 8905cbd4): deprecated in main@8905cbd4, after v0.5.3 that this launch runs now"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := judge(c.cmd, c.rel)
			got := deprecated(s)
			if !c.want {
				if len(got) != 0 {
					t.Fatalf("deprecated on %s: %+v", c.rel.Version, got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Message, c.message) {
				t.Fatalf("want one deprecated issue saying %q, got %+v", c.message, got)
			}
			if c.cmd == alias && (got[0].Span.Col != col || got[0].Flag != "--cuda-graph-max-bs") {
				t.Errorf("issue at %+v for %s", got[0].Span, got[0].Flag)
			}
		})
	}
	// Dropping the deprecation keeps every other issue: an abbreviation
	// on the same launch still stands.
	s := judge("--model-path m --cuda-graph-max-bs 64 --tp 2", pinned("0.5.3"))
	if len(deprecated(s)) != 0 || len(s.FlagIssues) != 1 || s.FlagIssues[0].Kind != deploy.FlagAbbreviated {
		t.Errorf("0.5.3 with --tp: %+v", s.FlagIssues)
	}
}

// TestDeprecatedAt walks a deprecation across a made-up history whose
// flag is deprecated at 1.1 and kept so: before it the issue goes, from
// it on it stays, and between 1.0 and 1.1 it stays, saying why.
func TestDeprecatedAt(t *testing.T) {
	const c40 = "0123456789012345678901234567890123456789"
	h := &History{
		Engine:   deploy.EngineSGLang,
		Releases: []HistoryRelease{{Version: "1.0", Commit: c40}, {Version: "1.1", Commit: c40}, {Version: "1.2", Commit: c40}, {Version: "main", Commit: c40}},
		Flags: map[string][]FlagEvent{
			"--old":  {{Kind: "added", Release: 0}, {Kind: "deprecated", Release: 1, Detail: "--new"}},
			"--back": {{Kind: "added", Release: 0}, {Kind: "deprecated", Release: 1}, {Kind: "undeprecated", Release: 2}, {Kind: "deprecated", Release: 3}},
			"--new":  {{Kind: "added", Release: 1}},
		},
	}
	for _, c := range []struct {
		flag, version string
		drop          bool
		says          string
	}{
		{"--old", "1.0", true, ""},
		{"--old", "1.0.1", false, "v1.0 (01234567) does not deprecate it and v1.1 (01234567) does, so whether v1.0.1 does is not known here"},
		{"--old", "1.1", false, ""},
		{"--old", "1.1.5", false, ""},
		{"--old", "1.2", false, ""},
		{"--old", "", false, ""},
		// Undeprecated at 1.2, deprecated again on main.
		{"--back", "1.1", false, ""},
		{"--back", "1.2", true, ""},
		{"--back", "1.2.1", false, "whether v1.2.1 does is not known"},
		// A deprecation the history does not record stands.
		{"--new", "1.1", false, ""},
	} {
		i, exact, _ := h.At(c.version)
		r := &deploy.Release{Version: c.version}
		is := &deploy.FlagIssue{Kind: deploy.FlagDeprecated, Flag: c.flag, Written: c.flag}
		if got, note := deprecatedAt(is, h, r, i, exact); got != c.drop || !strings.Contains(note, c.says) || (c.says == "") != (note == "") {
			t.Errorf("%s on %q: drop %v (%q), want %v saying %q", c.flag, c.version, got, note, c.drop, c.says)
		}
	}
	// Moved from 1.0 to 1.2: the finding names where the deprecation came.
	i, exact, _ := h.At("1.2")
	is := &deploy.FlagIssue{Kind: deploy.FlagDeprecated, Flag: "--old", Written: "--old"}
	r := &deploy.Release{Version: "1.2", Upgrade: true, From: "1.0"}
	if drop, note := deprecatedAt(is, h, r, i, exact); drop || note != ": deprecated in v1.1 (01234567), after v1.0 that this launch runs now" {
		t.Errorf("upgrade: %v %q", drop, note)
	}
}
