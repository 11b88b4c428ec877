package verify

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/capacity"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// IsolationProbe is the deployment's prompt-caching audit as the report shows it
// (verification.deployments[].isolation_probe): the HIT-cross against MISS test, pooled over
// the probe's seeds (medians), with the power the run had and the spread over the seeds.
type IsolationProbe struct {
	PValue float64 `json:"p_value"`
	AUC    float64 `json:"auc"`
	// Power is the probability that the test, at this sample size, level and noise, finds
	// a cache hit as large as the model predicts (median over the seeds).
	Power       float64 `json:"power"`
	Significant bool    `json:"significant"`
	Alpha       float64 `json:"alpha"`
	// PowerMethod says how Power was computed.
	PowerMethod string      `json:"power_method"`
	Seeds       []ProbeSeed `json:"seeds"`
	// PValueMin and PValueMax are the spread of the seeds' p-values.
	PValueMin float64 `json:"p_value_min"`
	PValueMax float64 `json:"p_value_max"`
	// Control is the A/A test (MISS against MISS), which must not be significant;
	// PositiveControl the victim's own repeat (HIT-same) against MISS.
	Control         KSTest      `json:"control"`
	PositiveControl KSTest      `json:"positive_control"`
	Router          ProbeRouter `json:"router"`
	Timing          TimingBasis `json:"timing"`
	// ExpectedGainUs is the modelled TTFT a hit on the cached prefix saves (virtual µs).
	ExpectedGainUs float64 `json:"expected_gain_us"`
}

// ProbeSeed is one seed's HIT-cross test.
type ProbeSeed struct {
	Seed        uint64  `json:"seed"`
	PValue      float64 `json:"p_value"`
	AUC         float64 `json:"auc"`
	Power       float64 `json:"power"`
	Significant bool    `json:"significant"`
	ControlP    float64 `json:"control_p_value"`
}

// ProbeRouter is how the router spreads the probe: the policy, the prefill replicas, the
// victim's copies of each prompt and the share of replicas they prime.
type ProbeRouter struct {
	Policy        string  `json:"policy"`
	Replicas      int     `json:"prefill_replicas"`
	VictimRepeats int     `json:"victim_repeats"`
	Reach         float64 `json:"reach"`
	// Landed is the share of HIT-cross measurements that the router actually sent to a
	// replica the victim's copies went to (white-box context, not evidence).
	Landed float64 `json:"landed"`
}

// minPower is the power below which a probe that finds nothing says nothing.
const minPower = 0.8

// powerReplicates is the number of simulated audits behind a power figure.
const powerReplicates = 200

// IsolationEvidence backs a verdict on cross-tenant cache sharing (leakage.md §5.3 (b)):
// the black-box timing audit, with white-box page reads as context only.
type IsolationEvidence struct {
	Fault          rt.Fault        `json:"fault,omitempty"`
	SamplesPerArm  int             `json:"samples_per_arm"`
	VictimRepeats  int             `json:"victim_repeats"`
	PromptTokens   int             `json:"prompt_tokens"` // scaled
	PrefixFraction float64         `json:"prefix_fraction"`
	Alpha          float64         `json:"alpha"`
	Probe          *IsolationProbe `json:"probe"`
	Arms           []ArmStats      `json:"arms"`
	// Tests are HIT-cross, HIT-same (the positive control) and A/A (the negative control),
	// each against MISS, for the first seed.
	Tests []KSTest `json:"tests"`
	// ForeignReadPages counts the pages of the victim's KV that the attacker's HIT-cross
	// requests read (white-box); ForeignReadRequests the requests that read any. They
	// explain a timing difference; they never decide the verdict.
	ForeignReadPages    int `json:"foreign_read_pages"`
	ForeignReadRequests int `json:"foreign_read_requests"`
	FailedProbes        int `json:"failed_probes"`
}

