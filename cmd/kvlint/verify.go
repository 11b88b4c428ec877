package main

import (
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
  isolation findings (KV301, KV304): the prompt-caching audit's probe, 250
    samples per arm (HIT-cross, HIT-same, MISS, A/A), a one-sided two-sample
    Kolmogorov-Smirnov test on time to first token plus AUC at family-wise
    alpha 1e-6, and white-box reads of another tenant's pages;
  KV302: the cached-token oracle; KV201/KV202: the transfer handshake.

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
	return cmd
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
