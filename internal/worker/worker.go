// Package worker runs the expensive evaluations of untrusted input (a Helm
// chart's render, a Terraform module's evaluation, custom Rego policies) in
// a child process: a re-exec of the kvlint binary itself with an
// address-space limit, a CPU limit and a hard wall-clock kill. A template
// that allocates without bound, an expression that never ends or a stack
// that overflows then kills the child, not the run: the caller reports an
// error at that chart, module or policy and goes on.
//
// The child is kvlint started as `kvlint __worker NAME`; it reads one
// gob-encoded request on stdin and writes one gob-encoded response on
// stdout. Handlers register by name (Handle) from the packages that own
// the work, so this package imports none of them.
//
// Workers are used only where the process was built to serve them (Enable,
// called by kvlint's main and by the test binaries that re-exec
// themselves) and only on Linux, where setrlimit(2) bounds the child's
// address space and CPU time. Elsewhere Call returns ErrUnavailable and
// callers evaluate in process, guarded only by a timeout that abandons the
// goroutine (a weaker guarantee: memory is not bounded).
package worker

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Arg is the hidden first argument that makes kvlint a worker.
const Arg = "__worker"

// Environment knobs. KVLINT_WORKER_MEM, KVLINT_WORKER_CPU and
// KVLINT_WORKER_TIMEOUT shrink the limits for tests of hostile input; they
// are not a user interface. KVLINT_WORKER=off evaluates in process.
const (
	envMem     = "KVLINT_WORKER_MEM"     // bytes of address space beyond the child's start
	envCPU     = "KVLINT_WORKER_CPU"     // seconds of CPU time
	envTimeout = "KVLINT_WORKER_TIMEOUT" // wall-clock time, a Go duration
	envOff     = "KVLINT_WORKER"
)

// The defaults are far above what real charts, modules and policies need
// (tens of megabytes, well under a second) and low enough that a bomb is
// stopped before it takes the machine's memory.
const (
	DefaultMem = 1 << 30
	DefaultCPU = 60 * time.Second
)

// Limits bound one child.
type Limits struct {
	Mem     uint64        // address space the child may add to what it started with
	CPU     time.Duration // CPU time, rounded up to whole seconds
	Timeout time.Duration // wall-clock time before the parent kills it
}

// LimitsFor returns the limits for one evaluation whose wall-clock bound is
// timeout, with the test knobs applied.
func LimitsFor(timeout time.Duration) Limits {
	l := Limits{Mem: DefaultMem, CPU: DefaultCPU, Timeout: timeout}
	if n, err := strconv.ParseUint(os.Getenv(envMem), 10, 64); err == nil && n > 0 {
		l.Mem = n
	}
	if d, err := time.ParseDuration(os.Getenv(envCPU)); err == nil && d > 0 {
		l.CPU = d
	}
	if d, err := time.ParseDuration(os.Getenv(envTimeout)); err == nil && d > 0 && (l.Timeout <= 0 || d < l.Timeout) {
		l.Timeout = d
	}
	return l
}

var (
	enabled  atomic.Bool
	handlers sync.Map // name → Handler
)

// Handler serves one request: it decodes its request from r and encodes its
// response to w.
type Handler func(r *gob.Decoder, w *gob.Encoder) error

// Handle registers the handler a child runs for name.
func Handle(name string, h Handler) { handlers.Store(name, h) }

// Enable says this binary serves `Arg NAME` (its main calls Serve), so
// Call may re-exec it.
func Enable() { enabled.Store(true) }

// ErrUnavailable is returned by Call when no child can be started here;
// the caller evaluates in process.
var ErrUnavailable = errors.New("worker processes are not available")

// memBudget is the address space this process may use beyond its start
// when it is a child under a memory limit, 0 otherwise.
var memBudget atomic.Uint64

// MemBudget is the memory this process may use beyond its start when it
// is a worker under a memory limit (0: no limit is known). Code that can
// stop itself cleanly before the limit (a guarded render) measures
// against it.
func MemBudget() uint64 { return memBudget.Load() }

