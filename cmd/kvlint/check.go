package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	kvengine "github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/parsers"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/sarif"
)

// commonFlags are the settings check and capacity share.
type commonFlags struct {
	format     string
	tenancy    string
	gpu        string
	hfCaches   []string
	configPath string
	exclude    []string
	tfVarFiles []string
	// Helm values (--values/-f) and --set, for the charts named as paths.
	helmValues []string
	helmSet    []string
	engine     *rules.Engine // set by analyse: the rules that ran
	// Custom policies (--policy, --policy-timeout) and, for check only,
	// the baseline (--baseline).
	policyDirs    []string
	policyTimeout time.Duration
	baselinePath  string
	// units: the paths are changed files, mapped to what must be checked
	// with them (parsers.Units); passed lists those with nothing to analyse.
	units  bool
	passed []string
	// engineReleases are --engine-release ENGINE=VERSION: judge every server
	// of ENGINE as if its image ran VERSION.
	engineReleases []string
	// quiet (-q) prints findings only; verbose (-v) logs the files checked
	// and the phases' timings on standard error; stdinName names "-".
	quiet, verbose bool
	stdinName      string
}

func (f *commonFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&f.tenancy, "tenancy", "", "multi (the default) or single: whether tenants share servers")
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU the servers run on when their files don't say (e.g. H100-80GB)")
	cmd.Flags().StringArrayVar(&f.hfCaches, "hf-cache", nil, "Hugging Face hub cache directory (holding models--ORG--NAME) to read model configs and weights from (repeatable)")
	cmd.Flags().StringVar(&f.configPath, "config", "", "configuration file (default: "+config.FileName+" beside the checked paths or in a parent, else in the working directory or a parent)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "gitignore-style pattern of paths not to check (repeatable)")
	cmd.Flags().StringArrayVar(&f.tfVarFiles, "tf-var-file", nil, "Terraform variable definitions file applied to every module after its own tfvars (repeatable)")
	cmd.Flags().StringArrayVarP(&f.helmValues, "values", "f", nil, "Helm values file for the charts named as paths, applied in order after the chart's values.yaml (repeatable)")
	cmd.Flags().StringArrayVar(&f.helmSet, "set", nil, "Helm --set key=value for the charts named as paths, applied after --values (repeatable)")
	cmd.Flags().StringArrayVar(&f.policyDirs, "policy", nil, "directory of custom Rego policies, evaluated with the built-in rules (repeatable)")
	cmd.Flags().DurationVar(&f.policyTimeout, "policy-timeout", rules.DefaultTimeout, "time limit of one evaluation of the policies")
	cmd.Flags().StringArrayVar(&f.engineReleases, "engine-release", nil, "ENGINE=VERSION (vllm=0.11.0, sglang=0.4.6): judge every server of the engine as if its image were moved to that release (repeatable)")
}

// registerRun adds the flags of the commands that run a check and print
// it (check, verify, capacity): -q, -v and --stdin-filename.
func (f *commonFlags) registerRun(cmd *cobra.Command, quiet string) {
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, quiet)
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "list on standard error the files checked, with the format each is read as, and how long each phase took")
	cmd.Flags().StringVar(&f.stdinName, "stdin-filename", "", "with - as the path: the name standard input is checked under, for positions and format detection (never opened); default "+stdinName+", its format decided from its content")
}

// upgrade reads --engine-release; a malformed one is a usage error.
func (f *commonFlags) upgrade() (map[deploy.Engine]string, error) {
	if len(f.engineReleases) == 0 {
		return nil, nil
	}
	out := map[deploy.Engine]string{}
	for _, a := range f.engineReleases {
		e, v, ok := strings.Cut(a, "=")
		v = strings.TrimPrefix(strings.TrimSpace(v), "v")
		eng := deploy.Engine(strings.TrimSpace(e))
		if !ok || (eng != deploy.EngineVLLM && eng != deploy.EngineSGLang) || !(v == "main" || kvengine.ValidVersion(v)) {
			return nil, usagef("--engine-release must be vllm=VERSION or sglang=VERSION (e.g. vllm=0.11.0), not %q", a)
		}
		out[eng] = v
	}
	return out, nil
}

// newEngine compiles the built-in rules and the --policy directories; a
// custom policy kvlint cannot use is a usage error (exit 2).
func (f *commonFlags) newEngine(ctx context.Context) (*rules.Engine, error) {
	if f.policyTimeout <= 0 {
		return nil, usagef("--policy-timeout must be positive, not %s", f.policyTimeout)
	}
	engine, err := rules.New(ctx, rules.Options{PolicyDirs: f.policyDirs, Timeout: f.policyTimeout})
	var pe *rules.PolicyError
	if errors.As(err, &pe) {
		return nil, usagef("%v", pe)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the rules: %w", err)
	}
	return engine, nil
}

