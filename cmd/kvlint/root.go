package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/worker"
	"github.com/kvlint/kvlint/report"
)

// Exit codes, the contract CI scripts rely on.
const (
	exitClean    = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitUsage    = 2 // the command line was wrong
	exitInput    = 3 // some input could not be analysed (it is still reported)
	// exitInternal is a failure of kvlint itself (a bug: a panic, an
	// error no input should cause), distinct from 3 so that CI does not
	// read a crash as a bad file, nor 2 as a bad command line.
	exitInternal = 4
)

// internalError is a failure of kvlint itself.
type internalError struct{ err error }

func (e internalError) Error() string { return e.err.Error() }

// version is set at link time by release builds (-ldflags "-X main.version=…").
var version = ""

// exitError carries an exit code out of a command without printing anything
// more: the command has already reported what happened.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a mistake on the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// inputError is a file the run needs before it can start (.kvlint.yaml, a
// baseline) that could not be read or understood: reported where it is
// wrong, exit 3 like any input kvlint could not analyse.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }

// run runs one command line. Everything written to stdout and stderr goes
// through report.SafeWriter: no control character from the input reaches
// the terminal or the CI log raw, and stderr never starts a line with a
// workflow command.
// extra adds commands (the tests add one that fails as a bug would).
func run(args []string, rawStdout, rawStderr io.Writer, extra ...*cobra.Command) int {
	stderr := report.NewSafeWriter(rawStderr, false)
	defer stderr.Flush()
	if len(args) > 0 && args[0] == worker.Arg {
		// A worker's stdout is its answer to the parent (gob), not text.
		return worker.Serve(args[1:], os.Stdin, rawStdout, stderr)
	}
	stdout := report.NewSafeWriter(rawStdout, true)
	defer stdout.Flush()
	root := newRoot(stdout, stderr, extra...)
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(context.Background()), stderr)
}

// exitCode reports err on stderr and maps it to the exit code.
func exitCode(err error, stderr io.Writer) int {
	var ee exitError
	var ue usageError
	var ie inputError
	var ine internalError
	switch {
	case err == nil:
		return exitClean
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ie):
		var de *diag.Diagnostic
		if errors.As(ie.err, &de) && de.Span.File != "" {
			fmt.Fprintf(stderr, "%s: error: %s\n", de.Span, de.Message)
		} else {
			fmt.Fprintf(stderr, "kvlint: %v\n", ie.err)
		}
		return exitInput
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "kvlint: %v\nRun 'kvlint --help' for usage.\n", ue.err)
		return exitUsage
	case errors.As(err, &ine):
		fmt.Fprintf(stderr, "kvlint: internal error (a bug in kvlint, not a problem with the input; please report it): %v\n", ine.err)
		return exitInternal
	default:
		// cobra's own errors (unknown command, bad flag) are usage errors.
		fmt.Fprintf(stderr, "kvlint: %v\nRun 'kvlint --help' for usage.\n", err)
		return exitUsage
	}
}

func newRoot(stdout, stderr io.Writer, extra ...*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "kvlint",
		Short: "Audit LLM-serving deployments for KV-cache capacity and tenant-isolation mistakes",
		Long: `kvlint finds the SGLang and vLLM servers your deployment files launch, sizes
the KV-cache pool each will allocate, and reports the capacity and
tenant-isolation mistakes at the file:line:col to change. It reads:

` + formatsHelp() + `

Start with: kvlint check .`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// --version prints what `kvlint version` does (cobra's template is
	// replaced so both say the same).
	root.Version = versionString()
	root.SetVersionTemplate("{{ printf \"%s\\n\" .Annotations.versionLine }}")
	root.Annotations = map[string]string{"versionLine": versionLine()}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newCheckCmd(), newCapacityCmd(), newInitCmd(), newVersionCmd())
	root.AddCommand(newRulesCmd(), newExplainCmd(), newDocsCmd())
	root.AddCommand(newBaselineCmd(), newTestCmd(), newSchemaCmd())
	root.AddCommand(newVerifyCmd(), newRuntimeCmd(), newFixCmd())
	root.AddCommand(extra...)
	guardCommands(root)
	return root
}

// guardCommands makes every command's own failures internal errors unless
// they say what they are (a usage, input or exit error), and recovers a
// panic as one: cobra's errors (an unknown command, a wrong number of
// arguments) come before RunE and stay usage errors.
func guardCommands(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = internalError{fmt.Errorf("panic: %v\n%s", r, debug.Stack())}
				}
			}()
			err = run(cmd, args)
			var ee exitError
			var ue usageError
			var ie inputError
			var ine internalError
			if err != nil && !errors.As(err, &ee) && !errors.As(err, &ue) && !errors.As(err, &ie) && !errors.As(err, &ine) {
				err = internalError{err}
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		guardCommands(sub)
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kvlint's version, commit, build date and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return err
		},
	}
}

// versionLine is what `kvlint version` and `kvlint --version` print:
// "kvlint v1.2.3 (commit abc1234, built 2026-01-02T03:04:05Z, go1.26.8)".
// Commit and date are the VCS stamp Go records in a build from a checkout
// (vcs.revision, vcs.time, vcs.modified); a `go install …@version` build
// has none, and says "unknown" rather than inventing one.
func versionLine() string {
	commit, date, goVersion := "unknown", "unknown", runtime.Version()
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				date = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit != "unknown" {
			commit += "-dirty"
		}
	}
	return fmt.Sprintf("kvlint %s (commit %s, built %s, %s)", versionString(), commit, date, goVersion)
}

func versionString() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
