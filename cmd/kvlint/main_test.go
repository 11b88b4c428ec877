package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/internal/worker"
)

func TestMain(m *testing.M) {
	// The test binary is also the worker the commands it runs re-exec
	// (internal/worker): as a worker it serves and exits.
	if len(os.Args) > 1 && os.Args[1] == worker.Arg {
		os.Exit(worker.Serve(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	worker.Enable()
	testscript.Main(m, map[string]func(){
		"kvlint": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, bugCommands()...)) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// command, real files, asserted output and exit codes. The repository's
// examples are visible to the scripts as $EXAMPLES.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": exits, "mkfifo": mkfifo, "writeq": writeq, "nested": nested, "lines": lines},
	})
}

// exits runs kvlint and asserts its exit code: `exits 3 check dir/`.
// Its output stays available to the stdout and stderr commands that follow.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: exits CODE [kvlint args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec("kvlint", args[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("kvlint %s: exit code %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// writeq writes a file whose name and content are Go-quoted strings, for the
// names and bytes a txtar archive cannot hold (newlines, ESC):
// `writeq "bad\nname.sh" "#!/bin/sh\n..."`.
func writeq(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writeq \"NAME\" \"CONTENT\"")
	}
	name, err := strconv.Unquote(args[0])
	ts.Check(err)
	content, err := strconv.Unquote(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(name), []byte(content), 0o644))
}

// nested writes a file nested n levels deep, too large for a txtar archive:
// `nested NAME "PREFIX" "OPEN" "CLOSE" N "SUFFIX"` writes PREFIX, OPEN n
// times, CLOSE n times and SUFFIX (each Go-quoted).
func nested(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 6 {
		ts.Fatalf("usage: nested NAME \"PREFIX\" \"OPEN\" \"CLOSE\" N \"SUFFIX\"")
	}
	var parts [4]string
	for i, a := range []string{args[1], args[2], args[3], args[5]} {
		s, err := strconv.Unquote(a)
		ts.Check(err)
		parts[i] = s
	}
	n, err := strconv.Atoi(args[4])
	ts.Check(err)
	data := parts[0] + strings.Repeat(parts[1], n) + strings.Repeat(parts[2], n) + parts[3]
	ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[0])), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
}

// lines writes a file of n generated lines: `lines NAME "PREFIX" "FORMAT" N
// "SUFFIX"` writes PREFIX, then FORMAT formatted with i and i+1 for i from
// 0 to n-1 (%[1]d, %[2]d), then SUFFIX (each Go-quoted).
func lines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: lines NAME \"PREFIX\" \"FORMAT\" N \"SUFFIX\"")
	}
	var parts [3]string
	for i, a := range []string{args[1], args[2], args[4]} {
		s, err := strconv.Unquote(a)
		ts.Check(err)
		parts[i] = s
	}
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	var b strings.Builder
	b.WriteString(parts[0])
	for i := range n {
		fmt.Fprintf(&b, parts[1], i, i+1)
	}
	b.WriteString(parts[2])
	ts.Check(os.MkdirAll(filepath.Dir(ts.MkAbs(args[0])), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// bugCommands are commands that fail as a bug in kvlint would, for the
// scripts that pin exit code 4: `kvlint test-panic`, `kvlint test-bug`.
func bugCommands() []*cobra.Command {
	return []*cobra.Command{
		{Use: "test-panic", Hidden: true, RunE: func(*cobra.Command, []string) error {
			panic("test-panic: an invariant kvlint relies on does not hold")
		}},
		{Use: "test-bug", Hidden: true, RunE: func(*cobra.Command, []string) error {
			return errors.New("an error no input should cause")
		}},
	}
}
