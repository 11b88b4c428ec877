package engine

import (
	"slices"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// TestIssueWords pins the words an issue's occurrence took: what deleting
// it removes. argparse keeps the last of two occurrences, so a duplicate
// names the earlier one's words.
func TestIssueWords(t *testing.T) {
	tests := []struct {
		cmd   string
		kind  deploy.FlagIssueKind
		words []string
	}{
		{"--tp-size 2 --model-path m --tp-size 4", deploy.FlagDuplicate, []string{"--tp-size", "2"}},
		{"--tp-size=2 --tp-size 4", deploy.FlagDuplicate, []string{"--tp-size=2"}},
		{"--mem-fraction-statc 0.8 --tp-size 2", deploy.FlagUnknown, []string{"--mem-fraction-statc", "0.8"}},
		{"--enable-ep-moe --tp-size 2", deploy.FlagRemoved, []string{"--enable-ep-moe"}},
		{"--cuda-graph-max-bs 64", deploy.FlagDeprecated, []string{"--cuda-graph-max-bs", "64"}},
		{"--tp 2", deploy.FlagAbbreviated, nil},
	}
	for _, tt := range tests {
		res := Lookup(SGLangServer).Parse(line(tt.cmd), nil)
		i := slices.IndexFunc(res.Issues, func(is deploy.FlagIssue) bool { return is.Kind == tt.kind })
		if i < 0 {
			t.Errorf("%q: no %s issue in %+v", tt.cmd, tt.kind, res.Issues)
			continue
		}
		var got []string
		for _, w := range res.Issues[i].Words {
			got = append(got, w.Raw)
		}
		if !slices.Equal(got, tt.words) {
			t.Errorf("%q: %s words = %q, want %q", tt.cmd, tt.kind, got, tt.words)
		}
	}
}
