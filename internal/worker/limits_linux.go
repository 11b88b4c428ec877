package worker

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// applyLimits sets the child's own limits before it reads its request. The
// address-space limit is what the process already maps plus the budget:
// the Go runtime reserves address space at start, which is not the
// input's doing.
func applyLimits() error {
	if n, err := strconv.ParseUint(os.Getenv("KVLINT_WORKER_LIMIT_AS"), 10, 64); err == nil && n > 0 {
		lim := vmSize() + n
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			return err
		}
		// Collect hard before the limit is reached, so that garbage is
		// not what runs the child out of address space.
		debug.SetMemoryLimit(int64(n / 2))
		memBudget.Store(n)
	}
	if n, err := strconv.ParseUint(os.Getenv("KVLINT_WORKER_LIMIT_CPU"), 10, 64); err == nil && n > 0 {
		// SIGXCPU at the soft limit (ignored by Go), SIGKILL a second later.
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: n, Max: n + 1}); err != nil {
			return err
		}
	}
	return nil
}

// vmSize is the process's mapped address space in bytes (VmSize in
// /proc/self/status, proc(5)).
func vmSize() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
