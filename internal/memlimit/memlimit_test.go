package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimitFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, floor},
		{floor / 2, floor},
		{floor/2 + 1, floor + 2},
		{1 << 30, 2 << 30},
		{math.MaxUint64, math.MaxInt64},
	} {
		if got := limitFor(tc.live); got != tc.want {
			t.Errorf("limitFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

func TestFollowSetsAndRestores(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	stop := Follow()
	if got := debug.SetMemoryLimit(-1); got < floor || got == before {
		t.Errorf("while following the limit is %d, want at least %d", got, int64(floor))
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after stop the limit is %d, want %d as before", got, before)
	}
}

func TestFollowLeavesAUserLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	prev := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(prev)
	stop := Follow()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set the limit is %d, want the user's", got)
	}
	stop()
}