// analyse validates the shared flags, loads the configuration and runs the
// pipeline, for commands without standard input or a log.
func (f *commonFlags) analyse(ctx context.Context, paths []string) (*analysis.Result, *config.Config, error) {
	return f.analyseRun(ctx, paths, nil, nil)
}

// analyseRun is analyse with "-" among the paths reading stdin, and -v
// logging to log (nil: nothing).
func (f *commonFlags) analyseRun(ctx context.Context, paths []string, stdin io.Reader, log *verboseLog) (*analysis.Result, *config.Config, error) {
	switch deploy.Tenancy(f.tenancy) {
	case "", deploy.TenancyMulti, deploy.TenancySingle:
	default:
		return nil, nil, usagef("--tenancy must be multi or single, not %q", f.tenancy)
	}
	var in *stdinInput
	var err error
	switch {
	case slices.Contains(paths, "-"):
		if len(paths) != 1 {
			return nil, nil, usagef("- reads standard input, and is checked on its own: give no other path with it")
		}
		if f.units {
			return nil, nil, usagef("--units maps changed files to what they belong to; standard input (-) belongs to nothing")
		}
		if in, err = readStdin(stdin, f.stdinName); err != nil {
			return nil, nil, err
		}
	case f.stdinName != "":
		return nil, nil, usagef("--stdin-filename names standard input: give - as the path to read it")
	}
	var cfg *config.Config
	err = log.phase("config", func() error {
		switch {
		case f.configPath != "":
			cfg, err = config.Load(f.configPath)
		case in != nil:
			// The configuration that governs the file the name names, as
			// if it were there: only its directory is looked at.
			cfg, err = config.FindFor(".", []string{filepath.Dir(in.name)})
		default:
			// The file nearest the checked paths, else the working directory's:
			// `kvlint check examples/healthy` reads examples/healthy/.kvlint.yaml.
			cfg, err = config.FindFor(".", paths)
		}
		return err
	})
	if err != nil {
		return nil, nil, inputError{err}
	}
	if cfg.Path != "" {
		log.printf("configuration %s", cfg.Path)
	}
	if f.units {
		// Nothing left to check is a clean run, not a run over ".".
		paths, f.passed = parsers.Units(paths)
		for _, p := range f.passed {
			log.printf("passed over %s: nothing to analyse and no engine named", p)
		}
	} else if len(paths) == 0 {
		paths = []string{"."}
	}
	var base *baseline.File
	if f.baselinePath != "" {
		if base, err = baseline.Load(f.baselinePath); err != nil {
			return nil, nil, inputError{err}
		}
	}
	var engine *rules.Engine
	if err := log.phase("rules", func() (err error) { engine, err = f.newEngine(ctx); return err }); err != nil {
		return nil, nil, err
	}
	f.engine = engine
	upgrade, err := f.upgrade()
	if err != nil {
		return nil, nil, err
	}
	opt := check.Options{
		EngineRelease: upgrade,
		Paths:         paths, Config: cfg, Tenancy: deploy.Tenancy(f.tenancy), GPU: f.gpu, HFCaches: f.hfCaches, Exclude: f.exclude,
		TFVarFiles: f.tfVarFiles, Environ: os.Environ(),
		Baseline: base, BaselinePath: f.baselinePath,
		HelmValues: f.helmValues, HelmSet: f.helmSet,
		NestedConfig: f.configPath == "",
	}
	if in != nil {
		return f.analyseStdin(ctx, engine, opt, in, log)
	}
	log.discovered(paths, cfg, f.exclude)
	var res *analysis.Result
	err = log.phase("analysis", func() (err error) { res, err = check.Run(ctx, engine, opt); return err })
	return res, cfg, err
}