// probeOf pools a probe's seeds; nil when it did not run.
func (p *plan) probeOf(di int, name string, alpha float64) (*IsolationProbe, []probeOutcome, probePlan) {
	var outs []probeOutcome
	var first probePlan
	ip := &IsolationProbe{Alpha: alpha, Seeds: []ProbeSeed{},
		PowerMethod: fmt.Sprintf("simulation: %d audits of the run's size, HIT times drawn from the run's own MISS times less the modelled cache-hit saving on the share of requests the router sends to a primed replica, tested at the run's α", powerReplicates)}
	var ps, aucs, pows, landed []float64
	controls := 0
	for k, j := range p.jobsOf(di, name) {
		res := p.jobs[j].res
		if res == nil {
			continue
		}
		pp := p.probe[j]
		if k == 0 {
			first = pp
		}
		o := readProbe(res, alpha)
		outs = append(outs, o)
		cross, aa := o.tests[armHitCross], o.tests[armAA]
		pow := ksPower(o.miss, pp.hitGainUs, pp.reach, alpha, newRand(pp.seed, "power"))
		ip.Seeds = append(ip.Seeds, ProbeSeed{Seed: pp.seed, PValue: cross.P, AUC: cross.AUC, Power: pow, Significant: cross.Significant, ControlP: aa.P})
		ps, aucs, pows = append(ps, cross.P), append(aucs, cross.AUC), append(pows, pow)
		if o.primedTrials > 0 {
			landed = append(landed, float64(o.landed)/float64(o.primedTrials))
		}
		if aa.Significant {
			controls++
		}
	}
	if len(outs) == 0 {
		return nil, nil, first
	}
	ip.PValue, ip.AUC, ip.Power = finite(median(ps)), finite(median(aucs)), finite(median(pows))
	ip.Significant = ip.PValue < alpha
	ip.PValueMin, ip.PValueMax = slices.Min(ps), slices.Max(ps)
	ip.Control = outs[0].tests[armAA]
	// The control is significant when it is in a majority of the seeds.
	ip.Control.Significant = 2*controls > len(outs)
	ip.PositiveControl = outs[0].tests[armHitSame]
	ip.Router = ProbeRouter{Policy: first.policy, Replicas: first.prefills, VictimRepeats: first.victims, Reach: first.reach, Landed: finite(median(landed))}
	ip.Timing = p.deps[di].timing.basis
	ip.ExpectedGainUs = first.hitGainUs
	return ip, outs, first
}

