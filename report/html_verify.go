package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/verify"
)

// htmlVerify is what verify ran for one deployment.
type htmlVerify struct {
	Scale string
	// Probe is the deployment's HIT-cross test in one line, "" when no
	// probe ran.
	Probe  string
	Runs   []htmlRun
	Probes []htmlProbe
	// ProbeNote says why no timing test is shown.
	ProbeNote string
}

type htmlRun struct {
	Name, Kind                               string
	Seeds, Requests, OK, Rejected, Retracted int
	Leaks, Leaking                           int
}

// htmlProbe is one black-box timing test (HIT arms against MISS).
type htmlProbe struct {
	Run, Rules, Fault string
	Arms              []htmlArm
	Tests             []htmlTest
	Foreign           string
	// CDF draws each arm's TTFT distribution; nil when the report holds
	// no per-request samples (CDFNote says so).
	CDF     *htmlCDF
	CDFNote string
}

type htmlArm struct {
	Name    string
	Samples int
	Median  string // ms
}

type htmlTest struct {
	Arm, D, P, AUC string
	Significant    bool
}

// htmlCDF is the empirical distribution of each arm's TTFT, x in ms.
type htmlCDF struct {
	Width, Height, PlotX, PlotY, PlotW, PlotH float64
	Bottom, LegendX                           float64
	Curves                                    []htmlCurve
	Ticks                                     []htmlTick
}

type htmlCurve struct {
	Arm, Class string
	Points     string
	LegendY    float64
}

type htmlTick struct {
	X     float64
	Label string
}

// armLabels name the probe's arms as leakage.md §5 does.
var armLabels = map[string]string{
	"hit-cross": "HIT-cross (another tenant's prefix)",
	"hit-same":  "HIT-same (the victim's own repeat)",
	"miss":      "MISS (a fresh prompt)",
	"a/a":       "A/A (MISS again)",
}

func armLabel(a string) string {
	if l, ok := armLabels[a]; ok {
		return l
	}
	return a
}

// htmlVerifyOf finds the deployment in the verification; nil with the reason
// when there is none.
func htmlVerifyOf(name string, rep *verify.Report, res *analysis.Result) (*htmlVerify, string) {
	if rep == nil {
		return nil, "no verification in this report: kvlint verify (or check --verify) adds the runtime's runs, TTFT distributions and cross-tenant counts"
	}
	var dr *verify.DeploymentReport
	for i := range rep.Deployments {
		if rep.Deployments[i].Name == name {
			dr = &rep.Deployments[i]
			break
		}
	}
	if dr == nil {
		return nil, "verify did not run this deployment (the runtime cannot model it)"
	}
	sc := dr.Scaling
	hv := &htmlVerify{Scale: fmt.Sprintf("run at 1/%d scale, context %s → %s tokens, seed %d",
		sc.Factor, capacity.Thousands(sc.ContextTokens), capacity.Thousands(int64(sc.ScaledContext)), rep.Seed)}
	if ip := dr.IsolationProbe; ip != nil {
		power := "power not computed"
		if ip.PowerMethod != "" {
			power = fmt.Sprintf("power %.2f (%s)", ip.Power, ip.PowerMethod)
		}
		verdict := "not significant"
		if ip.Significant {
			verdict = "significant"
		}
		hv.Probe = fmt.Sprintf("isolation probe, HIT-cross against MISS: p = %.3g, AUC = %.2f, %s; %s", ip.PValue, ip.AUC, verdict, power)
	}
	for _, r := range dr.Runs {
		kind := string(r.Behaviour)
		if r.Hypothesis != nil {
			kind += " " + *r.Hypothesis
		}
		hv.Runs = append(hv.Runs, htmlRun{
			Name: r.Name, Kind: kind, Seeds: len(r.Seeds), Requests: r.Requests, OK: r.OK, Rejected: r.Rejected,
			Retracted: r.RetractedRequests, Leaks: r.CrossTenantLeaks, Leaking: r.LeakingRequests,
		})
	}
	// A probe is judged once per finding that asks for it: show each run once.
	byRun := map[string]int{}
	for i, fv := range rep.Findings {
		ev := fv.Evidence
		if ev.Isolation == nil || ev.Deployment != name {
			continue
		}
		key := strings.Join(ev.Runs, ",")
		rule := fv.Rule
		if i < len(res.Findings) && res.Findings[i].Rule != "" {
			rule = res.Findings[i].Rule
		}
		if k, seen := byRun[key]; seen {
			if !strings.Contains(hv.Probes[k].Rules, rule) {
				hv.Probes[k].Rules += ", " + rule
			}
			continue
		}
		byRun[key] = len(hv.Probes)
		hv.Probes = append(hv.Probes, htmlProbeOf(key, rule, ev.Isolation))
	}
	if len(hv.Probes) == 0 {
		hv.ProbeNote = "no timing test ran for this deployment: none of its findings is a cross-tenant cache question"
	}
	return hv, ""
}

