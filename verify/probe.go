package verify

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/verify/runtime"
)

// The prompt-caching audit of Gu et al. (ICML 2025), as leakage.md §5.2 adapts it: per
// trial a fresh random prompt; the arms in seeded random interleaved order.
const (
	armHitCross = "hit-cross" // the victim sends P; another tenant sends P′
	armHitSame  = "hit-same"  // positive control: the victim itself sends P′
	armMiss     = "miss"      // the attacker sends a fresh prompt
	armAA       = "a/a"       // negative control: a second miss sample
	// prefixFraction is the share of P that P′ repeats (PrefixFraction 0.95).
	prefixFraction = 0.95
	// DefaultSamples is the audit's sample size per arm.
	DefaultSamples = 250
	// FamilyAlpha is the family-wise significance level, Bonferroni-divided over the
	// probe cells of one verify run (leakage.md §5.2).
	FamilyAlpha = 1e-6
	victim      = "victim"
	attacker    = "attacker"
)

var arms = []string{armHitCross, armHitSame, armMiss, armAA}

// probePlan is one probe: its scenario and what it needs to read the result back.
type probePlan struct {
	scenario runtime.Scenario
	samples  int
	victims  int // times the victim sends P before the measured request (routing dilution)
	prompt   int // prompt length in scaled tokens
	cached   int // tokens P′ can reuse from P: the shared part in whole pages
}

// probeLength is the probe's prompt length: at least 16 pages (leakage.md §5.2), a quarter of
// the context, at most 2,048 scaled tokens, and always short enough for every worker.
func (d *deployment) probeLength() int {
	page := 1
	for _, w := range d.workers {
		page = max(page, w.PageSize)
	}
	return max(1, min(d.maxInput-2, max(16*page, min(d.context/4, 2048))))
}

// probeScenario builds the probe for this deployment: tenants victim and attacker, only
// scripted requests, spaced so that no two overlap (Gu et al. wait a second between
// requests; here the spacing is a generous bound on one uncontended request).
func (d *deployment) probeScenario(seed uint64, samples int, faults []runtime.Fault) probePlan {
	r := newRand(seed, "probe")
	n := d.probeLength()
	shared := int(math.Round(prefixFraction * float64(n)))
	victims := 1
	if d.base.Router.Policy != "prefix_aware" {
		// Round robin spreads the victim's copies over the prefill workers; the audit's
		// answer is to repeat the victim's request (v ∈ {1, 5}, leakage.md §1.1).
		prefills := 0
		for _, w := range d.base.Prefill {
			prefills += max(w.Count, 1)
		}
		victims = max(1, min(prefills, 5))
	}
	page := 1
	for _, w := range d.base.Prefill {
		page = max(page, w.PageSize)
	}
	plan := probePlan{samples: samples, victims: victims, prompt: n, cached: shared / page * page}

	// One uncontended request at the runtime's default costs (runtime/scenario_check.go
	// Timing.fill): router, prefill step and per-token cost, transfer, one decode step.
	slotUs := 2 * (15_000 + 30*float64(n))
	order := make([]string, 0, 4*samples)
	for _, a := range arms {
		for range samples {
			order = append(order, a)
		}
	}
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	var script []runtime.ScriptedRequest
	at := 0.0
	send := func(label, tenant, prompt string) {
		script = append(script, runtime.ScriptedRequest{AtMs: at / 1000, Tenant: tenant, Prompt: prompt, MaxTokens: 1, Label: label})
		at += slotUs
	}
	for trial, arm := range order {
		label := func(role string) string { return fmt.Sprintf("probe|%s|%d|%s", arm, trial, role) }
		switch arm {
		case armHitCross, armHitSame:
			p := filler(r, n)
			for range victims {
				send(label("prime"), victim, p)
			}
			who := attacker
			if arm == armHitSame {
				who = victim
			}
			send(label("measure"), who, derived(r, p, shared))
		default:
			send(label("measure"), attacker, filler(r, n))
		}
	}
	wl := runtime.Workload{Tenants: tenants(victim, attacker), Script: script}
	sc := d.scenario("probe", seed, wl, faults...)
	sc.MaxVirtualSeconds = min(86400, at/1e6+600)
	plan.scenario = sc
	return plan
}

