package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/diag"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// Verdict is what the runtime showed about a finding (leakage.md §5.3).
type Verdict string

const (
	// Confirmed: the runtime, configured like the deployment, reached the dangerous path.
	Confirmed Verdict = "confirmed"
	// NotConfirmed: the test had the power to show it and did not.
	NotConfirmed Verdict = "not-confirmed"
	// Inconclusive: the test could not tell (a control failed, a path was not reached, a
	// number was only bounded). Never a synonym for "safe".
	Inconclusive Verdict = "inconclusive"
	// NotApplicable: the finding is about something the runtime does not measure (how a
	// flag is written, a startup failure, another engine).
	NotApplicable Verdict = "not-applicable"
)

// FindingVerdict is the verdict on one finding with its evidence.
type FindingVerdict struct {
	Rule     string   `json:"rule"`
	Verdict  Verdict  `json:"verdict"`
	Evidence Evidence `json:"evidence"`
}

// Evidence is the numbers behind a verdict. Summary says them in one sentence; the
// sections hold them for programs.
type Evidence struct {
	// Question is the class of leakage.md §5.3 the finding is judged by: "pool too small",
	// "cross-tenant cache sharing", "transfer handshake", "cache-hit oracle", or "".
	Question   string `json:"question,omitempty"`
	Deployment string `json:"deployment,omitempty"`
	Summary    string `json:"summary"`
	// Runs names the runtime runs of DeploymentReport.Runs the verdict rests on.
	Runs      []string           `json:"runs,omitempty"`
	Capacity  *CapacityEvidence  `json:"capacity,omitempty"`
	Isolation *IsolationEvidence `json:"isolation,omitempty"`
	Oracle    *OracleEvidence    `json:"oracle,omitempty"`
	Handshake *HandshakeEvidence `json:"handshake,omitempty"`
}

// need is a kind of experiment a finding asks for.
type need int

const (
	needNone need = iota
	needCapacity
	needStall
	needHandshake
	needIsolation
	needSaltDropped
	needOracle
	needTiers
	needStartup
)

// ruleNeeds maps the rules verify can judge to what their findings need. Rules not
// listed are about how a configuration is written, and get not-applicable.
var ruleNeeds = map[string]need{
	"KV101": needCapacity,    // pool smaller than the context window
	"KV102": needCapacity,    // pool smaller than context × concurrency
	"KV103": needStartup,     // no memory left for the pool: the server stops at startup
	"KV104": needStall,       // a paged pool that can never admit a valid prompt
	"KV201": needHandshake,   // page sizes differ between prefill and decode
	"KV202": needHandshake,   // KV dtypes differ
	"KV205": needCapacity,    // the decode pool cannot hold what prefill admits
	"KV301": needIsolation,   // a prefix cache shared across tenants
	"KV302": needOracle,      // per-request cache-hit reporting to tenants
	"KV303": needTiers,       // a shared external KV tier without a namespace
	"KV304": needSaltDropped, // an engine version that drops the isolation key
}

func needOf(rule string) need { return ruleNeeds[rule] }

func notApplicable(rule, why string) FindingVerdict {
	return FindingVerdict{Rule: rule, Verdict: NotApplicable, Evidence: Evidence{Summary: why}}
}

// judge gives one finding its verdict from the runs of its deployment.
func (p *plan) judge(di int, f diag.Diagnostic, res *analysis.Result, alpha float64) FindingVerdict {
	d := p.deps[di]
	fv := FindingVerdict{Rule: f.Rule}
	switch needOf(f.Rule) {
	case needCapacity, needStall:
		fv.Verdict, fv.Evidence = p.judgeCapacity(di, f, res, needOf(f.Rule) == needStall)
	case needHandshake:
		fv.Verdict, fv.Evidence = p.judgeHandshake(di)
	case needIsolation:
		fv.Verdict, fv.Evidence = p.judgeIsolation(di, runProbe, alpha)
	case needSaltDropped:
		fv.Verdict, fv.Evidence = p.judgeSaltDropped(di, alpha)
	case needOracle:
		fv.Verdict, fv.Evidence = p.judgeOracle(di, alpha)
	case needTiers:
		fv.Verdict = Inconclusive
		fv.Evidence.Question = "cross-tenant cache sharing"
		fv.Evidence.Summary = "the runtime models the GPU pool and its radix cache only; the external KV tier this finding is about is not modelled, so its namespace cannot be tested here"
	case needStartup:
		return notApplicable(f.Rule, "SGLang stops at startup under this configuration: there is no pool to run")
	default:
		return notApplicable(f.Rule, notMeasured(f.Rule))
	}
	fv.Evidence.Deployment = d.dep.Name
	return fv
}

// notMeasured says why the runtime has nothing to show about a rule.
func notMeasured(rule string) string {
	switch {
	case rule == "KV105":
		return "kvlint could not size this server's pool, so there is no configuration to run; declare what KV105 asks for and verify again"
	case strings.HasPrefix(rule, "KV4"):
		return rule + " is about how a flag is written; the runtime has nothing to measure"
	case strings.HasPrefix(rule, "KV2"):
		return rule + " compares prefill and decode configurations in a way the runtime does not model"
	case strings.HasPrefix(rule, "KV0"):
		return rule + " is about a suppression; the runtime has nothing to measure"
	case strings.HasPrefix(rule, "KV5"):
		return rule + " is about a launch kvlint could not see; there is no configuration to run"
	}
	return "the runtime has no measurement for " + rule
}

// judgeSaltDropped judges KV304 by the release's engine path: the salt is dropped only
// where the release's scheduler drops it, and then the probe, run with that path, shows
// what it costs.
func (p *plan) judgeSaltDropped(di int, alpha float64) (Verdict, Evidence) {
	d := p.deps[di]
	inferred := ""
	if slices.Contains(d.release.Inferred, rt.MechSaltDropped) {
		inferred = " (the release boundary is inferred, not read in the source)"
	}
	var path *EnginePath
	for i := range d.release.Paths {
		if d.release.Paths[i].Mechanism == rt.MechSaltDropped {
			path = &d.release.Paths[i]
		}
	}
	if path == nil {
		ev := Evidence{Question: "cross-tenant cache sharing", Summary: fmt.Sprintf(
			"SGLang %s passes the isolation key to the scheduler (fixed by %s)%s: the runtime keeps the salt, so it is not dropped", d.release.Judged, saltFix(), inferred)}
		if inferred != "" {
			return Inconclusive, ev
		}
		return NotConfirmed, ev
	}
	if !d.enforced {
		return Inconclusive, Evidence{Question: "cross-tenant cache sharing", Summary: fmt.Sprintf(
			"SGLang %s drops the salt (%s)%s, but no salt is enforced here, so nothing that would keep tenants apart is dropped; the shared cache itself is KV301's finding", d.release.Judged, path.Path, inferred)}
	}
	v, ev := p.judgeIsolation(di, runProbe, alpha)
	ev.Summary = fmt.Sprintf("on SGLang %s, whose %s drops the salt%s: %s", d.release.Judged, path.Path, inferred, ev.Summary)
	return v, ev
}

func saltFix() string {
	for _, p := range enginePaths {
		if p.Mechanism == rt.MechSaltDropped {
			return p.Reference + " at " + p.FixedCommit
		}
	}
	return ""
}
