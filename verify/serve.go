package verify

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	rt "github.com/kvlint/kvlint/verify/runtime"
)

// Served is a deployment mapped onto a runtime that clients can talk to: the scenario and
// what it was built from, for the operator to read.
type Served struct {
	Scenario rt.Scenario
	// Deployment names the deployment served; Others the runnable ones that were not.
	Deployment string
	Others     []string
	Scaling    Scaling
	Timing     TimingBasis
}

// ServeScenario maps the first deployment of a check run that the runtime can model onto a
// scenario to serve, with the deployment's own prefix cache (--disable-radix-cache), its
// enforced isolation key (a namespace per tenant) and the modelled costs of its model on
// its GPU. It errs when no deployment can be modelled.
func ServeScenario(res *analysis.Result, opt Options) (*Served, error) {
	var out *Served
	var why []string
	for _, dep := range groupDeployments(res, opt) {
		if !runnable(dep) {
			continue
		}
		if out != nil {
			out.Others = append(out.Others, dep.Name)
			continue
		}
		d, reason := modelDeployment(dep, res, opt)
		if reason != "" {
			why = append(why, dep.Name+": "+reason)
			continue
		}
		d.timing = modelTiming(d, res)
		sc := d.base
		sc.Name = dep.Name
		sc.Seed = opt.Seed
		sc.Timing = d.timing.timing
		out = &Served{Scenario: sc, Deployment: dep.Name, Scaling: d.scaling, Timing: d.timing.basis}
	}
	if out == nil {
		if len(why) > 0 {
			return nil, fmt.Errorf("no deployment the runtime can model: %s", strings.Join(why, "; "))
		}
		return nil, fmt.Errorf("no SGLang deployment found: the runtime models SGLang prefill/decode serving")
	}
	return out, nil
}
