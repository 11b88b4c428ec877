package deploy

import "testing"

func TestCommonStem(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"llama70b-prefill", "llama70b-decode", "llama70b-router"}, "llama70b"},
		{[]string{"abc1", "abc2"}, ""},
		{[]string{"qwen-a", "qwen2-b"}, ""},
		{[]string{"x-a", "x-b"}, ""},
		{[]string{"solo"}, "solo"},
		{[]string{"team.pd_prefill", "team.pd_decode"}, "team.pd"},
	} {
		if got := commonStem(tt.names); got != tt.want {
			t.Errorf("commonStem(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