// derived is P′: the first k bytes of p, then a byte that differs from p's next one, then
// fresh filler (generate_attacker_prompt forces the first suffix token to differ).
func derived(r interface{ IntN(int) int }, p string, k int) string {
	if k >= len(p) {
		return p
	}
	var b strings.Builder
	b.WriteString(p[:k])
	c := byte('a' + r.IntN(26))
	if c == p[k] || p[k] == ' ' {
		c = 'a' + (p[k]-'a'+1)%26
		if p[k] == ' ' {
			c = 'q'
		}
	}
	b.WriteByte(c)
	for b.Len() < len(p) {
		if b.Len()%6 == 5 {
			b.WriteByte(' ')
		} else {
			b.WriteByte('a' + byte(r.IntN(26)))
		}
	}
	return b.String()
}

// ArmStats summarises one arm's measured requests.
type ArmStats struct {
	Arm     string `json:"arm"`
	Samples int    `json:"samples"` // measured requests that delivered a first token
	// MedianTTFTUs is the median time to first token, in virtual microseconds.
	MedianTTFTUs float64 `json:"median_ttft_us"`
	// MedianCachedTokens is what the prefix cache served of the measured prompts.
	MedianCachedTokens float64 `json:"median_cached_tokens"`
	// TTFTUs are the arm's times to first token, in virtual microseconds and
	// the order the requests were sent: what the HTML report draws as a CDF.
	// Kept out of the JSON, whose size does not grow with --samples.
	TTFTUs []float64 `json:"-"`
}

// KSTest is one arm against the MISS arm: the one-sided two-sample KS test on TTFT
// ("hits are faster") and the AUC.
type KSTest struct {
	Arm         string  `json:"arm"`
	D           float64 `json:"d"`
	P           float64 `json:"p"`
	AUC         float64 `json:"auc"`
	MedianGapUs float64 `json:"median_gap_us"` // median of MISS minus median of this arm
	Significant bool    `json:"significant"`
}

// probeOutcome is what a probe measured.
type probeOutcome struct {
	arms  []ArmStats
	tests map[string]KSTest // by arm: hit-cross, hit-same, a/a
	// foreignPages and foreignReqs count white-box reads of the victim's KV by the
	// attacker's measured requests in the HIT-cross arm.
	foreignPages, foreignReqs int
	failed                    int // measured requests that delivered nothing
}

// readProbe turns a probe's result into its samples and tests at significance level alpha.
func readProbe(res *runtime.Result, alpha float64) probeOutcome {
	ttft := map[string][]float64{}
	cached := map[string][]float64{}
	out := probeOutcome{tests: map[string]KSTest{}}
	for _, rec := range res.Requests {
		parts := strings.Split(rec.Label, "|")
		if len(parts) != 4 || parts[0] != "probe" || parts[3] != "measure" {
			continue
		}
		if _, err := strconv.Atoi(parts[2]); err != nil {
			continue
		}
		arm := parts[1]
		if rec.Outcome != "ok" || rec.TTFTUs < 0 {
			out.failed++
			continue
		}
		ttft[arm] = append(ttft[arm], float64(rec.TTFTUs))
		cached[arm] = append(cached[arm], float64(rec.CachedTokens))
		if arm == armHitCross && rec.ForeignReadPages > 0 {
			out.foreignPages += rec.ForeignReadPages
			out.foreignReqs++
		}
	}
	for _, a := range arms {
		out.arms = append(out.arms, ArmStats{
			Arm: a, Samples: len(ttft[a]),
			MedianTTFTUs: finite(median(ttft[a])), MedianCachedTokens: finite(median(cached[a])),
			TTFTUs: ttft[a],
		})
	}
	miss := ttft[armMiss]
	for _, a := range []string{armHitCross, armHitSame, armAA} {
		d, p := KSGreater(ttft[a], miss)
		out.tests[a] = KSTest{
			Arm: a, D: d, P: p, AUC: finite(AUC(ttft[a], miss)),
			MedianGapUs: finite(median(miss) - median(ttft[a])),
			Significant: len(ttft[a]) > 0 && len(miss) > 0 && p < alpha,
		}
	}
	return out
}

// finite maps NaN (an empty sample) to 0, which JSON can carry.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
