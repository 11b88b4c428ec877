package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/rules"
)

func newBaselineCmd() *cobra.Command {
	var flags commonFlags
	cmd := &cobra.Command{
		Use:   "baseline [PATH...]",
		Short: "Write the current findings as a baseline, for check --baseline",
		Long: `baseline runs the same analysis as check and writes the findings it reports
(all severities; suppressed ones left out) as JSON to standard output:

    kvlint baseline . > .kvlint-baseline.json
    kvlint check --baseline .kvlint-baseline.json .

check --baseline then reports only findings that are not in the file. A
finding is matched by a fingerprint of its rule, file, server, flag and the
text of its line, not by line number, so edits elsewhere in a file keep it
matched. Run both from the same directory: paths are compared as written.

Exit status: 0 written, 2 usage error, 3 some input could not be analysed
(the baseline is still written, without what could not be read).`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			res, _, err := flags.analyse(cmd.Context(), paths)
			if err != nil {
				return err
			}
			b := baseline.Build(res.Findings, res.Servers, res.Files)
			if err := baseline.Write(cmd.OutOrStdout(), b); err != nil {
				return err
			}
			for _, e := range res.Errors {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: error: %s\n", e.Span, e.Message)
			}
			if len(res.Errors) > 0 {
				return exitError{exitInput}
			}
			return nil
		},
	}
	flags.register(cmd)
	_ = cmd.Flags().MarkHidden("format") // the baseline is always JSON
	return cmd
}

func newTestCmd() *cobra.Command {
	var timeout time.Duration
	var verbose bool
	cmd := &cobra.Command{
		Use:   "test DIR...",
		Short: "Run the Rego tests (*_test.rego) of custom policy directories",
		Long: `test loads each directory the way check --policy does (so a policy that passes
its tests is one check accepts) and runs its *_test.rego files with kvlint's
library, its rules and its test fixtures (import data.kvlint.test) available.

Exit status: 0 every test passed, 1 a test failed or errored, or there were no
tests, 2 a policy could not be loaded (it is named, with its line).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if timeout <= 0 {
				return usagef("--policy-timeout must be positive, not %s", timeout)
			}
			results, err := rules.RunPolicyTests(cmd.Context(), rules.Options{PolicyDirs: dirs, Timeout: timeout})
			var pe *rules.PolicyError
			if errors.As(err, &pe) {
				return usagef("%v", pe)
			}
			if err != nil {
				return err
			}
			if !printTests(cmd.OutOrStdout(), results, verbose) {
				return exitError{exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "policy-timeout", rules.DefaultTimeout, "time limit of one test")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list passing tests too")
	return cmd
}

// printTests writes one line per failing test (and per passing one when
// verbose), then the counts; it reports whether the run passed.
func printTests(w io.Writer, results []rules.PolicyTest, verbose bool) bool {
	passed, failed, errored, skipped := 0, 0, 0, 0
	for _, r := range results {
		name := fmt.Sprintf("%s:%d: %s.%s", r.File, r.Line, r.Package, r.Name)
		switch {
		case r.Err != nil:
			errored++
			fmt.Fprintf(w, "ERROR %s: %v\n", name, r.Err)
		case r.Skipped:
			skipped++
			if verbose {
				fmt.Fprintf(w, "SKIP  %s\n", name)
			}
			continue
		case r.Passed:
			passed++
			if verbose {
				fmt.Fprintf(w, "PASS  %s (%s)\n", name, r.Duration.Round(time.Microsecond))
			}
			continue
		default:
			failed++
			fmt.Fprintf(w, "FAIL  %s\n", name)
		}
		if len(r.Output) > 0 {
			fmt.Fprintf(w, "      print output:\n%s", indent(string(r.Output), "        "))
		}
	}
	if len(results) == 0 {
		fmt.Fprintln(w, "no tests found: a test is a rule named test_… in a *_test.rego file")
		return false
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d errored", passed, failed, errored)
	if skipped > 0 {
		fmt.Fprintf(w, ", %d skipped", skipped)
	}
	fmt.Fprintln(w)
	return failed == 0 && errored == 0
}

func indent(s, prefix string) string {
	var out []byte
	start := true
	for i := 0; i < len(s); i++ {
		if start {
			out = append(out, prefix...)
		}
		out = append(out, s[i])
		start = s[i] == '\n'
	}
	if !start {
		out = append(out, '\n')
	}
	return string(out)
}

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the input document custom policies see",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(rules.InputSchema())
			return err
		},
	}
}
