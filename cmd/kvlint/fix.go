package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/edit"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/source"
)

func newFixCmd() *cobra.Command {
	var flags commonFlags
	var failOn string
	var write bool
	var only []string
	cmd := &cobra.Command{
		Use:   "fix [PATH...]",
		Short: "Show, as a diff, the edits that fix the findings, and apply them with --write",
		Long: `fix runs the check, takes every finding's first fix that is a literal edit
(or only the findings of --rule), and prints the edits as a unified diff.
With --write it applies them in place, inside the checked paths and never
through a symbolic link, then checks again and says which findings are gone.

A fix is refused, with the reason on stderr, where the value it changes is
computed (a template expression, a variable) or where it overlaps another
finding's fix.

Exit status is check's, of the run before the edits (after them with
--write): 0 clean, 1 findings at or above --fail-on, 2 usage error, 3 some
input could not be analysed.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			for _, r := range only {
				if !validRuleID(r) {
					return usagef("--rule %q: want a rule id such as KV402", r)
				}
			}
			if cmd.Flags().Changed("format") {
				return usagef("kvlint fix prints a diff; it has no --format (kvlint check has)")
			}
			res, cfg, err := flags.analyse(cmd.Context(), paths)
			if err != nil {
				return err
			}
			for _, r := range only {
				if _, ok := flags.engine.Rule(r); !ok {
					return usagef("--rule %s: no such rule (kvlint rules lists them)", r)
				}
			}
			// --fail-on, else the configuration's, else high: as check.
			if failOn == "" {
				failOn = cfg.FailOn
			}
			if failOn == "" {
				failOn = "high"
			}
			threshold, err := diag.ParseSeverity(failOn)
			if err != nil {
				return usagef("--fail-on: %v", err)
			}
			if len(paths) == 0 {
				paths = []string{"."}
			}
			tree := edit.NewTree(paths)
			// Without --write nothing is written: a file --write would
			// refuse still shows its diff.
			var writeTree *edit.Tree
			if write {
				writeTree = tree
			}
			plan := planFixes(res, only, writeTree)
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			for _, r := range plan.refused {
				fmt.Fprintf(stderr, "%s: %s not fixed: %s\n", r.finding.Span, r.finding.Rule, r.reason)
			}
			if err := plan.diff(stdout); err != nil {
				return err
			}
			if !write || len(plan.files) == 0 {
				return exitFor(res, threshold)
			}
			for _, name := range plan.names() {
				f := plan.files[name]
				if err := tree.Write(f.file.Name, f.after); err != nil {
					// Files already written stay written: each is whole.
					return inputError{fmt.Errorf("writing %s: %w", f.file.Name, err)}
				}
			}
			after, _, err := flags.analyse(cmd.Context(), paths)
			if err != nil {
				return err
			}
			reportFixed(stdout, plan, res, after)
			return exitFor(after, threshold)
		},
	}
	flags.register(cmd)
	cmd.Flags().Lookup("format").Hidden = true // shared with check; refused
	cmd.Flags().BoolVarP(&write, "write", "w", false, "apply the edits in place, then check again")
	cmd.Flags().StringArrayVar(&only, "rule", nil, "fix only the findings of this rule (repeatable)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "lowest severity that fails the run: critical, high, medium, low or info (default high)")
	return cmd
}

// validRuleID is KV followed by digits, as rule ids are written.
func validRuleID(id string) bool {
	if len(id) < 3 || !strings.HasPrefix(id, "KV") {
		return false
	}
	for _, c := range id[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// fixPlan is the edits kvlint fix applies and the fixes it refuses.
type fixPlan struct {
	files   map[string]*fileEdits
	tree    *edit.Tree // where --write may write; nil without --write
	applied []appliedFix
	refused []refusal
}

type fileEdits struct {
	file  *source.File
	name  string // as the diff names it: relative, with forward slashes
	edits []edit.Edit
	after []byte
}

type appliedFix struct {
	finding diag.Diagnostic
	fix     diag.Fix
}

type refusal struct {
	finding diag.Diagnostic
	reason  string
}

// planFixes picks each unsuppressed finding's first writable fix (of the
// rules in only, when given) and turns its replacements into edits,
// refusing a fix whose edits overlap those of a fix taken before it
// (findings are in file order, so the first in the file wins).
//
// With tree set (--write), a fix in a file the tree does not let kvlint write (a
// path through a symbolic link, outside the checked paths) is refused too.
func planFixes(res *analysis.Result, only []string, tree *edit.Tree) *fixPlan {
	p := &fixPlan{files: map[string]*fileEdits{}, tree: tree}
	for _, d := range res.Findings {
		if d.Suppression != nil || len(d.Fixes) == 0 || len(only) > 0 && !slices.Contains(only, d.Rule) {
			continue
		}
		if !slices.ContainsFunc(d.Fixes, func(f diag.Fix) bool { return !f.WhatIf }) {
			continue // what-ifs only: nothing to apply or refuse
		}
		i := slices.IndexFunc(d.Fixes, func(f diag.Fix) bool { return f.Unwritable == "" && len(f.Replacements) > 0 })
		if i < 0 {
			f := d.Fixes[slices.IndexFunc(d.Fixes, func(f diag.Fix) bool { return !f.WhatIf })]
			p.refused = append(p.refused, refusal{d, fmt.Sprintf("%s (%s)", f.Unwritable, f.Description)})
			continue
		}
		fix := d.Fixes[i]
		edits, reason := p.edits(res.Files, fix)
		if reason != "" {
			p.refused = append(p.refused, refusal{d, reason})
			continue
		}
		for name, es := range edits {
			p.files[name].edits = append(p.files[name].edits, es...)
		}
		p.applied = append(p.applied, appliedFix{d, fix})
	}
	for _, f := range p.files {
		after, err := edit.Apply(f.file.Data, f.edits)
		if err != nil {
			// planFixes refused every overlap: this is a bug.
			panic(fmt.Sprintf("fix: %s: %v", f.name, err))
		}
		f.after = after
	}
	for name, f := range p.files {
		if len(f.edits) == 0 {
			delete(p.files, name)
		}
	}
	return p
}

// edits converts one fix's replacements to edits by file, or says why
// they cannot be applied.
func (p *fixPlan) edits(files *source.Set, fix diag.Fix) (map[string][]edit.Edit, string) {
	out := map[string][]edit.Edit{}
	for _, r := range fix.Replacements {
		f := files.File(r.Span.File)
		if f == nil {
			return nil, fmt.Sprintf("%s: the file was not read by this run", r.Span)
		}
		start, end, err := edit.Offsets(f, r.Span)
		if err != nil {
			return nil, err.Error()
		}
		if p.tree != nil {
			if err := p.tree.Writable(f.Name); err != nil {
				return nil, fmt.Sprintf("%s is not written: %v", diffName(f.Name), err)
			}
		}
		text, err := edit.Literal(f.Data[start:end], r.NewText)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", r.Span, err)
		}
		e := edit.Edit{Start: start, End: end, Text: text}
		fe := p.files[f.Name]
		if fe == nil {
			fe = &fileEdits{file: f, name: diffName(f.Name)}
			p.files[f.Name] = fe
		}
		for _, prev := range append(fe.edits, out[f.Name]...) {
			if edit.Overlaps(prev, e) {
				return nil, fmt.Sprintf("its edit at %s overlaps the fix of another finding; run kvlint fix again after applying that one", r.Span)
			}
		}
		out[f.Name] = append(out[f.Name], e)
	}
	return out, ""
}

// names are the files with edits, in the order the diff shows them.
func (p *fixPlan) names() []string {
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(p.files[a].name, p.files[b].name) })
	return names
}

// diff writes the unified diff of every file, by path.
func (p *fixPlan) diff(w io.Writer) error {
	for _, n := range p.names() {
		f := p.files[n]
		if err := edit.Diff(w, f.name, f.file.Data, f.edits); err != nil {
			return err
		}
	}
	return nil
}

// diffName is a file's path as a diff names it: relative to the working
// directory when it lies below it, with forward slashes, and never with
// a leading one (a/ and b/ come before it).
func diffName(name string) string {
	if filepath.IsAbs(name) {
		if wd, err := filepath.Abs("."); err == nil {
			if rel, err := filepath.Rel(wd, name); err == nil && confined.Within(wd, name) {
				name = rel
			}
		}
	}
	return strings.TrimLeft(filepath.ToSlash(filepath.Clean(name)), "/")
}

// reportFixed says, for each applied fix, whether its finding is gone
// from the check after the edits, and lists findings the edits brought.
// Spans move when lines are deleted, so a finding is known by its rule,
// file and flag: a fix worked when fewer findings with those remain.
func reportFixed(w io.Writer, p *fixPlan, before, after *analysis.Result) {
	key := func(d diag.Diagnostic) string { return d.Rule + "\x00" + d.Span.File + "\x00" + d.Arg }
	count := func(res *analysis.Result) map[string]int {
		m := map[string]int{}
		for _, d := range res.Findings {
			if d.Suppression == nil {
				m[key(d)]++
			}
		}
		return m
	}
	was, now := count(before), count(after)
	gone := map[string]int{}
	for k, n := range was {
		gone[k] = max(0, n-now[k])
	}
	fixed, remaining := 0, 0
	for _, a := range p.applied {
		k := key(a.finding)
		if gone[k] > 0 {
			gone[k]--
			fixed++
			fmt.Fprintf(w, "fixed: %s: %s %s\n", a.finding.Span, a.finding.Rule, a.fix.Description)
			continue
		}
		remaining++
		fmt.Fprintf(w, "remains: %s: %s %s\n", a.finding.Span, a.finding.Rule, a.fix.Description)
	}
	added := 0
	for _, d := range after.Findings {
		k := key(d)
		if d.Suppression == nil && now[k] > was[k] {
			now[k]--
			added++
			fmt.Fprintf(w, "new: %s: %s %s %s\n", d.Span, d.Severity, d.Rule, d.Message)
		}
	}
	fmt.Fprintf(w, "kvlint fix: %d edited %s, %d fixed, %d remaining, %d new, %d refused\n",
		len(p.files), plural(len(p.files), "file", "files"), fixed, remaining, added, len(p.refused))
}
