package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	kvengine "github.com/kvlint/kvlint/engine"
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
}

func (f *commonFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
	cmd.Flags().StringVar(&f.tenancy, "tenancy", "", "multi (the default) or single: whether tenants share servers")
	cmd.Flags().StringVar(&f.gpu, "gpu", "", "GPU the servers run on when their files don't say (e.g. H100-80GB)")
	cmd.Flags().StringVar(&f.configPath, "config", "", "configuration file (default: "+config.FileName+" beside the checked paths or in a parent, else in the working directory or a parent)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "gitignore-style pattern of paths not to check (repeatable)")
	cmd.Flags().StringArrayVar(&f.tfVarFiles, "tf-var-file", nil, "Terraform variable definitions file applied to every module after its own tfvars (repeatable)")
	cmd.Flags().StringArrayVarP(&f.helmValues, "values", "f", nil, "Helm values file for the charts named as paths, applied in order after the chart's values.yaml (repeatable)")
	cmd.Flags().StringArrayVar(&f.helmSet, "set", nil, "Helm --set key=value for the charts named as paths, applied after --values (repeatable)")
	cmd.Flags().StringArrayVar(&f.policyDirs, "policy", nil, "directory of custom Rego policies, evaluated with the built-in rules (repeatable)")
	cmd.Flags().DurationVar(&f.policyTimeout, "policy-timeout", rules.DefaultTimeout, "time limit of one evaluation of the policies")
	cmd.Flags().StringArrayVar(&f.engineReleases, "engine-release", nil, "ENGINE=VERSION (vllm=0.11.0, sglang=0.4.6): judge every server of the engine as if its image were moved to that release (repeatable)")
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

// analyse validates the shared flags, loads the configuration and runs the pipeline.
func (f *commonFlags) analyse(ctx context.Context, paths []string) (*analysis.Result, *config.Config, error) {
	switch deploy.Tenancy(f.tenancy) {
	case "", deploy.TenancyMulti, deploy.TenancySingle:
	default:
		return nil, nil, usagef("--tenancy must be multi or single, not %q", f.tenancy)
	}
	var cfg *config.Config
	var err error
	if f.configPath != "" {
		cfg, err = config.Load(f.configPath)
	} else {
		// The file nearest the checked paths, else the working directory's:
		// `kvlint check examples/healthy` reads examples/healthy/.kvlint.yaml.
		cfg, err = config.FindFor(".", paths)
	}
	if err != nil {
		return nil, nil, inputError{err}
	}
	if f.units {
		// Nothing left to check is a clean run, not a run over ".".
		paths, f.passed = parsers.Units(paths)
	} else if len(paths) == 0 {
		paths = []string{"."}
	}
	var base *baseline.File
	if f.baselinePath != "" {
		if base, err = baseline.Load(f.baselinePath); err != nil {
			return nil, nil, inputError{err}
		}
	}
	engine, err := f.newEngine(ctx)
	if err != nil {
		return nil, nil, err
	}
	f.engine = engine
	upgrade, err := f.upgrade()
	if err != nil {
		return nil, nil, err
	}
	res, err := check.Run(ctx, engine, check.Options{
		EngineRelease: upgrade,
		Paths:         paths, Config: cfg, Tenancy: deploy.Tenancy(f.tenancy), GPU: f.gpu, Exclude: f.exclude,
		TFVarFiles: f.tfVarFiles, Environ: os.Environ(),
		Baseline: base, BaselinePath: f.baselinePath,
		HelmValues: f.helmValues, HelmSet: f.helmSet,
		NestedConfig: f.configPath == "",
	})
	return res, cfg, err
}

func newCheckCmd() *cobra.Command {
	var flags commonFlags
	var failOn, outputPath, category, colorMode string
	var vf verifyFlags
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Find KV-cache capacity and isolation mistakes in deployment files",
		Long: `check finds every SGLang server launched in the given files and directories
(shell scripts, Dockerfiles, compose files, Kubernetes manifests), computes the
KV-cache pool each will allocate, and reports what the rules find.

Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage error,
3 some input could not be analysed (reported; the rest is still checked, but
a .kvlint.yaml or --baseline file that cannot be read or understood stops
the run), 4 internal error (a bug in kvlint, said so on stderr).

Formats (--format): text (the default), json, sarif (SARIF 2.1.0, for code
scanning), github (GitHub Actions annotations), codequality (GitLab Code
Quality report) and junit (JUnit XML; findings at or above --fail-on fail).
Text on a terminal is coloured: --color=always|never, or NO_COLOR=1.`,
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
			color, err := useColor(colorMode, cmd.OutOrStdout(), os.Getenv("NO_COLOR"))
			if err != nil {
				return err
			}
			res, cfg, err := flags.analyse(cmd.Context(), paths)
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
				threshold: threshold, color: color}
			if run.verification, err = vf.verify(cmd, res, flags.tenancy); err != nil {
				return err
			}
			if err := writeOutputs(cmd.OutOrStdout(), outs, run); err != nil {
				return err
			}
			return exit
		},
	}
	flags.register(cmd)
	cmd.Flags().Lookup("format").Usage = "output formats, comma-separated: text, json, sarif, github (workflow commands), codequality (GitLab Code Quality), junit (JUnit XML); FORMAT=FILE writes a file (at most one goes to standard output)"
	cmd.Flags().StringVar(&colorMode, "color", "auto", "colour the severity and the caret of text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	cmd.Flags().StringVarP(&outputPath, "output", "o", "", "write the standard-output format to FILE instead")
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
		Use:   "capacity [PATH...]",
		Short: "Show the KV-cache pool each server will allocate, and how it was computed",
		RunE: func(cmd *cobra.Command, paths []string) error {
			if flags.format != "text" && flags.format != "json" {
				return usagef("--format must be text or json, not %q", flags.format)
			}
			res, _, err := flags.analyse(cmd.Context(), paths)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if flags.format == "json" {
				err = report.CapacityJSON(out, res)
			} else {
				err = report.CapacityText(out, res, derivation)
			}
			if err != nil {
				return err
			}
			if len(res.Errors) > 0 {
				return exitError{exitInput}
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVar(&derivation, "explain", false, "show each step of the pool computation")
	return cmd
}
