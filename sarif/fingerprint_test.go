package sarif

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/source"
)

// TestLineHashesMatchGitHub pins LineHashes to the values upload-sarif
// computes for the same inputs: the expected hashes are the ones
// github/codeql-action asserts in src/fingerprints.test.ts ("hash" test).
// If these drift, GitHub would see two different fingerprints for one alert.
func TestLineHashesMatchGitHub(t *testing.T) {
	greetings := []string{
		"e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1", "ce8ba1a563dcdaca:1", "e20e36e16fcb0cc8:1",
		"b3edc88f2938467e:1", "c8e28b0b4002a3a0:1", "c129715d7a2bc9a3:1",
	}
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"empty file", "", []string{"c129715d7a2bc9a3:1"}},
		{"no final newline", " a\nb\n  \t\tc\n d", []string{
			"271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1", "a23a3dc5e078b07b:1",
		}},
		{"blank lines, no final newline", " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End", []string{
			"8b7cf3e952e7aeb2:1", "b1ae1287ec4718d9:1", "bff680108adb0fcc:1", "c6805c5e1288b612:1",
			"b86d3392aea1be30:1", "e6ceba753e1a442:1",
		}},
		{"LF", " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n", greetings},
		{"CR", " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r", greetings},
		{"CRLF", " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n", greetings},
		{"mixed endings", " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n", greetings},
		{"repeated lines count occurrences", strings.Repeat("Lorem ipsum dolor sit amet.\n", 10), []string{
			"a7f2ff13bc495cf2:1", "a7f2ff13bc495cf2:2", "a7f2ff13bc495cf2:3", "a7f2ff13bc495cf2:4",
			"a7f2ff13bc495cf2:5", "a7f2ff13bc495cf2:6", "a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1",
			"55ec222b86bcae53:1", "cc97dc7b1d7d8f7b:1", "c129715d7a2bc9a3:1",
		}},
		{"program", "x = 2\nx = 1\nprint(x)\nx = 3\nprint(x)\nx = 4\nprint(x)\n", []string{
			"e54938cc54b302f1:1", "bb609acbe9138d60:1", "1131fd5871777f34:1", "5c482a0f8b35ea28:1",
			"54517377da7028d2:1", "2c644846cb18d53e:1", "f1b89f20de0d133:1", "c129715d7a2bc9a3:1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LineHashes([]byte(tt.input))
			if !slices.Equal(got, tt.want) {
				t.Errorf("LineHashes(%q)\n got %q\nwant %q", tt.input, got, tt.want)
			}
		})
	}
}

// A finding's fingerprint must not move when lines are inserted above it, and
// must change when its own line changes.
func TestLineHashesFollowContentNotLineNumber(t *testing.T) {
	before := LineHashes([]byte("a: 1\nargs: [--max-total-tokens, \"65536\"]\n"))
	after := LineHashes([]byte("# a comment\n\na: 1\nargs: [--max-total-tokens, \"65536\"]\n"))
	if before[1] != after[3] {
		t.Errorf("line moved from 2 to 4: hash %s became %s", before[1], after[3])
	}
	edited := LineHashes([]byte("a: 1\nargs: [--max-total-tokens, \"131072\"]\n"))
	if before[1] == edited[1] {
		t.Errorf("editing the line kept its hash %s", before[1])
	}
}

// Characters outside the Basic Multilingual Plane count as two UTF-16 units,
// as they do in JavaScript; every line still gets exactly one hash.
func TestLineHashesNonASCII(t *testing.T) {
	for _, in := range []string{"é\n😀\nz", "\xff\xfe\n", "a\r\n\r\n"} {
		got := LineHashes([]byte(in))
		lines := len(strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(in), "\n"))
		if len(got) != lines {
			t.Errorf("LineHashes(%q): %d hashes, want %d", in, len(got), lines)
		}
		for i, h := range got {
			if h == "" {
				t.Errorf("LineHashes(%q): line %d has no hash", in, i+1)
			}
		}
	}
}

// FuzzLineHashes: any bytes hash without panicking, one non-empty
// fingerprint per line as GitHub counts lines ("\n", "\r\n", "\r").
func FuzzLineHashes(f *testing.F) {
	for _, seed := range []string{"", "a\n", " \t\r\n\r", "é😀\n\xff", strings.Repeat("x = 1\n", 30)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := LineHashes(data)
		lines := source.NewIndex(data, source.Newlines).Lines()
		if len(got) != lines {
			t.Fatalf("%d hashes for %d lines", len(got), lines)
		}
		for i, h := range got {
			if !lineHashPattern.MatchString(h) {
				t.Fatalf("line %d: hash %q", i+1, h)
			}
		}
	})
}
