package main

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/parsers"
)

// TestHelpListsEveryFormat derives the formats from the parser registry:
// a format added to parsers without a line in the help fails here.
func TestHelpListsEveryFormat(t *testing.T) {
	kinds := parsers.Kinds()
	if len(kinds) < 10 {
		t.Fatalf("parsers.Kinds() = %v: the registry lost formats", kinds)
	}
	for _, args := range [][]string{{"--help"}, {"check", "--help"}, {"capacity", "--help"}, {"verify", "--help"}} {
		var out, errOut stringWriter
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("kvlint %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
		help := out.String()
		for _, k := range kinds {
			d := formatDescriptions[k]
			if d == "" {
				t.Errorf("format %q has no description in formatDescriptions", k)
				continue
			}
			if !strings.Contains(help, "\n  "+d+"\n") {
				t.Errorf("kvlint %s does not list format %q (%q)", strings.Join(args, " "), k, d)
			}
		}
		if strings.Contains(help, "every SGLang server") {
			t.Errorf("kvlint %s still says it finds SGLang servers only", strings.Join(args, " "))
		}
	}
	// Every description belongs to a format the registry has (or to the
	// files it recognises without analysing them).
	for k := range formatDescriptions {
		found := k == parsers.KindUnsupported
		for _, r := range kinds {
			found = found || r == k
		}
		if !found {
			t.Errorf("formatDescriptions describes %q, which parsers does not read", k)
		}
	}
}