func htmlProbeOf(run, rule string, ie *verify.IsolationEvidence) htmlProbe {
	p := htmlProbe{Run: run, Rules: rule, Fault: string(ie.Fault)}
	for _, a := range ie.Arms {
		p.Arms = append(p.Arms, htmlArm{Name: armLabel(a.Arm), Samples: a.Samples, Median: fmt.Sprintf("%.1f", a.MedianTTFTUs/1000)})
	}
	for _, t := range ie.Tests {
		p.Tests = append(p.Tests, htmlTest{
			Arm: armLabel(t.Arm), D: fmt.Sprintf("%.3f", t.D), P: fmt.Sprintf("%.3g", t.P), AUC: fmt.Sprintf("%.2f", t.AUC),
			Significant: t.Significant,
		})
	}
	p.Foreign = fmt.Sprintf("%s pages of the victim's KV read by %s of the attacker's requests (white-box)",
		capacity.Thousands(int64(ie.ForeignReadPages)), capacity.Thousands(int64(ie.ForeignReadRequests)))
	p.CDF, p.CDFNote = ttftCDF(ie.Arms)
	return p
}

// CDF plot geometry, in SVG units.
const (
	cdfW, cdfH       = 900.0, 300.0
	cdfLeft, cdfTop  = 48.0, 12.0
	cdfRight         = 330.0 // the legend
	cdfBottom        = 36.0
	cdfMaxCurvePts   = 1000
	cdfTicks         = 5
	cdfLegendSpacing = 18.0
)

// ttftCDF draws each arm's empirical CDF of TTFT as a step curve, on one
// time axis from 0 to the slowest sample.
func ttftCDF(arms []verify.ArmStats) (*htmlCDF, string) {
	top := 0.0
	for _, a := range arms {
		for _, v := range a.TTFTUs {
			top = math.Max(top, v)
		}
	}
	if top <= 0 {
		return nil, "the report holds no per-request TTFT samples for this probe: the CDF is not drawn, the medians and tests are above"
	}
	c := &htmlCDF{Width: cdfW, Height: cdfH, PlotX: cdfLeft, PlotY: cdfTop, PlotW: cdfW - cdfLeft - cdfRight, PlotH: cdfH - cdfTop - cdfBottom}
	c.Bottom, c.LegendX = c.PlotY+c.PlotH, c.PlotX+c.PlotW+16
	xOf := func(us float64) float64 { return c.PlotX + us/top*c.PlotW }
	yOf := func(q float64) float64 { return c.PlotY + (1-q)*c.PlotH }
	// The arms are drawn in reverse, so HIT-cross, the question, lies on
	// top where its curve meets another.
	for _, a := range slices.Backward(arms) {
		if len(a.TTFTUs) == 0 {
			continue
		}
		s := slices.Clone(a.TTFTUs)
		slices.Sort(s)
		step := max(1, len(s)/cdfMaxCurvePts)
		var b strings.Builder
		fmt.Fprintf(&b, "%.1f,%.1f", xOf(0), yOf(0))
		prev := 0.0
		for i := step - 1; i < len(s); i += step {
			q := float64(i+1) / float64(len(s))
			fmt.Fprintf(&b, " %.1f,%.1f %.1f,%.1f", xOf(s[i]), yOf(prev), xOf(s[i]), yOf(q))
			prev = q
		}
		if prev < 1 {
			fmt.Fprintf(&b, " %.1f,%.1f %.1f,%.1f", xOf(s[len(s)-1]), yOf(prev), xOf(s[len(s)-1]), yOf(1))
		}
		c.Curves = append(c.Curves, htmlCurve{
			Arm: armLabel(a.Arm) + fmt.Sprintf(", n = %d", len(s)), Class: "arm-" + strings.ReplaceAll(a.Arm, "/", ""),
			Points: b.String(), LegendY: c.PlotY + 10 + float64(len(c.Curves))*cdfLegendSpacing,
		})
	}
	for i := 0; i <= cdfTicks; i++ {
		us := top * float64(i) / cdfTicks
		c.Ticks = append(c.Ticks, htmlTick{X: xOf(us), Label: fmt.Sprintf("%.1f", us/1000)})
	}
	return c, ""
}
