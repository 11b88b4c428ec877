// Package check runs kvlint's pipeline over a set of paths: discover the files,
// parse the servers they launch, estimate each server's KV pool, and judge the
// result with the rules. The CLI is a thin layer over it.
package check

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/baseline"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	kvengine "github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/fixes"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/parallel"
	"github.com/kvlint/kvlint/parsers"
	"github.com/kvlint/kvlint/parsers/k8s"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/source"
)

// Options are the settings of one run. Fields left zero fall back to the
// configuration file, then to kvlint's defaults.
type Options struct {
	Paths   []string
	Config  *config.Config
	Tenancy deploy.Tenancy // --tenancy
	GPU     string         // --gpu
	Exclude []string       // --exclude, gitignore-style
	// HFCaches are --hf-cache directories: Hugging Face hub caches the
	// user named, read wherever they are.
	HFCaches []string
	// TFVarFiles are --tf-var-file files, applied to every Terraform module.
	TFVarFiles []string
	// Environ is the environment TF_VAR_* variables are read from ("NAME=value");
	// nil reads none. The CLI passes the process environment.
	Environ []string
	// Now is the day .kvlint.yaml ignore entries' until: dates are compared
	// with; zero means today.
	Now time.Time
	// Baseline, when set, marks the findings it holds as suppressed;
	// BaselinePath names it in their suppression.
	Baseline     *baseline.File
	BaselinePath string
	// HelmValues (--values) and HelmSet (--set) render the charts named in
	// Paths; other charts take .kvlint.yaml's helm: entries.
	HelmValues []string
	HelmSet    []string
	// NestedConfig lets a .kvlint.yaml below the run's configuration govern
	// the servers beneath it (the CLI sets it unless --config names one file).
	NestedConfig bool
	// EngineRelease (--engine-release vllm=0.11.0) judges every server of
	// the engine as if its image were moved to that release.
	EngineRelease map[deploy.Engine]string
}

// Run analyses the paths. The error return is for failures of kvlint itself
// (the rules would not evaluate); problems with the input are in Result.Errors.
func Run(ctx context.Context, engine *rules.Engine, opt Options) (*analysis.Result, error) {
	cfg := opt.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	ig := &parsers.Ignore{}
	ig.Add("", cfg.Exclude)
	ig.Add("", opt.Exclude)

	files, errs := parsers.Discover(opt.Paths, ig)
	releases := helmReleases(cfg, opt)
	files = withoutRenderedValues(files, releases)
	// Every file the run reads goes into one set, which the result
	// carries to the reporters: the configuration, then what parsing reads.
	// One confinement for the run (internal/confined): every file the
	// tree leads kvlint to is read inside the checked paths only.
	cfs := confined.New(opt.Paths)
	sources := source.NewSet().Confine(cfs)
	if cfg.Path != "" && cfg.Text != nil {
		sources.Add(source.NewFile(cfg.Path, cfg.Text, source.SyntaxYAML))
	}
	res := &analysis.Result{Errors: errs, ExpectedConcurrency: cfg.ExpectedConcurrency, Files: sources}
	// The image table is the run's: every file is parsed with the same
	// rows, the run's configuration's images: first.
	images := kvengine.NewImageTable(cfg.ImageRows())
	parsed := parsers.ParseFileSetWith(files, parsers.Options{TFVarFiles: opt.TFVarFiles, Environ: opt.Environ, Helm: releases, Files: sources, Images: images, Roots: opt.Paths, FS: cfs, ModelFacts: catalogFacts(capacity.Default())})
	res.Servers = parsed.Servers
	res.Errors = append(res.Errors, parsed.Errors...)
	res.Unlaunched = unlaunched(parsed.Unlaunched)
	res.Unanalysed = unanalysed(parsed.Unanalysed)

	cfgs := newConfigTree(cfg, opt.NestedConfig, sources)
	envDirs := map[string][]string{}
	for _, s := range res.Servers {
		resolveRelease(s, images, cfgs.forFile(s.Span.File), sources, opt.EngineRelease, envDirs)
		kvengine.JudgeRelease(s)
	}
	// models: paths of a .kvlint.yaml in the tree stay inside the checked
	// paths; a configuration the user named with --config (NestedConfig
	// off) may also name files beside itself.
	modelFS := cfs
	if !opt.NestedConfig && cfg.Dir != "" {
		modelFS = confined.New(append(append([]string(nil), opt.Paths...), cfg.Dir))
	}
	res.Estimates = make([]capacity.Estimate, len(res.Servers))
	parallel.For(len(res.Servers), func(i int) {
		s := res.Servers[i]
		res.Estimates[i] = capacity.EstimateServer(s, capacityOptions(cfgs.forFile(s.Span.File), opt.GPU, modelFS, opt.HFCaches))
	})
	notes := noteLists{}
	for i := range res.Estimates {
		notes.shareNotes(&res.Estimates[i])
	}

	settings := rules.Settings{Tenancy: deploy.TenancyMulti, ExpectedConcurrency: cfg.ExpectedConcurrency}
	if cfg.Tenancy != "" {
		settings.Tenancy = cfg.Tenancy
	}
	if opt.Tenancy != "" {
		settings.Tenancy = opt.Tenancy
	}
	res.Deployments = deployments(res.Servers, parsed.Services, cfgs, opt.Tenancy)
	res.Errors = append(res.Errors, cfgs.errs...)
	settings.Deployments = res.Deployments
	all, err := engine.Evaluate(ctx, res.Servers, res.Estimates, settings)
	if err != nil {
		return nil, err
	}
	// A custom policy that failed is input kvlint could not analyse, at
	// the policy: an error, not a finding.
	findings := all[:0]
	for _, f := range all {
		if f.IsInputError() {
			res.Errors = append(res.Errors, &f)
		} else {
			findings = append(findings, f)
		}
	}
	coverage, err := engine.EvaluateCoverage(ctx, rules.Coverage{
		Mentions: mentionFacts(parsed.Unlaunched), Unanalysed: unanalysedFacts(parsed.Unanalysed)})
	if err != nil {
		return nil, err
	}
	res.Findings = append(findings, coverage...)
	fixes.Attach(res)
	if err := suppressFindings(ctx, engine, res, files, cfg, opt); err != nil {
		return nil, err
	}
	sortErrors(res.Errors)
	return res, nil
}

