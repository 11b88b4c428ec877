package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/verify"
)

// maxVerifyRequests bounds --requests: a scenario is a scaled model, never a load test.
const maxVerifyRequests = 100_000

// verifyFlags are the settings of kvlint verify and of check --verify.
type verifyFlags struct {
	enabled  bool
	seed     uint64
	requests int
}

func (v *verifyFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&v.enabled, "verify", false, "confirm each finding in kvlint's miniature prefill/decode runtime (as kvlint verify does)")
	cmd.Flags().Uint64Var(&v.seed, "seed", 1, "seed of the verification's workloads: the same seed gives byte-identical reports")
	cmd.Flags().IntVar(&v.requests, "requests", 0, "requests of each deployment's declared-load workload (default: 4 per declared concurrent request, 200 to 1,000)")
}

// validate rejects verification settings without a verification, before any work.
func (v *verifyFlags) validate(cmd *cobra.Command) error {
	if !v.enabled {
		for _, name := range []string{"seed", "requests"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s applies to a verification: add --verify, or run kvlint verify", name)
			}
		}
		return nil
	}
	if v.requests < 0 || v.requests > maxVerifyRequests {
		return usagef("--requests must be between 0 (automatic) and %d, not %d", maxVerifyRequests, v.requests)
	}
	return nil
}

// verify runs the verification when it is enabled; nil otherwise.
func (v *verifyFlags) verify(cmd *cobra.Command, res *analysis.Result, tenancy string) (*verify.Report, error) {
	if !v.enabled {
		return nil, nil
	}
	bar := newProgressBar(cmd.ErrOrStderr())
	defer bar.finish()
	return verify.Run(cmd.Context(), res, verify.Options{
		Seed: v.seed, Requests: v.requests, Tenancy: deploy.Tenancy(tenancy), Progress: bar.update,
	})
}

func newVerifyCmd() *cobra.Command {
	cmd := newCheckCmd()
	cmd.Use = "verify [PATH...]"
	cmd.Short = "Check deployment files, then confirm each finding in a miniature runtime configured like the deployment"
	cmd.Long = `verify runs check, then boots kvlint's miniature prefill/decode runtime for every
deployment it can model, with or without findings, configured like the
deployment and scaled down so a run takes seconds (the scaling is printed). It
runs the deployment's workload (.kvlint.yaml workload: concurrency,
prompt_tokens {median, max}, output_tokens {median, max}, tenants; a printed
default otherwise) over three seeds, with canary secrets, under the engine
behaviour of the SGLang release the deployment runs: that release's known
engine paths (cited by file and function) and nothing else. Each finding is
marked confirmed, not confirmed, inconclusive or not applicable, with the
numbers behind it:

  capacity findings (KV101, KV102, KV104, KV205): confirmed only when the
    declared traffic makes the pool turn requests away or disturb them; the
    same load under the hypothesis stale-pages (a retraction use-after-free
    no engine is known to have) is reported beside it and never confirms;
  isolation findings (KV301, KV304): the prompt-caching audit's probe, run on
    every multi-tenant deployment, finding or not: 250 samples per arm
    (HIT-cross, HIT-same, MISS, A/A) at three seeds, beside background
    tenants that keep the prefill servers 30% busy, with time to first token
    modelled from the deployment's model on its GPU (prefill FLOPs over the
    data sheet's BF16 throughput, decode over its bandwidth); a one-sided
    two-sample Kolmogorov-Smirnov test plus AUC at family-wise alpha 1e-6,
    the spread over the seeds, and the power the audit had against the
    modelled cache hit. The verdict is the timing test's alone; white-box
    reads of another tenant's pages are context;
  KV302: the cached-token oracle, its extraction aligned to the deployment's
    page; KV201/KV202: the transfer handshake.

Nothing leaves the machine: the runtime is simulated on a virtual clock, and
the same --seed gives byte-identical output. --format json adds "verdict" and
"evidence" to each finding and a "verification" member; SARIF carries them as
result properties.

It reads what check reads:

` + formatsHelp() + `

Exit status is check's: 0 clean, 1 findings at or above --fail-on (whatever
their verdict), 2 usage error, 3 some input could not be analysed.`
	// verify is check with --verify on; TestVerifyIsCheckWithVerifyOn guards the wiring.
	if f := cmd.Flags().Lookup("verify"); f != nil {
		_ = f.Value.Set("true")
		f.DefValue = "true"
		f.Hidden = true
	}
	cmd.Long += `

With --endpoint URL, verify audits a running OpenAI-compatible server instead
of files: the prompt-caching audit (a victim primes a prefix; HIT-cross,
HIT-same, MISS and A/A arms; KS test and AUC with the power the audit had),
one request at a time, at most --endpoint-requests requests at most
--endpoint-rate per second, all to that URL (no redirect is followed). The
two tenants differ in the header --tenant-header names and/or the body field
--salt-field names. Exit 1 when another tenant's prompt is measurably cached
for the attacker, 3 when the server could not be audited.`
	var ef endpointFlags
	ef.register(cmd)
	check := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, paths []string) error {
		if ef.url == "" {
			for _, name := range endpointFlagNames {
				if cmd.Flags().Changed(name) {
					return usagef("--%s applies to an endpoint audit: add --endpoint URL", name)
				}
			}
			return check(cmd, paths)
		}
		if len(paths) > 0 {
			return usagef("--endpoint audits a running server: it takes no paths")
		}
		return ef.run(cmd)
	}
	return cmd
}