// analyseStdin runs the pipeline over standard input: spooled to a private
// directory under its name, and checked from a stand-in working directory
// there, so that every position, message and fingerprint names it as the
// file it stands for. Paths the flags named are made absolute first, and
// the working directory is restored before anything is written.
func (f *commonFlags) analyseStdin(ctx context.Context, engine *rules.Engine, opt check.Options, in *stdinInput, log *verboseLog) (*analysis.Result, *config.Config, error) {
	cfg := opt.Config
	var err error
	if cfg.Path != "" {
		if cfg.Path, err = filepath.Abs(cfg.Path); err != nil {
			return nil, nil, err
		}
	}
	if cfg.Dir != "" {
		if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
			return nil, nil, err
		}
	}
	if opt.HelmValues, err = absPaths(opt.HelmValues); err != nil {
		return nil, nil, err
	}
	if opt.TFVarFiles, err = absPaths(opt.TFVarFiles); err != nil {
		return nil, nil, err
	}
	// The stand-in directory holds no configuration, and none above it
	// (the system's temporary directory) may govern the input.
	opt.NestedConfig = false
	opt.Paths = []string{in.name}
	if in.tooBig {
		opt.Paths = nil
	}
	if !in.named {
		log.printf("reading standard input as %s: no --stdin-filename, so its content decides the format", in.name)
	}
	wd, remove, err := in.spool()
	if err != nil {
		return nil, nil, fmt.Errorf("keeping standard input for the run: %w", err)
	}
	defer remove()
	orig, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	if err := os.Chdir(wd); err != nil {
		return nil, nil, err
	}
	log.discovered(opt.Paths, cfg, f.exclude)
	var res *analysis.Result
	err = log.phase("analysis", func() (err error) { res, err = check.Run(ctx, engine, opt); return err })
	if cerr := os.Chdir(orig); err == nil && cerr != nil {
		err = fmt.Errorf("returning to the working directory: %w", cerr)
	}
	if err != nil {
		return nil, nil, err
	}
	if in.tooBig {
		res.Errors = append(res.Errors, &diag.Diagnostic{Span: deploy.Span{File: in.name},
			Message: fmt.Sprintf("standard input is larger than %d MiB; not read", limits.MaxFileSize>>20)})
	}
	if !in.named {
		for _, e := range res.Errors {
			if e.Span.File == in.name && strings.HasPrefix(e.Message, "not a format kvlint reads") {
				e.Message += "; give --stdin-filename NAME (deploy/pod.yaml, Dockerfile, serve.sh) so the name decides the format"
			}
		}
	}
	return res, cfg, nil
}

