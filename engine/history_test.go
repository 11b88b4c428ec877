package engine

import (
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
