package report

import (
	"strings"
	"testing"
)

func TestClipExcerpt(t *testing.T) {
	long := "a: " + strings.Repeat("[", 300) + "x" + strings.Repeat("]", 300)
	tests := []struct {
		name           string
		text           string
		col, endCol    int
		want           string
		wantCol, wantE int
	}{
		{"short line unchanged", "  - --mem-fraction-static", 5, 26, "  - --mem-fraction-static", 5, 26},
		{"invalid UTF-8 and control bytes become ?", "a\xff\x00b\tc é", 4, 5, "a??b\tc é", 4, 5},
		{"long line keeps a window around the column", long, 304, 305,
			"..." + long[250:410] + "...", 304 - 250 + 3, 305 - 250 + 3},
		{"long line cut at the start only", long, 1, 2, long[:160] + "...", 1, 2},
		{"no column", long, 0, 0, long[:160] + "...", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, col, end := clipExcerpt([]byte(tc.text), tc.col, tc.endCol)
			if string(got) != tc.want || col != tc.wantCol || end != tc.wantE {
				t.Errorf("got %q %d:%d, want %q %d:%d", got, col, end, tc.want, tc.wantCol, tc.wantE)
			}
			if col > 0 && got[col-1] != tc.text[tc.col-1] && tc.text[tc.col-1] < 0x80 {
				t.Errorf("column %d shows %q, the span began at %q", col, got[col-1], tc.text[tc.col-1])
			}
		})
	}
}