func newCheckCmd() *cobra.Command {
	var flags commonFlags
	var failOn, outputPath, category, colorMode, groupBy string
	var vf verifyFlags
	cmd := &cobra.Command{
		Use:   "check [PATH...|-]",
		Short: "Find KV-cache capacity and isolation mistakes in deployment files",
		Long: `check finds every SGLang and vLLM server (and router) launched in the given
files and directories, computes the KV-cache pool each will allocate, and
reports what the rules find. It reads:

` + formatsHelp() + `

- reads standard input as one file: --stdin-filename NAME gives the name its
positions and format detection use (the name is never opened; without it the
input is "` + stdinName + `" and its content decides the format).

Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage error,
3 some input could not be analysed (reported; the rest is still checked, but
a .kvlint.yaml or --baseline file that cannot be read or understood stops
the run), 4 internal error (a bug in kvlint, said so on stderr).

Formats (--format): text (the default), json, sarif (SARIF 2.1.0, for code
scanning), github (GitHub Actions annotations), codequality (GitLab Code
Quality report), junit (JUnit XML; findings at or above --fail-on fail) and
html (one self-contained page: topology, GPU memory bars, findings and
fixes, and after a verification the runtime's measurements; --format
html=report.html).
In text on standard output, findings go to standard output and input kvlint
could not analyse to standard error; the other formats keep both in their
document. -q prints the findings alone, -v lists the files checked and the
phases' timings on standard error. Text on a terminal is coloured:
--color=always|never, or NO_COLOR=1.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			outs, err := parseOutputs(flags.format, outputPath)
			if err != nil {
				return err
			}
			if err := checkOutputPaths(outs); err != nil {
				return err
			}
			if err := vf.validate(cmd); err != nil {
				return err
			}
			if flags.quiet && flags.verbose {
				return usagef("--quiet and --verbose contradict each other: give one")
			}
			if flags.quiet && vf.enabled {
				return usagef("--quiet prints findings alone, and a verification's report is its verdicts: drop --quiet")
			}
			group, err := parseGroupBy(groupBy)
			if err != nil {
				return err
			}
			color, err := useColor(colorMode, cmd.OutOrStdout(), os.Getenv("NO_COLOR"))
			if err != nil {
				return err
			}
			colorErr, err := useColor(colorMode, cmd.ErrOrStderr(), os.Getenv("NO_COLOR"))
			if err != nil {
				return err
			}
			log := newVerboseLog(cmd.ErrOrStderr(), flags.verbose)
			res, cfg, err := flags.analyseRun(cmd.Context(), paths, cmd.InOrStdin(), log)
			if err != nil {
				return err
			}
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
			// The exit code is decided before anything is written: the
			// SARIF log records it (invocations[0].exitCode).
			exit := exitFor(res, threshold)
			code := exitClean
			if ee := (exitError{}); errors.As(exit, &ee) {
				code = ee.code
			}
			run := checkRun{res: res, rules: flags.engine.Rules(), exitCode: code, category: category,
				threshold: threshold, color: color, groupBy: group,
				stderr: cmd.ErrOrStderr(), colorErr: colorErr, quiet: flags.quiet}
			if vf.enabled {
				if err := log.phase("verification", func() (err error) {
					run.verification, err = vf.verify(cmd, res, flags.tenancy)
					return err
				}); err != nil {
					return err
				}
			}
			if err := log.phase("report", func() error { return writeOutputs(cmd.OutOrStdout(), outs, run) }); err != nil {
				return err
			}
			log.timings()
			return exit
		},
	}
	flags.register(cmd)
	flags.registerRun(cmd, "print the findings alone: no summary, no deployment lines, no info notes (unless --fail-on info); input errors still go to standard error")
	cmd.Flags().Lookup("format").Usage = "output formats, comma-separated: text, json, sarif, github (workflow commands), codequality (GitLab Code Quality), junit (JUnit XML); FORMAT=FILE writes a file (at most one goes to standard output)"
	cmd.Flags().StringVar(&colorMode, "color", "auto", "colour the severity and the caret of text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	cmd.Flags().StringVarP(&outputPath, "output", "o", "", "write the standard-output format to FILE instead")
	cmd.Flags().StringVar(&groupBy, "group-by", string(report.GroupByDeployment), "group the findings of text output by deployment, rule or file")
	cmd.Flags().StringVar(&category, "sarif-category", sarif.DefaultCategory, "SARIF automationDetails category, to upload several kvlint analyses of one commit")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "lowest severity that fails the run: critical, high, medium, low or info (default high)")
	cmd.Flags().BoolVar(&flags.units, "units", false, "the paths are changed files (pre-commit's, a diff's): check the unit each belongs to (its Helm chart, Terraform module, compose project, directory of manifests) and pass over files with nothing to analyse")
	cmd.Flags().StringVar(&flags.baselinePath, "baseline", "", "report only findings not in this baseline (written by kvlint baseline)")
	vf.register(cmd)
	return cmd
}

// exitFor picks the exit code: input that could not be analysed outranks
// findings, because a run that did not see everything proves nothing clean.
// Suppressed findings don't count.
func exitFor(res *analysis.Result, threshold diag.Severity) error {
	if len(res.Errors) > 0 {
		return exitError{exitInput}
	}
	for _, f := range res.Findings {
		if f.Suppression != nil {
			continue
		}
		if s, err := diag.ParseSeverity(f.Severity); err == nil && s.AtLeast(threshold) {
			return exitError{exitFindings}
		}
	}
	return nil
}

func newCapacityCmd() *cobra.Command {
	var flags commonFlags
	var derivation bool
	cmd := &cobra.Command{
		Use:   "capacity [PATH...|-]",
		Short: "Show the KV-cache pool each server will allocate, and how it was computed",
		Long: `capacity shows, for every server check finds, the KV-cache pool it will
allocate and what it was computed from (--explain: each step). It reads the
formats check reads:

` + formatsHelp() + `

- reads standard input (--stdin-filename NAME, as for check). In text, input
kvlint could not analyse goes to standard error; -q prints the table alone.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if flags.format != "text" && flags.format != "json" {
				return usagef("--format must be text or json, not %q", flags.format)
			}
			if flags.quiet && flags.verbose {
				return usagef("--quiet and --verbose contradict each other: give one")
			}
			if flags.quiet && derivation {
				return usagef("--quiet prints the table alone, and --explain adds to it: give one")
			}
			log := newVerboseLog(cmd.ErrOrStderr(), flags.verbose)
			res, _, err := flags.analyseRun(cmd.Context(), paths, cmd.InOrStdin(), log)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			err = log.phase("report", func() error {
				if flags.format == "json" {
					return report.CapacityJSON(out, res)
				}
				// Input errors to standard error, the pools to standard output.
				if err := writeTextErrors(cmd.ErrOrStderr(), res, false, flags.quiet); err != nil {
					return err
				}
				shown := *res
				shown.Errors = nil
				if flags.quiet {
					// The table alone: what was assumed and what is unknown
					// stay in --explain and JSON.
					shown.Estimates = make([]capacity.Estimate, len(res.Estimates))
					for i, e := range res.Estimates {
						e.Assumptions, e.Missing = nil, nil
						shown.Estimates[i] = e
					}
				}
				return report.CapacityText(out, &shown, derivation)
			})
			if err != nil {
				return err
			}
			log.timings()
			if len(res.Errors) > 0 {
				return exitError{exitInput}
			}
			return nil
		},
	}
	flags.register(cmd)
	flags.registerRun(cmd, "print the table alone: no assumed/unknown notes under it; input errors still go to standard error")
	cmd.Flags().BoolVar(&derivation, "explain", false, "show each step of the pool computation")
	return cmd
}
