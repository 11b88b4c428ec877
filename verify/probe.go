package verify

import (
	"fmt"
	"math"
	"slices"
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

// probeSeeds is how many seeds the probe runs with: each seed draws other prompts, another
// arm order and other background traffic, so the spread of the p-values over the seeds
// shows how much one run's answer owes to chance.
const probeSeeds = 3

// maxVictimRepeats bounds the victim's copies of P before a measured request: behind round
// robin each copy primes one more prefill replica (Gu et al. repeat the victim, v ∈ {1, 5};
// leakage.md §1.1).
const maxVictimRepeats = 8

// backgroundLoad is the share of the prefill servers' time the background tenants keep busy
// while the probe runs: the probe's requests queue behind theirs and share batches with
// them, which is the noise a real audit meets.
const backgroundLoad = 0.3

// probePlan is one probe: its scenario and what it needs to read the result back.
type probePlan struct {
	scenario runtime.Scenario
	seed     uint64
	samples  int
	victims  int // times the victim sends P before the measured request (routing dilution)
	prompt   int // prompt length in scaled tokens
	cached   int // tokens P′ can reuse from P: the shared part in whole pages
	// prefills is the number of prefill replicas; reach the share of them a measured
	// request can expect to find primed (1 under prefix-aware routing).
	prefills int
	reach    float64
	policy   string
	// hitGainUs is the modelled TTFT a cache hit on the cached tokens saves: the effect
	// the power is computed against.
	hitGainUs float64
	// backgroundRate is the background tenants' arrival rate, per virtual second.
	backgroundRate float64
}

// probeLength is the probe's prompt length: at least 16 pages (leakage.md §5.2), a quarter of
// the context, at most 512 scaled tokens (the runtime's work grows with the tokens of the
// audit's thousands of requests; the modelled times stand for the real tokens each scaled
// one represents), and always short enough for every worker.
func (d *deployment) probeLength() int {
	page := 1
	for _, w := range d.workers {
		page = max(page, w.PageSize)
	}
	return max(1, min(d.maxInput-2, max(16*page, min(d.context/4, 512))))
}

// probeScenarios is the probe at each of its seeds.
func (d *deployment) probeScenarios(seed uint64, samples int, faults []runtime.Fault) []probePlan {
	out := make([]probePlan, probeSeeds)
	for k := range out {
		out[k] = d.probeScenario(seed+uint64(k), samples, faults)
	}
	return out
}

// probeScenario builds the probe for this deployment: tenants victim and attacker send the
// scripted audit, spaced so that two of its requests rarely overlap (Gu et al. wait between
// requests), while background tenants send their own traffic at backgroundLoad.
func (d *deployment) probeScenario(seed uint64, samples int, faults []runtime.Fault) probePlan {
	r := newRand(seed, "probe")
	n := d.probeLength()
	shared := int(math.Round(prefixFraction * float64(n)))
	prefills := 0
	for _, w := range d.base.Prefill {
		prefills += max(w.Count, 1)
	}
	victims, reach := 1, 1.0
	policy := d.base.Router.Policy
	if policy != "prefix_aware" {
		// Round robin sends each request to the next replica: the victim's copies prime
		// as many replicas as there are copies, and the measured request lands on a
		// primed one with that share (background requests shift the rotation, which
		// changes which replicas, not how many).
		victims = max(1, min(prefills, maxVictimRepeats))
		reach = float64(victims) / float64(prefills)
	}
	page := 1
	for _, w := range d.base.Prefill {
		page = max(page, w.PageSize)
	}
	pt := d.timing
	if pt.timing.Jitter == nil {
		// No model of the deployment's costs was made: the runtime's reference costs.
		pt = probeTiming{timing: runtime.Timing{PrefillPerTokenUs: 20, PrefillStepUs: stepOverheadUs, DecodeStepUs: 10000}}
		zero := 0.0
		pt.timing.Jitter = &zero
	}
	cached := shared / page * page
	plan := probePlan{
		seed: seed, samples: samples, victims: victims, prompt: n, cached: cached,
		prefills: prefills, reach: reach, policy: policy,
		hitGainUs: pt.missUs(n) - pt.hitUs(n, cached),
	}

	// One uncontended request: router, prefill, transfer (5 µs per token, the runtime's
	// default link), one decode step; the slot leaves as much again for queueing.
	one := 200 + pt.missUs(n) + 5*float64(n) + pt.timing.DecodeStepUs
	slotUs := 2 * one
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
	// Background traffic: prompts of half to the whole probe length, a few output tokens,
	// Poisson arrivals at the rate that keeps the prefill replicas backgroundLoad busy.
	bgMin := max(1, n/2)
	bgMean := pt.missUs((bgMin + n) / 2)
	rate := backgroundLoad * float64(prefills) / (bgMean / 1e6)
	bg := int(rate * at / 1e6)
	bg = min(bg, 50_000, (1<<26)/max(n, 1))
	plan.backgroundRate = rate
	zero, one1 := 0, 1
	wl := runtime.Workload{
		Tenants: []runtime.Tenant{
			{Name: victim, Weight: &zero}, {Name: attacker, Weight: &zero},
			{Name: "background-1", Weight: &one1}, {Name: "background-2", Weight: &one1},
		},
		Script: script,
	}
	if bg > 0 {
		wl.Requests = bg
		wl.PromptTokens = runtime.IntRange{Min: bgMin, Max: n}
		wl.MaxTokens = 4
		wl.Arrival = runtime.Arrival{Mode: "rate", RatePerSec: rate}
	}
	sc := d.scenario("probe", seed, wl, faults...)
	sc.Timing = pt.timing
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
	// miss holds the MISS arm's times, for the power simulation.
	miss []float64
	// primedTrials counts the HIT-cross trials; landed those whose measured request the
	// router sent to a replica one of the victim's copies went to.
	primedTrials, landed int
}

// readProbe turns a probe's result into its samples and tests at significance level alpha.
func readProbe(res *runtime.Result, alpha float64) probeOutcome {
	ttft := map[string][]float64{}
	cached := map[string][]float64{}
	out := probeOutcome{tests: map[string]KSTest{}}
	primed := map[string][]string{} // trial → prefill replicas of the victim's copies
	measured := map[string]string{} // trial → prefill replica of the HIT-cross measurement
	for _, rec := range res.Requests {
		if parts := strings.Split(rec.Label, "|"); len(parts) == 4 && parts[0] == "probe" && parts[1] == armHitCross {
			switch parts[3] {
			case "prime":
				primed[parts[2]] = append(primed[parts[2]], rec.Prefill)
			case "measure":
				measured[parts[2]] = rec.Prefill
			}
		}
	}
	for trial, w := range measured {
		if w == "" {
			continue
		}
		out.primedTrials++
		if slices.Contains(primed[trial], w) {
			out.landed++
		}
	}
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
	out.miss = miss
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
