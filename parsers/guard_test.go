package parsers

import (
	"strings"
	"testing"
	"time"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

func TestGuardTurnsAPanicIntoAnErrorAtTheFile(t *testing.T) {
	f := File{Path: "charts/x", Kind: KindHelm}
	p := guard(f, Options{}, func() Parsed { panic("index out of range") })
	if len(p.Errors) != 1 {
		t.Fatalf("errors = %v, want one", p.Errors)
	}
	e := p.Errors[0]
	if e.Span.File != "charts/x" || !strings.Contains(e.Message, "internal error while rendering the chart") ||
		!strings.Contains(e.Message, "index out of range") {
		t.Errorf("error = %s: %q", e.Span.File, e.Message)
	}
}

func TestGuardStopsWaitingForAParseThatNeverEnds(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	f := File{Path: "main.tf", Kind: KindTerraform}
	start := time.Now()
	p := guard(f, Options{FileTimeout: 20 * time.Millisecond}, func() Parsed { <-block; return Parsed{} })
	if time.Since(start) > 5*time.Second {
		t.Fatalf("guard waited %s", time.Since(start))
	}
	if len(p.Errors) != 1 || p.Errors[0].Message !=
		"evaluating the module took longer than 20ms, kvlint's limit for one file; it was not analysed" {
		t.Fatalf("errors = %+v", p.Errors)
	}
}

func TestGuardClipsOverlongMessages(t *testing.T) {
	long := "include \"loop\": " + strings.Repeat("error calling include: ", 5000) + "nested reference name: loop"
	p := guard(File{Path: "a.yaml", Kind: KindKubernetes}, Options{}, func() Parsed {
		return Parsed{Errors: []*diag.Diagnostic{{Span: deploy.Span{File: "a.yaml"}, Message: long}, nil}}
	})
	m := p.Errors[0].Message
	if len(m) > maxMessageBytes+100 || !strings.HasPrefix(m, "include \"loop\"") || !strings.HasSuffix(m, "nested reference name: loop") ||
		!strings.Contains(m, "bytes omitted") {
		t.Errorf("clipped message (%d bytes) = %.200q…", len(m), m)
	}
}

func TestParseWithReportsAMissingFileAtTheFile(t *testing.T) {
	s, errs := ParseWith(File{Path: "gone.yaml", Kind: KindKubernetes}, Options{})
	if len(s) != 0 || len(errs) != 1 || errs[0].Span.File != "gone.yaml" || errs[0].Message != "no such file or directory" {
		t.Fatalf("servers %v errors %v", s, errs)
	}
}
