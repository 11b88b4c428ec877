package runtime

import "testing"

func TestReciteCopiesWhatFollowsMarkers(t *testing.T) {
	cases := []struct {
		prompt, want string
	}{
		{"system {SECRET-1} user text", "{SECRET-1} "},
		{"{A} and {B}", "{A} {B} "},
		{"unterminated {ABC", "{ABC} "},
		{"{}", "{} "},
	}
	for _, tc := range cases {
		got := referenceOutput([]byte(tc.prompt), len(tc.want))
		if string(got) != tc.want {
			t.Errorf("recite(%q) = %q, want %q", tc.prompt, got, tc.want)
		}
	}
}

func TestModelOutputDependsOnTheKVItReads(t *testing.T) {
	a := referenceOutput([]byte("no secret here"), 8)
	b := referenceOutput([]byte("no secret herE"), 8)
	if string(a) == string(b) {
		t.Fatalf("two different contexts without secrets babble the same %q", a)
	}
	if string(a) != string(referenceOutput([]byte("no secret here"), 8)) {
		t.Fatal("the model is not deterministic")
	}
	if got := referenceOutput([]byte("x{K}"), 8); string(got) != "{K} {K} " {
		t.Fatalf("the recitation does not cycle: %q", got)
	}
}

func TestCellHashChainsPositionAndToken(t *testing.T) {
	h := cellHash(0, 'a', 0)
	if h == cellHash(0, 'a', 1) || h == cellHash(0, 'b', 0) || h == cellHash(1, 'a', 0) {
		t.Fatal("cellHash ignores its previous cell, token or position")
	}
}