// judgeIsolation applies leakage.md §5.3 (b) to a probe run: the verdict is the black-box
// timing test's alone.
func (p *plan) judgeIsolation(di int, name string, alpha float64) (Verdict, Evidence) {
	ev := Evidence{Question: "cross-tenant cache sharing", Runs: []string{name}}
	ip, outs, pp := p.probeOf(di, name, alpha)
	if ip == nil {
		ev.Summary = "the probe did not run"
		return Inconclusive, ev
	}
	res, _ := p.result(di, name)
	o := outs[0]
	ie := &IsolationEvidence{
		SamplesPerArm: pp.samples, VictimRepeats: pp.victims, PromptTokens: pp.prompt,
		PrefixFraction: prefixFraction, Alpha: alpha, Arms: o.arms, Probe: ip,
		FailedProbes: o.failed,
	}
	for _, x := range outs {
		ie.ForeignReadPages += x.foreignPages
		ie.ForeignReadRequests += x.foreignReqs
	}
	if res != nil && len(res.Faults) > 0 {
		ie.Fault = res.Faults[0]
	}
	for _, a := range []string{armHitCross, armHitSame, armAA} {
		ie.Tests = append(ie.Tests, o.tests[a])
	}
	ev.Isolation = ie
	var v Verdict
	var why string
	switch {
	case ip.Control.Significant:
		v, why = Inconclusive, "the A/A control is significant: timing drifts, so no timing difference can be trusted"
	case ip.Significant:
		v, why = Confirmed, "another tenant's prompt makes the attacker's measurably faster"
	case ip.Power < minPower && ip.Router.Policy != "prefix_aware" && ip.Router.Reach < 1:
		v, why = Inconclusive, fmt.Sprintf("behind round-robin routing over %d prefill replicas the victim's %d copies prime only %.0f%% of them, so the audit had power %.2f (below %.1f): inconclusive, not isolated",
			ip.Router.Replicas, ip.Router.VictimRepeats, 100*ip.Router.Reach, ip.Power, minPower)
	case ip.Power < minPower:
		v, why = Inconclusive, fmt.Sprintf("no significant difference, but the audit had power %.2f (below %.1f) against the modelled cache hit of %s ms: too few samples for the noise, which is no evidence of isolation",
			ip.Power, minPower, trimMs(ip.ExpectedGainUs))
	case ip.PositiveControl.Significant:
		v, why = NotConfirmed, fmt.Sprintf("the victim's own repeat hits (the positive control) and another tenant's does not, with power %.2f to see the modelled cache hit", ip.Power)
	case !p.deps[di].radix:
		v, why = NotConfirmed, fmt.Sprintf("the prefix cache is off, so no tenant's prompt is cached for another to hit, and the timing shows none (power %.2f against the hit a cache would give)", ip.Power)
	default:
		v, why = Inconclusive, "the positive control failed: the victim's own repeat was not measurably faster (its prefix evicted, or too few samples), which is no evidence of isolation"
	}
	cross, same, aa := o.tests[armHitCross], o.tests[armHitSame], o.tests[armAA]
	cells := int(math.Round(FamilyAlpha / alpha))
	ev.Summary = fmt.Sprintf("%s; HIT-cross vs MISS p = %s (median of %d seeds, %s to %s), AUC = %.2f, power %.2f; first seed: %s; %s; %s; at α = %s (family-wise %s over %d probe %s, Bonferroni)",
		why, formatP(ip.PValue), len(ip.Seeds), formatP(ip.PValueMin), formatP(ip.PValueMax), ip.AUC, ip.Power,
		describeTest("HIT-cross", cross, o.arms), describeTest("HIT-same", same, o.arms), describeTest("A/A", aa, o.arms),
		formatP(alpha), formatP(FamilyAlpha), cells, plural(cells, "cell", "cells"))
	if ie.ForeignReadPages > 0 {
		ev.Summary += fmt.Sprintf("; context (white-box, not the verdict): the attacker's requests read %s pages of the victim's KV", capacity.Thousands(int64(ie.ForeignReadPages)))
	}
	if ie.Fault != "" {
		ev.Summary = fmt.Sprintf("under %s: %s", ie.Fault, ev.Summary)
	}
	return v, ev
}

func describeTest(name string, t KSTest, arms []ArmStats) string {
	med := func(arm string) float64 {
		for _, a := range arms {
			if a.Arm == arm {
				return a.MedianTTFTUs
			}
		}
		return 0
	}
	return fmt.Sprintf("%s vs MISS D⁺ = %.3f, p = %s, AUC = %.2f (median TTFT %s vs %s ms)",
		name, t.D, formatP(t.P), t.AUC, trimMs(med(t.Arm)), trimMs(med(armMiss)))
}

func trimMs(us float64) string { return fmt.Sprintf("%.1f", us/1000) }

// formatP prints a p-value compactly: 0.42, 3.1e-08.
func formatP(p float64) string {
	switch {
	case p == 0:
		return "< 1e-300"
	case p >= 0.001:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
	}
	return fmt.Sprintf("%.1e", p)
}

// OracleEvidence is the cached-token extraction attack against --enable-cache-report.
type OracleEvidence struct {
	// CrossCachedTokens and SameCachedTokens are the median cached tokens reported on the
	// probe's HIT-cross and HIT-same requests.
	CrossCachedTokens float64 `json:"cross_cached_tokens"`
	SameCachedTokens  float64 `json:"same_cached_tokens"`
	// The character-by-character extraction: requests sent, what it recovered, and
	// whether that is the victim's secret.
	Probes    int    `json:"probes"`
	Recovered string `json:"recovered"`
	Success   bool   `json:"success"`
	// PageSize is the deployment's page the extraction was aligned to: the cache matches
	// whole pages, so the attacker must guess a page's unknown bytes at once. Stopped says
	// why the extraction ended early (the guesses a page needs exceeded the budget).
	PageSize int    `json:"page_size"`
	Stopped  string `json:"stopped,omitempty"`
}

