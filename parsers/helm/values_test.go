package helm

import (
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
)

// get walks both spellings of a values map (Helm nests chartutil.Values
// inside plain maps) and lists, and refuses a step of the wrong kind.
func TestGetWalksValuesMapsAndLists(t *testing.T) {
	tree := chartutil.Values{"decode": map[string]any{"args": []any{"--tp", chartutil.Values{"n": 2}}}}
	for _, tc := range []struct {
		path vpath
		want any
		ok   bool
	}{
		{vpath{".decode", ".args", "#0"}, "--tp", true},
		{vpath{".decode", ".args", "#1", ".n"}, 2, true},
		{vpath{".decode", ".args", "#2"}, nil, false},
		{vpath{".decode", "#0"}, nil, false},
		{vpath{".decode", ".args", ".x"}, nil, false},
		{vpath{".prefill"}, nil, false},
	} {
		got, ok := get(tree, tc.path)
		if ok != tc.ok || got != tc.want {
			t.Errorf("get(%v) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