// endpointFlags are the settings of kvlint verify --endpoint.
type endpointFlags struct {
	url          string
	requests     int
	rate         float64
	tenantHeader string
	saltField    string
	model        string
}

var endpointFlagNames = []string{"endpoint-requests", "endpoint-rate", "tenant-header", "salt-field", "endpoint-model"}

func (e *endpointFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&e.url, "endpoint", "", "audit this OpenAI-compatible server (base or /v1/completions URL) for cross-tenant prompt caching instead of checking files")
	cmd.Flags().IntVar(&e.requests, "endpoint-requests", verify.DefaultEndpointRequests, "most requests the endpoint audit sends (6 per sample of each arm, plus 2 warm-up)")
	cmd.Flags().Float64Var(&e.rate, "endpoint-rate", verify.DefaultEndpointRate, "most requests per second the endpoint audit sends")
	cmd.Flags().StringVar(&e.tenantHeader, "tenant-header", "", "header that names the tenant to the server (e.g. X-Tenant); victim and attacker send different values")
	cmd.Flags().StringVar(&e.saltField, "salt-field", "", "request body field of a per-tenant cache salt (SGLang, vLLM: cache_salt); victim and attacker send different values")
	cmd.Flags().StringVar(&e.model, "endpoint-model", "", "the requests' \"model\" (omitted when empty)")
}

func (e *endpointFlags) run(cmd *cobra.Command) error {
	if e.requests < 32 || e.requests > verify.MaxEndpointRequests {
		return usagef("--endpoint-requests must be between 32 and %d, not %d", verify.MaxEndpointRequests, e.requests)
	}
	if !(e.rate > 0 && e.rate <= 1000) {
		return usagef("--endpoint-rate must be above 0 and at most 1000 requests per second, not %g", e.rate)
	}
	format, _ := cmd.Flags().GetString("format")
	if format != "text" && format != "json" {
		return usagef("--endpoint writes text or json, not %q", format)
	}
	seed, _ := cmd.Flags().GetUint64("seed")
	bar := newProgressBar(cmd.ErrOrStderr())
	defer bar.finish()
	rep, err := verify.AuditEndpoint(cmd.Context(), verify.EndpointOptions{
		URL: e.url, Requests: e.requests, Rate: e.rate, TenantHeader: e.tenantHeader,
		SaltField: e.saltField, Model: e.model, Seed: seed, Progress: bar.update,
	})
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "kvlint: endpoint audit: %v\n", err)
		return exitError{exitInput}
	}
	out := cmd.OutOrStdout()
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"endpoint": rep}); err != nil {
			return err
		}
	} else {
		verdict := "not significant"
		if rep.Significant {
			verdict = "SIGNIFICANT"
		}
		fmt.Fprintf(out, "%s: cross-tenant prompt caching %s (p = %g, AUC = %.2f, power %.2f, %d requests)\n%s\n",
			rep.URL, verdict, rep.PValue, rep.AUC, rep.Power, rep.Requests, rep.Summary)
	}
	if rep.Significant {
		return exitError{exitFindings}
	}
	return nil
}

// progressBar draws the verification's progress on a terminal, and only once the run has
// taken more than a second: a quick run, a pipe or a file get nothing.
type progressBar struct {
	w     io.Writer
	tty   bool
	start time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	return &progressBar{w: w, tty: ok && term.IsTerminal(int(f.Fd())), start: time.Now()}
}

func (p *progressBar) update(done, total int) {
	if !p.tty || total == 0 || time.Since(p.start) < time.Second {
		return
	}
	const width = 30
	filled := width * done / total
	fmt.Fprintf(p.w, "\rkvlint verify [%s%s] %d/%d runs", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
	p.drawn = true
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