// oracleWorkload is leakage.md §5.4 items 6 and 10: a victim with a secret in a shared
// prefix cache, and an attacker that reads it one character at a time through the
// cached-token count the server reports.
func (d *deployment) oracleWorkload() rt.Workload {
	ws := d.shape()
	zero := 0
	return rt.Workload{
		Tenants:            []rt.Tenant{{Name: victim}, {Name: attacker, Weight: &zero}},
		Requests:           24,
		SharedPrefixTokens: min(ws.shared, 256),
		PromptTokens:       rt.IntRange{Min: min(ws.minPrompt, 512), Max: min(ws.maxPrompt, 1024)},
		MaxTokens:          min(ws.maxTokens, 16),
		Arrival:            rt.Arrival{Mode: "closed", Concurrency: 4},
		Extraction:         &rt.Extraction{Attacker: attacker, Victim: victim, PageSize: d.realPage()},
	}
}

// realPage is the deployment's page size in real tokens (the largest of its prefill
// servers'): what a production server's cached-token count is rounded to.
func (d *deployment) realPage() int {
	page := 1
	for _, w := range d.scaling.Workers {
		if w.Role != "decode" {
			page = max(page, w.PageSize)
		}
	}
	return min(page, maxPageSize)
}

func (p *plan) judgeOracle(di int, alpha float64) (Verdict, Evidence) {
	d := p.deps[di]
	ev := Evidence{Question: "cache-hit oracle", Runs: []string{runProbe, runOracle}}
	oe := &OracleEvidence{}
	ev.Oracle = oe
	if res, _ := p.result(di, runOracle); res != nil && res.Extraction != nil {
		x := res.Extraction
		oe.Probes, oe.Recovered, oe.Success = x.Probes, x.Recovered, x.Success
		oe.PageSize, oe.Stopped = x.PageSize, x.Stopped
	}
	if res, _ := p.result(di, runProbe); res != nil {
		for _, a := range readProbe(res, alpha).arms {
			switch a.Arm {
			case armHitCross:
				oe.CrossCachedTokens = a.MedianCachedTokens
			case armHitSame:
				oe.SameCachedTokens = a.MedianCachedTokens
			}
		}
	}
	switch {
	case oe.Success:
		ev.Summary = fmt.Sprintf("an attacker tenant recovered the victim's secret %q in %d requests from the reported cached-token counts alone", oe.Recovered, oe.Probes)
		return Confirmed, ev
	case oe.CrossCachedTokens > 0:
		ev.Summary = fmt.Sprintf("the server reports to the attacker that it reused %s tokens of the victim's prompt (median over the HIT-cross probes): a direct cache-hit oracle, no timing needed; the extraction aligned to the deployment's %d-token pages recovered %q in %d requests",
			trimFloat(oe.CrossCachedTokens), oe.PageSize, oe.Recovered, oe.Probes)
		if oe.Stopped != "" {
			ev.Summary += " and stopped: " + oe.Stopped + " (the oracle still confirms a guessed page)"
		}
		return Confirmed, ev
	case oe.SameCachedTokens > 0:
		ev.Summary = fmt.Sprintf("the server reports the victim's own reuse (%s tokens) but never another tenant's, and the extraction recovered %q in %d requests",
			trimFloat(oe.SameCachedTokens), oe.Recovered, oe.Probes)
		return NotConfirmed, ev
	case !d.radix:
		ev.Summary = "the prefix cache is off, so cached-token counts carry nothing; inconclusive, not isolated"
	default:
		ev.Summary = "no cached tokens were reported even for the victim's own repeat (is --enable-cache-report on the prefill servers?); inconclusive"
	}
	return Inconclusive, ev
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
