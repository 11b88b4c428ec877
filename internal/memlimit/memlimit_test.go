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
	t.Setenv("GOGC", "")
	limitBefore := debug.SetMemoryLimit(-1)
	percentBefore := debug.SetGCPercent(-1)
	debug.SetGCPercent(percentBefore)
	stop := Follow()
	if got := debug.SetMemoryLimit(-1); got < floor || got == limitBefore {
		t.Errorf("while following the limit is %d, want at least %d", got, int64(floor))
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("while following GOGC is %d, want off (-1)", got)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("after stop the limit is %d, want %d as before", got, limitBefore)
	}
	if got := debug.SetGCPercent(percentBefore); got != percentBefore {
		t.Errorf("after stop GOGC is %d, want %d as before", got, percentBefore)
	}
}

func TestFollowLeavesTheUsersSettings(t *testing.T) {
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv("GOGC", "")
			t.Setenv(env, "set")
			prevLimit := debug.SetMemoryLimit(1 << 30)
			defer debug.SetMemoryLimit(prevLimit)
			prevPercent := debug.SetGCPercent(150)
			defer debug.SetGCPercent(prevPercent)
			stop := Follow()
			if got := debug.SetMemoryLimit(-1); got != 1<<30 {
				t.Errorf("with %s set the limit is %d, want the user's", env, got)
			}
			if got := debug.SetGCPercent(-1); got != 150 {
				t.Errorf("with %s set GOGC is %d, want the user's", env, got)
			}
			debug.SetGCPercent(150)
			stop()
		})
	}
}
