package verify

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvlint/kvlint/capacity"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// IsolationEvidence backs a verdict on cross-tenant cache sharing (leakage.md §5.3 (b)):
// the timing audit and the white-box page reads.
type IsolationEvidence struct {
	Fault          rt.Fault   `json:"fault,omitempty"`
	SamplesPerArm  int        `json:"samples_per_arm"`
	VictimRepeats  int        `json:"victim_repeats"`
	PromptTokens   int        `json:"prompt_tokens"` // scaled
	PrefixFraction float64    `json:"prefix_fraction"`
	Alpha          float64    `json:"alpha"`
	Arms           []ArmStats `json:"arms"`
	// Tests are HIT-cross, HIT-same (the positive control) and A/A (the negative control),
	// each against MISS.
	Tests []KSTest `json:"tests"`
	// ForeignReadPages counts the pages of the victim's KV that the attacker's HIT-cross
	// requests read (white-box); ForeignReadRequests the requests that read any.
	ForeignReadPages    int `json:"foreign_read_pages"`
	ForeignReadRequests int `json:"foreign_read_requests"`
	FailedProbes        int `json:"failed_probes"`
}

// judgeIsolation applies leakage.md §5.3 (b) to a probe run.
func (p *plan) judgeIsolation(di int, name string, alpha float64) (Verdict, Evidence) {
	res, k := p.result(di, name)
	ev := Evidence{Question: "cross-tenant cache sharing", Runs: []string{name}}
	if res == nil {
		ev.Summary = "the probe did not run"
		return Inconclusive, ev
	}
	pp := p.probe[k]
	o := readProbe(res, alpha)
	ie := &IsolationEvidence{
		SamplesPerArm: pp.samples, VictimRepeats: pp.victims, PromptTokens: pp.prompt,
		PrefixFraction: prefixFraction, Alpha: alpha, Arms: o.arms,
		ForeignReadPages: o.foreignPages, ForeignReadRequests: o.foreignReqs, FailedProbes: o.failed,
	}
	if len(res.Faults) > 0 {
		ie.Fault = res.Faults[0]
	}
	for _, a := range []string{armHitCross, armHitSame, armAA} {
		ie.Tests = append(ie.Tests, o.tests[a])
	}
	ev.Isolation = ie
	cross, same, aa := o.tests[armHitCross], o.tests[armHitSame], o.tests[armAA]
	var v Verdict
	var why string
	switch {
	case o.foreignPages > 0:
		v, why = Confirmed, fmt.Sprintf("the attacker's requests read %s pages of the victim's KV (white-box)", capacity.Thousands(int64(o.foreignPages)))
	case cross.Significant && same.Significant && !aa.Significant:
		v, why = Confirmed, "another tenant's prompt makes the attacker's measurably faster"
	case same.Significant && !cross.Significant && !aa.Significant:
		v, why = NotConfirmed, "the victim's own repeat hits (the positive control), another tenant's does not, and no page crossed"
	case aa.Significant:
		v, why = Inconclusive, "the A/A control is significant: timing drifts, so no timing difference can be trusted"
	default:
		v, why = Inconclusive, "the positive control failed: the victim's own repeat was not measurably faster (prefix cache off, or too few samples), which is no evidence of isolation"
	}
	cells := int(math.Round(FamilyAlpha / alpha))
	ev.Summary = fmt.Sprintf("%s; %s; %s; %s; at α = %s (family-wise %s over %d probe %s, Bonferroni)",
		why, describeTest("HIT-cross", cross, o.arms), describeTest("HIT-same", same, o.arms), describeTest("A/A", aa, o.arms),
		formatP(alpha), formatP(FamilyAlpha), cells, plural(cells, "cell", "cells"))
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
		Extraction:         &rt.Extraction{Attacker: attacker, Victim: victim},
	}
}

func (p *plan) judgeOracle(di int, alpha float64) (Verdict, Evidence) {
	d := p.deps[di]
	ev := Evidence{Question: "cache-hit oracle", Runs: []string{runProbe, runOracle}}
	oe := &OracleEvidence{}
	ev.Oracle = oe
	if res, _ := p.result(di, runOracle); res != nil && res.Extraction != nil {
		x := res.Extraction
		oe.Probes, oe.Recovered, oe.Success = x.Probes, x.Recovered, x.Success
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
		ev.Summary = fmt.Sprintf("the server reports to the attacker that it reused %s tokens of the victim's prompt (median over the HIT-cross probes): a direct cache-hit oracle, no timing needed; the character-by-character extraction recovered %q in %d requests",
			trimFloat(oe.CrossCachedTokens), oe.Recovered, oe.Probes)
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
