package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// changes runs releaseChanges for a launch written as words, moved from one
// release to another, and returns the flags it reports.
func changes(t *testing.T, e deploy.Engine, from, to string, opaque bool, words ...string) map[string]string {
	t.Helper()
	s := &deploy.Server{Engine: e, Span: deploy.Span{File: "f", Line: 1, Col: 1}, Args: map[string]deploy.Value{}}
	for i := 0; i < len(words); i += 2 {
		v := deploy.Value{Raw: words[i], Known: true, Span: deploy.Span{File: "f", Line: 1, Col: 10 + i}}
		s.Options = append(s.Options, deploy.WrittenOption{Flag: words[i], Written: v})
		s.Args[words[i]] = deploy.Value{Raw: words[i+1], Known: true}
	}
	if opaque {
		s.Opaque = []deploy.Value{{Raw: "$EXTRA", Known: false}}
	}
	s.Release = deploy.Release{Engine: e, Version: to, Upgrade: true, From: from, FromSource: "test"}
	h := HistoryOf(e)
	fi, _, _ := h.At(from)
	ti, _, _ := h.At(to)
	releaseChanges(s, h, fi, ti, "on moving")
	got := map[string]string{}
	for _, is := range s.FlagIssues {
		if is.Kind != FlagReleaseChange {
			t.Errorf("kind %s", is.Kind)
		}
		got[is.Flag] = is.Message
	}
	return got
}

func TestReleaseChanges(t *testing.T) {
	// vLLM v0.6.3 → v0.6.5: --max-num-seqs 256 → None (history row at
	// 0.6.5), at the server's span, with the value to write.
	got := changes(t, deploy.EngineVLLM, "0.6.3", "0.6.5", false)
	if m := got["--max-num-seqs"]; !strings.Contains(m, "changes from 256 to None (in v0.6.5 (2d1b9baa)) on moving") || !strings.Contains(m, "write --max-num-seqs 256") {
		t.Errorf("--max-num-seqs: %q", m)
	}
	if _, ok := got["--gpu-memory-utilization"]; ok {
		t.Error("--gpu-memory-utilization reported between two releases before v0.21.0")
	}
	// Set, the default is no change; the widened choices keep the value.
	got = changes(t, deploy.EngineVLLM, "0.6.3", "0.6.5", false, "--max-num-seqs", "128", "--guided-decoding-backend", "outlines")
	if _, ok := got["--max-num-seqs"]; ok {
		t.Errorf("a set flag's default reported: %v", got)
	}
	if _, ok := got["--guided-decoding-backend"]; ok {
		t.Errorf("widened choices reported: %v", got)
	}
	// Moving back runs the change the other way; across v0.21.0 the hand
	// table's default.
	got = changes(t, deploy.EngineVLLM, "0.21.0", "0.6.3", false)
	if m := got["--gpu-memory-utilization"]; !strings.Contains(m, "changes from 0.92 to 0.9") {
		t.Errorf("back past v0.21.0: %q", m)
	}
	if m := got["--max-num-seqs"]; !strings.Contains(m, "changes from None to 256") {
		t.Errorf("back past v0.6.5: %q", m)
	}
	// Opaque words may set any flag: no default is reported.
	if got := changes(t, deploy.EngineVLLM, "0.6.3", "0.21.0", true); len(got) != 0 {
		t.Errorf("opaque launch: %v", got)
	}
	// SGLang: speculative decoding's defaults only with it on; a default
	// changed and changed back (--lora-backend) is no change.
	got = changes(t, deploy.EngineSGLang, "0.4.0", "0.4.6", false)
	if _, ok := got["--speculative-num-steps"]; ok {
		t.Errorf("speculative default without speculative decoding: %v", got)
	}
	if m := got["--trust-remote-code"]; !strings.Contains(m, "from True to False") || strings.Contains(m, "write") {
		t.Errorf("--trust-remote-code: %q", m)
	}
	got = changes(t, deploy.EngineSGLang, "0.4.0", "0.4.6", false, "--speculative-algorithm", "EAGLE")
	if _, ok := got["--speculative-num-steps"]; !ok {
		t.Errorf("speculative default with speculative decoding: %v", got)
	}
	got = changes(t, deploy.EngineSGLang, "0.5.3.post2", "0.5.4", false, "--enable-lora", "true")
	if _, ok := got["--lora-backend"]; ok {
		t.Errorf("triton → csgmv → triton reported: %v", got)
	}
	if got = changes(t, deploy.EngineSGLang, "0.5.3.post2", "0.5.4.post2", false, "--enable-lora", "true"); got["--lora-backend"] == "" {
		t.Errorf("triton → csgmv not reported: %v", got)
	}
	// No move, no change.
	if got := changes(t, deploy.EngineSGLang, "0.4.6", "0.4.6", false); len(got) != 0 {
		t.Errorf("same release: %v", got)
	}
}