// Available reports whether Call would start a child.
func Available() bool {
	return enabled.Load() && runtime.GOOS == "linux" && os.Getenv(envOff) != "off"
}

// LimitError is a child stopped by one of its limits, or one that crashed.
type LimitError struct {
	Limit  string // "memory", "cpu", "time" or "crash"
	Limits Limits
	Detail string // the end of the child's stderr, for a crash
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "memory":
		return fmt.Sprintf("it needed more than %d MiB of memory, kvlint's limit", e.Limits.Mem>>20)
	case "cpu":
		return fmt.Sprintf("it used more than %s of CPU time, kvlint's limit", e.Limits.CPU)
	case "time":
		return fmt.Sprintf("it took longer than %s, kvlint's limit", e.Limits.Timeout)
	}
	return "the evaluation crashed: " + e.Detail
}

// Call runs the handler name in a child under lim: req is sent to it and
// its answer decoded into resp (a pointer). It returns ErrUnavailable when
// no child can be started, a *LimitError when the child was stopped.
func Call(ctx context.Context, name string, lim Limits, req, resp any) error {
	if !Available() {
		return ErrUnavailable
	}
	exe, err := os.Executable()
	if err != nil {
		return ErrUnavailable
	}
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return fmt.Errorf("worker: encoding the request: %w", err)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, exe, Arg, name)
	// argv[0] as this process was started: a test binary serving several
	// commands picks the command by it.
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), "KVLINT_WORKER_LIMIT_AS="+strconv.FormatUint(lim.Mem, 10),
		"KVLINT_WORKER_LIMIT_CPU="+strconv.FormatInt(int64((lim.CPU+time.Second-1)/time.Second), 10))
	cmd.Stdin = &in
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr := &tail{max: 4096}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &LimitError{Limit: "time", Limits: lim}
	}
	if runErr != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		return classify(runErr, stderr.String(), lim)
	}
	if err := gob.NewDecoder(&out).Decode(resp); err != nil {
		return &LimitError{Limit: "crash", Limits: lim, Detail: "unreadable answer: " + err.Error()}
	}
	return nil
}

// classify names the limit a child that failed ran into.
func classify(err error, stderr string, lim Limits) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return fmt.Errorf("worker: %w", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the
		// hard one (setrlimit(2)); Go ignores SIGXCPU unless notified
		// (runtime/sigtab_linux_generic.go), so the child dies by SIGKILL.
		if s := ws.Signal(); s == syscall.SIGKILL || s == syscall.SIGXCPU {
			return &LimitError{Limit: "cpu", Limits: lim}
		}
	}
	// The Go runtime prints "fatal error: runtime: out of memory" when an
	// mmap fails under RLIMIT_AS, or fails a goroutine stack growth with
	// "goroutine stack exceeds"; both exit with status 2.
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") {
		return &LimitError{Limit: "memory", Limits: lim}
	}
	if strings.Contains(stderr, "stack exceeds") {
		return &LimitError{Limit: "memory", Limits: lim, Detail: "stack overflow"}
	}
	detail := strings.TrimSpace(stderr)
	if i := strings.IndexByte(detail, '\n'); i >= 0 {
		detail = detail[:i]
	}
	if detail == "" {
		detail = err.Error()
	}
	return &LimitError{Limit: "crash", Limits: lim, Detail: detail}
}

// tail keeps the first max bytes written to it: a crash's first lines say
// what failed.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	if room := t.max - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.b) }

// Serve is the child: args are what followed Arg. It applies the limits the
// parent passed, runs the handler and returns the exit code.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "kvlint: internal command")
		return 2
	}
	v, ok := handlers.Load(args[0])
	if !ok {
		fmt.Fprintf(stderr, "kvlint: no worker %q\n", args[0])
		return 2
	}
	if err := applyLimits(); err != nil {
		fmt.Fprintf(stderr, "kvlint worker: %v\n", err)
		return 2
	}
	if err := v.(Handler)(gob.NewDecoder(stdin), gob.NewEncoder(stdout)); err != nil {
		fmt.Fprintf(stderr, "kvlint worker: %v\n", err)
		return 2
	}
	return 0
}
