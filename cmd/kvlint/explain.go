package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
)

// loadRules builds the engine for the commands that describe rules: the
// built-in policies plus any --policy directories.
func loadRules(ctx context.Context, policyDirs []string) ([]rules.Rule, error) {
	var opts []rules.Options
	if len(policyDirs) > 0 {
		opts = append(opts, rules.Options{PolicyDirs: policyDirs})
	}
	e, err := rules.New(ctx, opts...)
	if err != nil {
		var pe *rules.PolicyError
		if errors.As(err, &pe) {
			return nil, usageError{err}
		}
		return nil, fmt.Errorf("loading the rules: %w", err)
	}
	return e.Rules(), nil
}

func newRulesCmd() *cobra.Command {
	var policyDirs []string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List every rule: id, default severity and title",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rs, err := loadRules(cmd.Context(), policyDirs)
			if err != nil {
				return err
			}
			return report.RulesTable(cmd.OutOrStdout(), rs)
		},
	}
	cmd.Flags().StringArrayVar(&policyDirs, "policy", nil, "directory of custom Rego policies to list as well (repeatable)")
	return cmd
}

func newExplainCmd() *cobra.Command {
	var policyDirs []string
	cmd := &cobra.Command{
		Use:   "explain RULE",
		Short: "Explain a rule: what it finds, why it matters, how to fix it, references",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := loadRules(cmd.Context(), policyDirs)
			if err != nil {
				return err
			}
			id := strings.ToUpper(strings.TrimSpace(args[0]))
			for _, r := range rs {
				// The policy's name works too: kvlint explain pool_below_context.
				if r.ID == id || strings.EqualFold(r.Package[strings.LastIndex(r.Package, ".")+1:], args[0]) {
					return report.RuleText(cmd.OutOrStdout(), r)
				}
			}
			msg := fmt.Sprintf("no rule %q", args[0])
			if s := closestRule(id, rs); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			return usagef("%s (kvlint rules lists them all)", msg)
		},
	}
	cmd.Flags().StringArrayVar(&policyDirs, "policy", nil, "directory of custom Rego policies whose rules can be explained too (repeatable)")
	return cmd
}

// closestRule suggests the rule ID nearest to what was typed: one or two
// edits away ("KV11" → KV101), or the only ID that starts with it.
func closestRule(typed string, rs []rules.Rule) string {
	best, bestDist := "", 3
	var prefixed []string
	for _, r := range rs {
		if d := levenshtein.ComputeDistance(typed, r.ID); d < bestDist {
			best, bestDist = r.ID, d
		}
		if typed != "" && strings.HasPrefix(r.ID, typed) {
			prefixed = append(prefixed, r.ID)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// ruleDocsDir is where the rule pages live, relative to the repository root.
const ruleDocsDir = "docs/rules"

// rulePagePattern names the generated rule pages, the only files docs may
// delete.
var rulePagePattern = regexp.MustCompile(`^KV[0-9]{3}\.md$`)

// ruleDocs renders the documentation of the built-in rules: file name →
// content, docs/rules/<ID>.md and the index README.md.
func ruleDocs(rs []rules.Rule) (map[string][]byte, error) {
	pages := map[string][]byte{}
	for _, r := range rs {
		var buf bytes.Buffer
		if err := report.RuleMarkdown(&buf, r); err != nil {
			return nil, err
		}
		pages[r.ID+".md"] = buf.Bytes()
	}
	var buf bytes.Buffer
	if err := report.RuleIndex(&buf, rs); err != nil {
		return nil, err
	}
	pages["README.md"] = buf.Bytes()
	return pages, nil
}

// newDocsCmd is the generator of docs/rules (hidden: it is for the
// repository, not for users). Run from the repository root:
//
//	go run ./cmd/kvlint docs
func newDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "docs [DIR]",
		Short:  "Write the rule pages (" + ruleDocsDir + "/<ID>.md) from the rules' METADATA",
		Args:   cobra.MaximumNArgs(1),
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ruleDocsDir
			if len(args) == 1 {
				dir = args[0]
			}
			rs, err := loadRules(cmd.Context(), nil)
			if err != nil {
				return err
			}
			pages, err := ruleDocs(rs)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			// Pages of rules that no longer exist go away.
			entries, err := os.ReadDir(dir)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if _, keep := pages[e.Name()]; !keep && rulePagePattern.MatchString(e.Name()) {
					if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
						return err
					}
				}
			}
			for name, data := range pages {
				if err := writeReplacing(filepath.Join(dir, name), data); err != nil {
					return err
				}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %d rule pages and the index to %s\n", len(pages)-1, dir)
			return err
		},
	}
}