// unlaunched is what the result keeps of the places files name an engine
// without a launch: where, and what was seen.
func unlaunched(us []parsers.Unlaunched) []analysis.EngineMention {
	out := make([]analysis.EngineMention, len(us))
	for i, u := range us {
		out[i] = analysis.EngineMention{Span: u.Span, Kind: string(u.Mention.Kind), Named: u.Mention.Text}
	}
	return out
}

// unanalysed is what the result keeps of what the run knows it did not
// read.
func unanalysed(us []parsers.Unanalysed) []analysis.Unanalysed {
	out := make([]analysis.Unanalysed, len(us))
	for i, u := range us {
		out[i] = analysis.Unanalysed{Span: u.Span, Kind: u.Kind, Name: u.Name, Source: u.Source}
	}
	return out
}

// unanalysedFacts are the facts KV502 judges.
func unanalysedFacts(us []parsers.Unanalysed) []rules.UnanalysedFact {
	out := make([]rules.UnanalysedFact, len(us))
	for i, u := range us {
		out[i] = rules.UnanalysedFact{Kind: u.Kind, Name: u.Name, Source: u.Source, Span: u.Span}
	}
	return out
}

// mentionFacts are the facts the coverage rules (KV5xx) judge.
func mentionFacts(us []parsers.Unlaunched) []rules.MentionFact {
	facts := make([]rules.MentionFact, len(us))
	for i, u := range us {
		m := u.Mention
		facts[i] = rules.MentionFact{
			Kind: string(m.Kind), Text: m.Text, Engine: string(m.Engine), Quoted: u.Quoted,
			ImageKnown: m.ImageKnown, ImageEntrypoint: m.ImageKnown && len(m.Image.Entrypoint)+len(m.Image.Cmd) > 0,
			Span: u.Span,
		}
	}
	return facts
}

func sortErrors(errs []*diag.Diagnostic) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Span, errs[j].Span
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// catalogFacts tells the parsers what the model catalog knows of an id:
// OME's runtime selector pairs a runtime with a base model by the model's
// architecture and size, which a base model's spec may leave to the
// config.json kvlint's catalog copies.
func catalogFacts(cat *capacity.Catalog) k8s.ModelFacts {
	return func(id string) (k8s.ModelFact, bool) {
		m, inferred, ok := cat.Identify(id)
		if !ok {
			return k8s.ModelFact{}, false
		}
		f := k8s.ModelFact{Params: m.Params, Inferred: inferred}
		if m.Quant != nil {
			f.Quantization = m.Quant.Method
			if f.Quantization == "" {
				f.Quantization = "unnamed"
			}
		}
		if len(m.Architectures) > 0 {
			f.Architecture = m.Architectures[0]
		}
		return f, true
	}
}

// capacityOptions applies the configuration's model mappings and GPU to
// the capacity estimates. The GPU is a default for servers whose files
// name none; --gpu overrides the configuration's. cfs confines the model
// configs it reads.
func capacityOptions(cfg *config.Config, gpu string, cfs *confined.FS, named []string) capacity.Options {
	opt := capacity.Options{GPU: cfg.GPU, GPUSource: ".kvlint.yaml gpu:", ModelConfigs: cfg.Models, BaseDir: cfg.Dir, Catalog: capacity.Default(), FS: cfs}
	if gpu != "" {
		opt.GPU, opt.GPUSource = gpu, "--gpu"
	}
	opt.HFCaches = hfCaches(cfg, named)
	return opt
}

// hfCaches lists the Hugging Face hub caches to search, in order: those
// named by --hf-cache (read wherever they are), those .kvlint.yaml lists,
// then where huggingface_hub itself would look on this machine
// ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub:
// huggingface_hub constants.py HF_HUB_CACHE). All but the first are read
// only inside the checked paths (the model FS refuses the rest), so a
// cache outside the tree is never read because a file or the environment
// pointed at it.
func hfCaches(cfg *config.Config, named []string) []capacity.HFCache {
	var out []capacity.HFCache
	for _, d := range named {
		out = append(out, capacity.HFCache{Dir: d, Named: true, From: "--hf-cache"})
	}
	for _, d := range cfg.HFCache {
		if !filepath.IsAbs(d) && cfg.Dir != "" {
			d = filepath.Join(cfg.Dir, d)
		}
		out = append(out, capacity.HFCache{Dir: d, From: ".kvlint.yaml hf_cache:"})
	}
	switch {
	case os.Getenv("HF_HUB_CACHE") != "":
		out = append(out, capacity.HFCache{Dir: os.Getenv("HF_HUB_CACHE"), From: "$HF_HUB_CACHE"})
	case os.Getenv("HF_HOME") != "":
		out = append(out, capacity.HFCache{Dir: filepath.Join(os.Getenv("HF_HOME"), "hub"), From: "$HF_HOME/hub"})
	default:
		if home, err := os.UserHomeDir(); err == nil {
			out = append(out, capacity.HFCache{Dir: filepath.Join(home, ".cache", "huggingface", "hub"), From: "~/.cache/huggingface/hub"})
		}
	}
	return out
}
