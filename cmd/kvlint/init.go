package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
)

func newInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a .kvlint.yaml listing what kvlint needs to size every server",
		Long: `init checks the directory PATH (default: the working directory) and writes
PATH/.kvlint.yaml listing each server whose KV pool kvlint cannot size, with
the GPU and model candidates it saw in the files, as commented entries of
gpu: and models: ready to fill in. Uncomment and complete them, then run
kvlint capacity to see the servers sized.

The file is not overwritten unless --force is given; it is written to a
temporary file beside it and renamed into place. The analysis ignores any
.kvlint.yaml already there, so the file lists everything the files alone
leave unknown.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			st, err := os.Stat(dir)
			if err != nil {
				return usagef("init: %v", err)
			}
			if !st.IsDir() {
				return usagef("init: %s is not a directory", dir)
			}
			target := filepath.Join(dir, config.FileName)
			if fi, err := os.Lstat(target); err == nil {
				// Rename would replace the link, not write through it,
				// but the link is the user's: kvlint never touches one
				// (as --output refuses one, SECURITY.md).
				if fi.Mode()&fs.ModeSymlink != 0 {
					return usagef("init: %s is a symbolic link: it is not replaced", target)
				}
				if !force {
					return usagef("init: %s exists; pass --force to replace it", target)
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return inputError{err}
			}
			flags := commonFlags{policyTimeout: rules.DefaultTimeout}
			engine, err := flags.newEngine(cmd.Context())
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			// An empty configuration rooted at dir: what the files alone
			// leave unknown, whatever an older .kvlint.yaml declared.
			res, err := check.Run(cmd.Context(), engine, check.Options{
				Paths: []string{dir}, Config: &config.Config{Dir: abs}, Environ: os.Environ(),
			})
			if err != nil {
				return err
			}
			text, n := initFile(res, dir)
			// The file must be one kvlint reads: checked before it
			// replaces anything, so a bad one never reaches the disk.
			if _, err := config.Parse(target, text); err != nil {
				return internalError{fmt.Errorf("the %s kvlint would write does not load: %w", target, err)}
			}
			// The writes of --format FMT=FILE: a temporary file renamed
			// into place, never through a link, readable like any config.
			if err := writeReplacing(target, text); err != nil {
				return inputError{err}
			}
			z := report.SizingOf(res)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d of %d servers with a KV pool need a declaration\n", target, n, z.Servers)
			if len(res.Errors) > 0 {
				for _, e := range res.Errors {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: error: %s\n", e.Span, e.Message)
				}
				return exitError{exitInput}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing .kvlint.yaml")
	return cmd
}

// unsized is one server init lists, with the inputs it lacks.
type unsized struct {
	where   string // file:line:col name (engine), relative to the file's directory
	missing []string
	server  *deploy.Server
	// gpus are the catalog GPUs capacity read the files' candidates as
	// (SkyPilot's A100 is A100-SXM4-40GB), when they differ in memory.
	gpus []string
}

// initFile renders .kvlint.yaml for the unsized servers of res: commented
// gpu: and models: entries, each preceded by the servers that need it and
// the candidates the files named. n is the number of servers listed.
func initFile(res *analysis.Result, dir string) (text []byte, n int) {
	var list []unsized
	for i, s := range res.Servers {
		if s.Engine != deploy.EngineSGLang && s.Engine != deploy.EngineVLLM {
			continue
		}
		e := res.Estimates[i]
		if e.PoolTokens != nil || e.StartupError != "" || len(e.Missing) == 0 {
			continue
		}
		list = append(list, unsized{where: fmt.Sprintf("%s %s (%s)", relSpan(dir, s.Span), s.Name, s.Engine), missing: e.Missing, server: s, gpus: e.GPUCandidates})
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s written by kvlint init: %d server(s) with a KV pool could not be sized.\n", config.FileName, len(list))
	b.WriteString("# Uncomment the entries below (remove the leading \"# \"), fill them in,\n")
	b.WriteString("# and run kvlint capacity to see the servers sized.\n")
	if len(list) == 0 {
		b.WriteString("# Every server kvlint found is sized: nothing to declare.\n")
		return b.Bytes(), 0
	}
	gpuSection(&b, dir, list)
	modelSection(&b, dir, list)
	for _, u := range list {
		for _, m := range u.missing {
			if m != "gpu" && m != "model" && m != "weights" {
				fmt.Fprintf(&b, "\n# %s: %s is unknown; kvlint init has no entry for it\n", comment(u.where), comment(m))
			}
		}
	}
	return b.Bytes(), len(list)
}

// gpuSection lists the servers that lack a GPU and the GPUs their files
// named, and a commented gpu: line. gpu: is one GPU for every server
// whose files name none (config.Config.GPU).
func gpuSection(b *bytes.Buffer, dir string, list []unsized) {
	var need []unsized
	for _, u := range list {
		if slices.Contains(u.missing, "gpu") {
			need = append(need, u)
		}
	}
	if len(need) == 0 {
		return
	}
	b.WriteString("\n# The GPU of every server whose files name none kvlint can read\n")
	b.WriteString("# (a catalog name such as H100-80GB, A100-SXM4-80GB, L4; kvlint --gpu does the same).\n")
	b.WriteString("# Servers that lack it:\n")
	var seen []string
	for _, u := range need {
		fmt.Fprintf(b, "#   %s\n", comment(u.where))
		s := u.server
		switch {
		case len(s.GPUCandidates) > 0:
			fmt.Fprintf(b, "#     the files allow any of %s (%s at %s)\n", comment(strings.Join(s.GPUCandidates, ", ")), comment(s.GPUKey), relSpan(dir, s.GPU.Span))
			if len(u.gpus) > 0 && !slices.Equal(u.gpus, s.GPUCandidates) {
				fmt.Fprintf(b, "#     which kvlint reads as %s\n", comment(strings.Join(u.gpus, ", ")))
			}
			if len(s.GPUCountCandidates) > 0 {
				fmt.Fprintf(b, "#     with %s GPUs, depending on which it gets\n", comment(strings.Join(s.GPUCountCandidates, " or ")))
			}
			if len(u.gpus) > 0 {
				seen = append(seen, u.gpus...)
			} else {
				seen = append(seen, s.GPUCandidates...)
			}
		case s.GPU.IsSet():
			key := s.GPUKey
			if key == "" {
				key = "GPU"
			}
			fmt.Fprintf(b, "#     the files name %s %q, which kvlint cannot resolve (%s)\n", comment(key), comment(s.GPU.Raw), relSpan(dir, s.GPU.Span))
			if s.GPU.Known {
				seen = append(seen, s.GPU.Raw)
			}
		}
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	if len(seen) > 0 {
		fmt.Fprintf(b, "# Candidates seen in the files: %s\n", comment(strings.Join(seen, ", ")))
	}
	b.WriteString("# gpu: \n")
}

// modelSection lists, per model as written, the servers whose model or
// weights kvlint lacks, with --served-model-name as a hint, and a
// commented models: entry keyed by the model as written.
func modelSection(b *bytes.Buffer, dir string, list []unsized) {
	type entry struct {
		key     string
		weights bool
		servers []unsized
	}
	var entries []*entry
	byKey := map[string]*entry{}
	var nameless []unsized
	for _, u := range list {
		model, weights := slices.Contains(u.missing, "model"), slices.Contains(u.missing, "weights")
		if !model && !weights {
			continue
		}
		key := strings.TrimSpace(u.server.Model.Raw)
		if key == "" {
			nameless = append(nameless, u)
			continue
		}
		e := byKey[key]
		if e == nil {
			e = &entry{key: key}
			byKey[key] = e
			entries = append(entries, e)
		}
		e.weights = e.weights || (weights && !model)
		e.servers = append(e.servers, u)
	}
	for _, u := range nameless {
		fmt.Fprintf(b, "\n# %s names no model: name it in its launch command\n", comment(u.where))
	}
	if len(entries) == 0 {
		return
	}
	b.WriteString("\n# Each model as written in a launch command, mapped to a catalog id\n")
	b.WriteString("# (such as meta-llama/Llama-3.1-8B-Instruct) or to a directory holding its\n")
	b.WriteString("# config.json (and model.safetensors.index.json for its weights), relative\n")
	b.WriteString("# to this file.\n")
	b.WriteString("# models:\n")
	for _, e := range entries {
		for _, u := range e.servers {
			s := u.server
			what := "its model"
			if e.weights {
				what = "its weights (the model's size)"
			}
			fmt.Fprintf(b, "#   # %s needs %s; written at %s\n", comment(u.where), what, relSpan(dir, s.Model.Span))
			if len(s.ModelCandidates) > 0 {
				fmt.Fprintf(b, "#   #   the files allow any of %s\n", comment(strings.Join(s.ModelCandidates, ", ")))
			}
			if v, ok := s.Args["--served-model-name"]; ok && v.Known && strings.TrimSpace(v.Raw) != "" {
				fmt.Fprintf(b, "#   #   --served-model-name says %q (a hint only: the name clients send)\n", comment(v.Raw))
			}
		}
		key, _ := json.Marshal(e.key) // a YAML double-quoted scalar
		fmt.Fprintf(b, "#   %s: \n", key)
	}
}

// relSpan renders a span relative to dir when it lies inside it.
func relSpan(dir string, s deploy.Span) string {
	if s.File == "" {
		return "(not written)"
	}
	if r, err := filepath.Rel(dir, s.File); err == nil && !strings.HasPrefix(r, "..") {
		s.File = filepath.ToSlash(r)
	}
	return comment(s.String())
}

// comment makes text safe inside a YAML comment: a line break or other
// control character from the input would end the comment and inject YAML,
// and bidirectional overrides would make it read otherwise than it parses.
// report.Clean escapes those as the reporters do; YAML 1.1 readers also
// break lines at U+2028/U+2029.
func comment(s string) string {
	return strings.NewReplacer("\u2028", "?", "\u2029", "?").Replace(report.Clean(s))
}
