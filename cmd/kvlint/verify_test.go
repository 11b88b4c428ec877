package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressBarOnlyOnATerminalAfterASecond(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf) // not a terminal
	p.start = time.Now().Add(-time.Hour)
	p.update(1, 2)
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("drew on a pipe: %q", buf.String())
	}

	quick := &progressBar{w: &buf, tty: true, start: time.Now()}
	quick.update(1, 2)
	quick.finish()
	if buf.Len() != 0 {
		t.Errorf("drew within the first second: %q", buf.String())
	}

	slow := &progressBar{w: &buf, tty: true, start: time.Now().Add(-2 * time.Second)}
	slow.update(3, 10)
	if got := buf.String(); !strings.HasPrefix(got, "\rkvlint verify [#########.....................] 3/10 runs") {
		t.Errorf("bar %q", got)
	}
	slow.finish()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Errorf("the bar was not cleared: %q", buf.String())
	}
}

// TestVerifyIsCheckWithVerifyOn: kvlint verify is check with --verify set, and check
// registers the verification flags (a stale copy of check.go once dropped them).
func TestVerifyIsCheckWithVerifyOn(t *testing.T) {
	for _, flag := range []string{"verify", "seed", "requests"} {
		if newCheckCmd().Flags().Lookup(flag) == nil {
			t.Errorf("check has no --%s", flag)
		}
	}
	f := newVerifyCmd().Flags().Lookup("verify")
	if f == nil || f.Value.String() != "true" || !f.Hidden {
		t.Fatalf("verify's --verify: %+v", f)
	}
}
